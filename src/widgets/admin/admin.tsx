import { useStore } from '@nanostores/react'
import { useEffect, useRef, useState } from 'react'
import { emit } from '../../core/emit'
import { $token } from '../../core/stores'
import { EVENT_NAVIGATE } from '../../core/wire'
import type { ElementProps } from '../../ui/define'
import type * as On from '../../ui/events'
import { Icon } from '../../ui/icons'
import { Canvas } from '../../ui/canvas'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { AnnouncementsTab } from './announcements'
import { AuditTab } from './audit'
import { CardsTab } from './cards'
import { ChannelsTab } from './channels'
import { ContentTab } from './content'
import { ModerationLogTab } from './modlog'
import { OrdersTab } from './orders'
import { PackagesTab } from './packages'
import { PartnersTab } from './partners'
import { PricesTab } from './prices'
import { ReportsTab } from './reports'
import { StatsTab } from './stats'
import { UsersTab } from './users'
import { WordsTab } from './words'

export type AdminTab =
  | 'users'
  | 'partners'
  | 'cards'
  | 'packages'
  | 'orders'
  | 'content'
  | 'reports'
  | 'moderation'
  | 'words'
  | 'announcements'
  | 'stats'
  | 'channels'
  | 'prices'
  | 'audit'

export const ADMIN_TABS: { id: AdminTab; label: string }[] = [
  { id: 'users', label: '用户' },
  { id: 'partners', label: '合作方' },
  { id: 'cards', label: '充值卡' },
  { id: 'packages', label: '套餐' },
  { id: 'orders', label: '订单' },
  { id: 'content', label: '内容' },
  { id: 'reports', label: '举报' },
  { id: 'moderation', label: '审核日志' },
  { id: 'words', label: '敏感词库' },
  { id: 'announcements', label: '公告' },
  { id: 'stats', label: '统计' },
  { id: 'channels', label: '渠道' },
  { id: 'prices', label: '模型倍率' },
  { id: 'audit', label: '审计日志' }
]

const isTab = (t: unknown): t is AdminTab => ADMIN_TABS.some((x) => x.id === t)

export interface AdminProps extends ElementProps {
  /** users (default) | cards | packages | orders | content | reports | moderation | words | announcements | stats | channels | prices | audit. */
  tab?: string
}

/**
 * @summary The operator console (needs the ADMIN permission): 用户 (search, allowances and logs,
 * adjust with a reason, disable/enable, permissions), 充值卡 (batches, CSV, void), 套餐 (recharge
 * packages, on/off sale), 订单 (filters, CSV, refunds), 内容 (take down / restore), 举报 (the reports
 * queue), 审核日志 (the moderation log, CSV), 敏感词库 (the word list), 公告 (announcements), 统计 (daily charts, CSV), 渠道 (upstream channels,
 * their health), 模型倍率 (per-model price ratios) and 审计日志. Logged out, a login prompt.
 * @event lingxi-navigate - (window) A tab was chosen: detail `{path: '/admin?tab=<tab>'}`.
 * @event lingxi-confirm - (window) Asks before voiding cards.
 * @csspart base - The element's root, painted with --lingxi-bg over its whole height (padding, corners…).
 * @csspart tabs - The tab bar.
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function Admin({ tab }: AdminProps) {
  const token = useStore($token)
  return (
    <Canvas>
      {token ? (
        <Console tab={isTab(tab) ? tab : 'users'} />
      ) : (
        <LoggedOut icon={<Icon name="user" className="size-7" />} title="运营后台" blurb="运营人员登录后管理用户、充值卡、套餐与订单。" />
      )}
      <InlineLogin />
    </Canvas>
  )
}

function Console({ tab }: { tab: AdminTab }) {
  const [current, setCurrent] = useState<AdminTab>(tab)
  const tabsRef = useRef<HTMLDivElement>(null)
  useEffect(() => setCurrent(tab), [tab])

  function choose(next: AdminTab, focus = false) {
    setCurrent(next)
    emit(EVENT_NAVIGATE, { path: `/admin?tab=${next}` })
    if (focus) queueMicrotask(() => tabsRef.current?.querySelector<HTMLElement>(`#lx-admin-tab-${next}`)?.focus())
  }

  function onTabKey(event: On.Key) {
    const at = ADMIN_TABS.findIndex((t) => t.id === current)
    const n = ADMIN_TABS.length
    const next = { ArrowRight: (at + 1) % n, ArrowLeft: (at - 1 + n) % n, Home: 0, End: n - 1 }[event.key]
    if (next === undefined) return
    event.preventDefault()
    choose(ADMIN_TABS[next]!.id, true)
  }

  return (
    <section aria-labelledby="lx-admin-title" className="max-w-6xl mx-auto">
      <h2 id="lx-admin-title" className="sr-only sm:not-sr-only sm:mb-2 text-2xl font-bold">
        运营后台
      </h2>
      <div ref={tabsRef} role="tablist" part="tabs" aria-label="运营后台" onKeyDown={onTabKey} className="flex border-b border-line overflow-x-auto">
        {ADMIN_TABS.map((t) => (
          <button
            key={t.id}
            id={`lx-admin-tab-${t.id}`}
            type="button"
            role="tab"
            aria-selected={t.id === current}
            aria-controls={`lx-admin-panel-${t.id}`}
            tabIndex={t.id === current ? 0 : -1}
            onClick={() => choose(t.id)}
            className={`px-4 h-11 shrink-0 border-b-2 -mb-px whitespace-nowrap ${t.id === current ? 'border-primary text-primary font-medium' : 'border-transparent text-muted hover:text-ink'}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`lx-admin-panel-${current}`} aria-labelledby={`lx-admin-tab-${current}`} className="pt-4">
        {current === 'users' && <UsersTab />}
        {current === 'partners' && <PartnersTab />}
        {current === 'cards' && <CardsTab />}
        {current === 'packages' && <PackagesTab />}
        {current === 'orders' && <OrdersTab />}
        {current === 'content' && <ContentTab />}
        {current === 'reports' && <ReportsTab />}
        {current === 'moderation' && <ModerationLogTab />}
        {current === 'words' && <WordsTab />}
        {current === 'announcements' && <AnnouncementsTab />}
        {current === 'stats' && <StatsTab />}
        {current === 'channels' && <ChannelsTab />}
        {current === 'prices' && <PricesTab />}
        {current === 'audit' && <AuditTab />}
      </div>
    </section>
  )
}
