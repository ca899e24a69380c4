import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { Badge, button, Field, FormError, input, Modal, Pager, primary, small, Table, useSubmit } from './parts'
import { adminCall, downloadCsv, ORDER_STATUS, type PayOrder, PROVIDER, when, yuan } from './state'

// 订单: payment orders with filters and paging, their CSV, and refunds.

const PAGE_SIZE = 20

interface Filters {
  status: string
  provider: string
  query: string
  from: string
  to: string
}
const EMPTY: Filters = { status: '', provider: '', query: '', from: '', to: '' }

/** The filters that are set, as the API takes them. */
const given = (f: Filters) => Object.fromEntries(Object.entries(f).flatMap(([k, v]) => (v.trim() ? [[k, v.trim()]] : [])))

const tone = (status: string) => (status === 'paid' ? 'ok' : status === 'refunded' ? 'danger' : status === 'pending' ? 'primary' : 'muted')

export function OrdersTab() {
  const [draft, setDraft] = useState<Filters>(EMPTY)
  const [filters, setFilters] = useState<Filters>(EMPTY)
  const [page, setPage] = useState(1)
  const [answer, setAnswer] = useState<{ list: PayOrder[]; total: number } | null>(null)
  const [refunding, setRefunding] = useState<PayOrder | null>(null)
  const [version, setVersion] = useState(0)

  // biome-ignore lint/correctness/useExhaustiveDependencies: version: a refund asks for the same page again
  useEffect(() => {
    let live = true
    adminCall<{ list: PayOrder[]; total: number }>('pay/orders', { ...given(filters), pageNum: page, pageSize: PAGE_SIZE })
      .then((a) => live && setAnswer(a))
      .catch((e) => live && notifyError(e))
    return () => {
      live = false
    }
  }, [filters, page, version])

  function submit(event: On.Submit) {
    event.preventDefault()
    setPage(1)
    setFilters(draft)
  }

  async function csv() {
    try {
      await downloadCsv(`pay/orders/csv?${new URLSearchParams(given(filters))}`, 'orders.csv')
    } catch (e) {
      notifyError(e)
    }
  }

  const set = (key: keyof Filters) => (e: { target: EventTarget | null }) => setDraft((d) => ({ ...d, [key]: (e.target as HTMLInputElement).value }))

  return (
    <>
      <form onSubmit={submit} aria-label="筛选订单" className="grid grid-cols-2 sm:grid-cols-3 lg:grid-cols-6 gap-3 items-end">
        <Field id="lx-ord-status" label="状态">
          <select id="lx-ord-status" className={input} value={draft.status} onChange={set('status')}>
            <option value="">全部</option>
            {Object.entries(ORDER_STATUS).map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="lx-ord-provider" label="支付方式">
          <select id="lx-ord-provider" className={input} value={draft.provider} onChange={set('provider')}>
            <option value="">全部</option>
            {Object.entries(PROVIDER).map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="lx-ord-query" label="订单号 / 手机号 / 用户 ID" className="col-span-2 sm:col-span-1 lg:col-span-2">
          <input id="lx-ord-query" className={input} maxLength={64} value={draft.query} onInput={set('query')} />
        </Field>
        <Field id="lx-ord-from" label="开始日期">
          <input id="lx-ord-from" type="date" className={input} value={draft.from} onInput={set('from')} />
        </Field>
        <Field id="lx-ord-to" label="结束日期">
          <input id="lx-ord-to" type="date" className={input} value={draft.to} onInput={set('to')} />
        </Field>
        <div className="col-span-2 sm:col-span-3 lg:col-span-6 flex flex-wrap gap-2 justify-end">
          <button
            type="button"
            className={button}
            onClick={() => {
              setDraft(EMPTY)
              setPage(1)
              setFilters(EMPTY)
            }}
          >
            重置
          </button>
          <button type="button" className={button} onClick={csv}>
            导出 CSV
          </button>
          <button type="submit" className={primary}>
            查询
          </button>
        </div>
      </form>
      <p className="mt-4 mb-2 text-sm text-muted" aria-live="polite">
        {answer ? `共 ${answer.total} 笔订单` : ''}
      </p>
      {!answer ? (
        <Spinner label="加载订单" />
      ) : (
        <>
          <Table
            label="订单列表"
            rows={answer.list}
            rowKey={(o) => o.orderId}
            empty="没有符合条件的订单"
            columns={[
              { label: '订单号', cell: (o) => <span className="font-mono text-xs break-all">{o.orderId}</span> },
              { label: '用户', nowrap: true, cell: (o) => <span className="font-mono">{o.payerPhone ?? o.accountId}</span> },
              { label: '套餐', cell: (o) => o.packageName },
              {
                label: '金额',
                num: true,
                cell: (o) => (
                  <>
                    {yuan(o.amountFen)}
                    {o.refundedFen > 0 && <span className="block text-xs text-danger">已退 {yuan(o.refundedFen)}</span>}
                  </>
                )
              },
              { label: '状态', cell: (o) => <Badge tone={tone(o.status)}>{ORDER_STATUS[o.status] ?? o.status}</Badge> },
              { label: '支付方式', cell: (o) => PROVIDER[o.provider] ?? o.provider },
              { label: '下单时间', nowrap: true, cell: (o) => when(o.createTime) },
              {
                label: '操作',
                cell: (o) =>
                  o.status === 'paid' ? (
                    <button type="button" className={small} onClick={() => setRefunding(o)} aria-label={`退款 ${o.orderId}`}>
                      退款
                    </button>
                  ) : (
                    '—'
                  )
              }
            ]}
          />
          <Pager label="订单" page={page} pages={Math.max(1, Math.ceil(answer.total / PAGE_SIZE))} onPage={setPage} />
        </>
      )}
      <RefundDialog
        order={refunding}
        onClose={() => setRefunding(null)}
        onDone={(o) => {
          setRefunding(null)
          toast(`已退款 ${yuan(o.refundedFen)}`, 'success')
          setVersion((v) => v + 1)
        }}
      />
    </>
  )
}

function RefundDialog({ order, onClose, onDone }: { order: PayOrder | null; onClose: () => void; onDone: (o: PayOrder) => void }) {
  const [amount, setAmount] = useState('')
  const [reason, setReason] = useState('')
  const { error, setError, busy, run } = useSubmit()
  const left = order ? order.amountFen - order.refundedFen : 0
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    if (!order) return
    setAmount((left / 100).toFixed(2))
    setReason('')
    setError(null)
  }, [order])

  function submit(event: On.Submit) {
    event.preventDefault()
    if (!order) return
    if (!/^\d+(\.\d{1,2})?$/.test(amount.trim())) return setError('退款金额必须是金额，最多两位小数')
    const fen = Math.round(Number(amount) * 100)
    if (fen < 1 || fen > left) return setError(`退款金额必须在 ¥0.01 到 ${yuan(left)} 之间`)
    if (!reason.trim()) return setError('请填写退款原因')
    run(async () => {
      onDone(await adminCall<PayOrder>('pay/refund', { orderId: order.orderId, amountFen: fen, reason: reason.trim() }))
    })
  }

  return (
    <Modal open={order !== null} title="订单退款" onClose={onClose}>
      {order && (
        <form onSubmit={submit} noValidate className="flex flex-col gap-4">
          <p className="text-sm">
            {order.packageName} · 实付 {yuan(order.amountFen)}
            {order.refundedFen > 0 ? ` · 已退 ${yuan(order.refundedFen)}` : ''} · {order.payerPhone ?? order.accountId}
          </p>
          <p className="text-sm text-muted">退款原路退回；按退款比例收回该订单发放的额度（用户已用掉的不再收回），并写入用户的余额记录。</p>
          <Field id="lx-refund-amount" label={`退款金额（元，最多 ${yuan(left)}）`}>
            <input
              id="lx-refund-amount"
              className={input}
              inputMode="decimal"
              value={amount}
              onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
              data-autofocus
            />
          </Field>
          <Field id="lx-refund-reason" label="退款原因（必填）">
            <input id="lx-refund-reason" className={input} maxLength={80} value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
          </Field>
          <FormError id="lx-refund-error" error={error} />
          <div className="flex justify-end gap-2">
            <button type="button" className={button} onClick={onClose}>
              取消
            </button>
            <button type="submit" className={primary} aria-disabled={busy}>
              确认退款
            </button>
          </div>
        </form>
      )}
    </Modal>
  )
}
