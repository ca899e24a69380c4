import { lazy, Suspense, useCallback, useEffect, useState } from 'react'
import { ApiError, notifyError } from '../../core/api'
import { confirm, toast } from '../../core/emit'
import { formatTime } from '../../core/time'
import { Markdown } from '../../ui/markdown'
import { DraftEditor } from './draft-editor'
import { canClaim, fileSrc, OrderStatusBadge, PAY_MOVING, PayStateBadge, SessionStatusBadge } from './parts'
import { cancelOrder, formatWindow, formatYuan, loadActivityDetail, onRedPackState, takeOrder, type ActivityDetail, type Order } from './state'
import { SubmitForm } from './submit-form'

const RedPacket = lazy(() => import('./red-packet').then((m) => ({ default: m.RedPacket })))

const NOT_OPEN: Record<string, string> = {
  upcoming: '本场次尚未开始，开始后即可接单',
  full: '本场次名额已满',
  ended: '本场次已结束'
}

/** One session of an activity: brief, requirements, places left, and my order in it. */
export function Detail({ quality, base, activityId, sessionId }: { quality: boolean; base: string; activityId: string; sessionId: string }) {
  const [detail, setDetail] = useState<ActivityDetail | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [claiming, setClaiming] = useState(false)

  const load = useCallback(async () => {
    try {
      setDetail(await loadActivityDetail(activityId, sessionId))
      setFailed(null)
    } catch (error) {
      if (error instanceof ApiError) setFailed(error.message)
      else setFailed('加载失败，请稍后重试')
      notifyError(error)
    }
  }, [activityId, sessionId])

  useEffect(() => {
    void load()
  }, [load])

  const setOrder = (order: Order | null) => setDetail((d) => (d ? { ...d, myOrder: order } : d))

  // My order's packet moves on the server (sent, received, refunded) without anyone asking: follow it
  // on the account channel while it is on its way.
  const mine = detail?.myOrder
  const moving = mine?.status === 'approved' && PAY_MOVING.includes(mine.payState)
  useEffect(
    () =>
      moving
        ? onRedPackState((s) =>
            setDetail((d) =>
              d?.myOrder?.orderId === s.orderId && d.myOrder.payState !== s.payState ? { ...d, myOrder: { ...d.myOrder, payState: s.payState } } : d
            )
          )
        : undefined,
    [moving]
  )

  async function handleTake() {
    if (!detail || busy) return
    const { activity, session } = detail
    const ok = await confirm({
      title: '确认接单',
      message: `接下「${activity.title}」${session.name}？将占用 1 个名额，请在 ${formatTime(session.endTime)} 前发布并提交。`,
      confirmText: '接单'
    })
    if (!ok) return
    setBusy(true)
    try {
      const order = await takeOrder(session.activitySessionId)
      toast('接单成功，开始创作吧', 'success')
      setDetail((d) => (d ? { ...d, myOrder: order, session: { ...d.session, placesLeft: Math.max(0, d.session.placesLeft - 1) } } : d))
      void load()
    } catch (error) {
      notifyError(error)
      void load() // places may have changed
    } finally {
      setBusy(false)
    }
  }

  async function handleCancel(order: Order) {
    if (
      busy ||
      !(await confirm({ title: '取消接单', message: '确定取消这个订单吗？名额将退回，草稿不会保留。', confirmText: '取消接单', cancelText: '再想想' }))
    )
      return
    setBusy(true)
    try {
      setOrder(await cancelOrder(order.orderId))
      toast('已取消接单', 'success')
      void load()
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  if (!detail) {
    return (
      <div className="max-w-3xl mx-auto">
        <a href={base} className="text-sm text-muted hover:text-primary">
          ‹ 返回任务大厅
        </a>
        {failed ? (
          <div className="py-16 text-center">
            <p role="alert" className="text-danger">
              {failed}
            </p>
            <button type="button" onClick={() => void load()} className="mt-4 h-9 px-5 rounded-lg border border-line text-sm hover:border-primary">
              重新加载
            </button>
          </div>
        ) : (
          <div role="status" className="py-16 grid place-items-center gap-3 text-muted text-sm">
            <span className="lx-spinner" />
            任务加载中…
          </div>
        )}
      </div>
    )
  }

  const { activity, session, myOrder } = detail
  const active = myOrder && myOrder.status !== 'cancelled' && myOrder.status !== 'expired' ? myOrder : null
  const editable = active && (active.status === 'taken' || active.status === 'rejected')
  const sessionOpen = session.status === 'open' && session.placesLeft > 0
  return (
    <article aria-labelledby="lx-od-title" className="@container max-w-3xl mx-auto">
      <a href={base} className="text-sm text-muted hover:text-primary">
        ‹ 返回{quality ? '优质' : ''}任务大厅
      </a>
      <header className="mt-3 rounded-card border border-line bg-surface p-4 cq-md:p-5">
        <div className="flex flex-wrap items-center gap-1.5">
          <span className="inline-flex items-center h-5 px-1.5 rounded bg-raised text-[11px]">{activity.platformName}</span>
          {activity.quality && <span className="inline-flex items-center h-5 px-1.5 rounded bg-primary text-primary-ink text-[11px] font-semibold">优质</span>}
          <SessionStatusBadge status={session.status} />
        </div>
        <h2 id="lx-od-title" className="mt-2 text-xl font-bold break-words">
          {activity.title}
        </h2>
        <dl className="mt-3 grid grid-cols-2 cq-md:grid-cols-4 gap-3 text-sm">
          <div>
            <dt className="text-xs text-muted">每篇奖励</dt>
            <dd className="text-primary font-bold text-lg tabular-nums">¥{formatYuan(activity.rewardFen)}</dd>
          </div>
          <div>
            <dt className="text-xs text-muted">剩余名额</dt>
            <dd className="text-lg font-semibold tabular-nums" data-testid="detail-places-left">
              {Math.max(0, session.placesLeft)}
              <span className="text-xs text-muted font-normal"> / {session.places}</span>
            </dd>
          </div>
          <div className="col-span-2">
            <dt className="text-xs text-muted">{session.name}时间</dt>
            <dd>{formatWindow(session.startTime, session.endTime)}</dd>
          </div>
        </dl>
      </header>

      <section aria-labelledby="lx-od-brief" className="mt-4 rounded-card border border-line bg-surface p-4 cq-md:p-5">
        <h3 id="lx-od-brief" className="font-semibold">
          任务简介
        </h3>
        <Markdown text={activity.brief} streaming={false} className="mt-2 text-sm leading-7 break-words" />
        {activity.requirements && (
          <>
            <h3 className="mt-4 font-semibold">发布要求</h3>
            <p className="mt-2 text-sm leading-7 whitespace-pre-wrap break-words text-ink/90">{activity.requirements}</p>
          </>
        )}
      </section>

      <section aria-labelledby="lx-od-mine" data-testid="my-order-panel" className="mt-4 rounded-card border border-line bg-surface p-4 cq-md:p-5">
        <div className="flex flex-wrap items-center gap-2">
          <h3 id="lx-od-mine" className="font-semibold mr-auto">
            我的订单
          </h3>
          {myOrder && <OrderStatusBadge status={myOrder.status} />}
          {myOrder?.status === 'approved' && <PayStateBadge state={myOrder.payState} />}
        </div>

        {!active && (
          <div className="mt-3">
            {myOrder && <p className="mb-3 text-sm text-muted">{myOrder.status === 'cancelled' ? '你已取消过这个订单。' : '这个订单已过期。'}</p>}
            {sessionOpen ? (
              <>
                <p className="text-sm text-muted">接单后占用 1 个名额：按要求创作并发布，提交链接和截图，审核通过即可领取微信红包。</p>
                <button
                  type="button"
                  onClick={() => void handleTake()}
                  aria-disabled={busy || undefined}
                  className="mt-3 h-10 px-8 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110 aria-disabled:opacity-60"
                >
                  {busy ? '接单中…' : '立即接单'}
                </button>
              </>
            ) : (
              <p role="status" className="text-sm text-muted">
                {NOT_OPEN[session.status] ?? (session.placesLeft <= 0 ? NOT_OPEN.full : '本场次暂不可接单')}
              </p>
            )}
          </div>
        )}

        {active && (
          <div className="mt-3 flex flex-col gap-5">
            {active.status === 'rejected' && (
              <p role="status" className="rounded-lg border border-danger/50 bg-danger/10 px-3 py-2 text-sm text-danger">
                审核未通过{active.rejectReason ? `：${active.rejectReason}` : ''}。请修改后重新提交。
              </p>
            )}
            {active.status === 'submitted' && (
              <p role="status" className="rounded-lg border border-primary/40 bg-primary/10 px-3 py-2 text-sm text-primary">
                已于 {formatTime(active.submitTime ?? Date.now())} 提交，等待审核。
              </p>
            )}
            {active.status === 'approved' && (
              <div className="flex flex-wrap items-center gap-3 rounded-lg border border-ok/50 bg-ok/10 px-3 py-3">
                <p className="text-sm text-ok mr-auto">审核通过，奖励 ¥{formatYuan(active.rewardFen)}</p>
                {canClaim(active) ? (
                  <button
                    type="button"
                    onClick={() => setClaiming(true)}
                    className="h-10 px-6 rounded-lg bg-[#e8473b] text-white font-semibold hover:brightness-110"
                  >
                    领取红包
                  </button>
                ) : (
                  <button type="button" onClick={() => setClaiming(true)} className="h-9 px-4 rounded-lg border border-line text-sm hover:border-primary">
                    查看红包
                  </button>
                )}
              </div>
            )}

            {editable ? (
              <>
                <DraftEditor order={active} onSaved={setOrder} />
                <SubmitForm order={active} onSubmitted={setOrder} />
                {active.status === 'taken' && (
                  <button
                    type="button"
                    onClick={() => void handleCancel(active)}
                    className="self-start text-sm text-muted hover:text-danger underline-offset-2 hover:underline"
                  >
                    取消接单
                  </button>
                )}
              </>
            ) : (
              <Submitted order={active} />
            )}
          </div>
        )}
      </section>

      {claiming && active && (
        <Suspense fallback={null}>
          <RedPacket order={active} onClose={() => setClaiming(false)} onState={(payState) => setOrder({ ...active, payState })} />
        </Suspense>
      )}
    </article>
  )
}

/** What was submitted (read-only once under review or approved). */
function Submitted({ order }: { order: Order }) {
  return (
    <div className="flex flex-col gap-3 text-sm">
      {order.draft && (
        <details className="rounded-lg border border-line bg-raised px-3 py-2">
          <summary className="cursor-pointer text-muted">我的稿件</summary>
          <p className="mt-2 whitespace-pre-wrap break-words">{order.draft}</p>
        </details>
      )}
      {order.link && (
        <p>
          <span className="text-muted">发布链接：</span>
          <a href={order.link} target="_blank" rel="noopener noreferrer" className="text-primary break-all hover:underline">
            {order.link}
          </a>
        </p>
      )}
      {order.screenshots.length > 0 && (
        <ul aria-label="提交的截图" className="flex flex-wrap gap-2">
          {order.screenshots.map((url, i) => (
            <li key={url}>
              <a href={fileSrc(url)} target="_blank" rel="noopener noreferrer">
                <img src={fileSrc(url)} alt={`截图 ${i + 1}`} loading="lazy" className="size-20 rounded-lg object-cover border border-line bg-raised" />
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
