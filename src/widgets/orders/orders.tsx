import { useStore } from '@nanostores/react'
import { lazy, Suspense, useRef, useState, type ReactNode } from 'react'
import { $token } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import type * as On from '../../ui/events'
import { Icon, Spinner } from '../../ui/icons'
import { Canvas } from '../../ui/canvas'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { ActivityList } from './activity-list'
import { MyOrders } from './my-orders'

const Detail = lazy(() => import('./detail').then((m) => ({ default: m.Detail })))

export interface OrdersProps extends ElementProps {
  /** The quality platform (优质接单平台): quality activities only. */
  quality?: boolean
  /** 'list' (default: 任务大厅), 'mine' (我的订单) or 'detail' (one session: needs activityId and sessionId). */
  view?: string
  activityId?: string
  sessionId?: string
  /** Where the platform lives on this site; detail pages are `{basePath}/ordersDetail/{activityId}/{sessionId}`. */
  basePath?: string
}

/**
 * @summary Order platforms (接单平台 / 优质接单平台): paid content tasks published by the operator.
 * Browse activities (filters: platform, status, keyword) with their reward, places left and time
 * window; open a session, take an order, write the content (AI 起草 streams a draft from the
 * brief), post it, submit the link with 1–6 screenshots; once the operator approves, 领取红包
 * opens a WeChat red packet with the reward.
 * @attr quality - The quality platform: quality activities only (needs AI_TOOLS_ORDER_PLATFORM_QUALITY).
 * @attr view - 'list' (default), 'mine' or 'detail'.
 * @attr activity-id - detail: the activity.
 * @attr session-id - detail: the session (场次).
 * @attr base-path - Where the platform lives on this site (default /orders, /miracleOrders with quality).
 * @csspart base - The element's root, painted with --lingxi-bg over its whole height (padding, corners…).
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function Orders({ quality, view, activityId, sessionId, basePath }: OrdersProps) {
  const token = useStore($token)
  const q = Boolean(quality)
  const base = (basePath || (q ? '/miracleOrders' : '/orders')).replace(/\/+$/, '')
  let body: ReactNode
  if (!token) {
    body = <LoggedOut icon={<Icon name={q ? 'quality' : 'orders'} className="size-7" />} title="登录后接单" blurb="承接内容任务，审核通过即得微信红包。" />
  } else if (view === 'detail' && activityId && sessionId) {
    body = (
      <Suspense fallback={<Spinner label="任务加载中" />}>
        <Detail key={`${activityId}/${sessionId}`} quality={q} base={base} activityId={activityId} sessionId={sessionId} />
      </Suspense>
    )
  } else {
    body = <Platform key={String(q)} quality={q} base={base} initial={view === 'mine' ? 'mine' : 'list'} />
  }
  return (
    <Canvas>
      {body}
      <InlineLogin />
    </Canvas>
  )
}

type Tab = 'list' | 'mine'
const TABS: [Tab, string][] = [
  ['list', '任务大厅'],
  ['mine', '我的订单']
]

function Platform({ quality, base, initial }: { quality: boolean; base: string; initial: Tab }) {
  const [tab, setTab] = useState<Tab>(initial)
  const tabs = useRef<HTMLDivElement>(null)
  const id = quality ? 'lx-mo' : 'lx-o'

  function handleKey(event: On.Key) {
    if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) return
    event.preventDefault()
    const next: Tab = event.key === 'Home' ? 'list' : event.key === 'End' ? 'mine' : tab === 'list' ? 'mine' : 'list'
    setTab(next)
    tabs.current?.querySelector<HTMLButtonElement>(`#${id}-tab-${next}`)?.focus()
  }

  return (
    <section aria-labelledby={`${id}-title`} className="@container max-w-5xl mx-auto">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id={`${id}-title`} className="text-xl font-bold mr-auto inline-flex items-center gap-2">
          {quality ? '优质接单平台' : '接单平台'}
          {quality && <span className="px-1.5 py-0.5 rounded-md bg-primary text-primary-ink text-xs font-semibold">优质</span>}
        </h2>
        <div ref={tabs} role="tablist" aria-label="接单平台" onKeyDown={handleKey} className="flex rounded-lg border border-line p-0.5 bg-surface">
          {TABS.map(([key, label]) => (
            <button
              key={key}
              id={`${id}-tab-${key}`}
              type="button"
              role="tab"
              aria-selected={tab === key}
              aria-controls={`${id}-panel`}
              tabIndex={tab === key ? 0 : -1}
              onClick={() => setTab(key)}
              className={`h-8 px-4 rounded-md text-sm ${tab === key ? 'bg-primary text-primary-ink font-semibold' : 'text-muted hover:text-ink'}`}
            >
              {label}
            </button>
          ))}
        </div>
      </div>
      <div id={`${id}-panel`} role="tabpanel" aria-labelledby={`${id}-tab-${tab}`} className="mt-4">
        {tab === 'list' ? <ActivityList quality={quality} base={base} /> : <MyOrders quality={quality} base={base} />}
      </div>
    </section>
  )
}
