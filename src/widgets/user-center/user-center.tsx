import { useStore } from '@nanostores/react'
import { useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { refreshUser } from '../../core/auth'
import { emit } from '../../core/emit'
import { maskPhone } from '../../core/format'
import { $token, $user } from '../../core/stores'
import type { LoginUser } from '../../core/types'
import { EVENT_NAVIGATE } from '../../core/wire'
import type { ElementProps } from '../../ui/define'
import type * as On from '../../ui/events'
import { Icon, Spinner } from '../../ui/icons'
import { Canvas } from '../../ui/canvas'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { Avatar } from './avatar'
import { Card } from './card'
import { General } from './general'
import { Recharge } from './recharge'
import { Setting } from './setting'

export type UserCenterTab = 'general' | 'card' | 'recharge' | 'setting'

export const USER_CENTER_TABS: { id: UserCenterTab; label: string }[] = [
  { id: 'general', label: '账户总览' },
  { id: 'card', label: '卡密兑换' },
  { id: 'recharge', label: '在线充值' },
  { id: 'setting', label: '个人设置' }
]

const isTab = (t: unknown): t is UserCenterTab => USER_CENTER_TABS.some((x) => x.id === t)

export interface UserCenterProps extends ElementProps {
  /** general | card | recharge | setting (default general). */
  tab?: string
}

/**
 * @summary The personal center: 账户总览 (allowances, 已过期 when the account has expired, the
 * balance log), 卡密兑换 (redeem a recharge card, the recharge log), 在线充值 (buy a package with
 * WeChat Pay, Alipay or 演示支付, and my orders) and 个人设置 (nickname, avatar, change phone, log out). Logged out, a login prompt.
 * @event lingxi-navigate - (window) A tab was chosen: detail `{path: '/usercenter?id=<tab>'}` (the host page puts it in the address).
 * @event lingxi-confirm - (window) Asks before logging out.
 * @csspart base - The element's root, painted with --lingxi-bg over its whole height (padding, corners…).
 * @csspart tabs - The tab bar.
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function UserCenter({ tab }: UserCenterProps) {
  const token = useStore($token)
  const user = useStore($user)
  return (
    <Canvas>
      {token && user ? (
        <Center tab={isTab(tab) ? tab : 'general'} user={user} />
      ) : token ? (
        <Loader />
      ) : (
        <LoggedOut icon={<Icon name="user" className="size-7" />} title="个人中心" blurb="登录后查看额度、兑换卡密与修改资料。" />
      )}
      <InlineLogin />
    </Canvas>
  )
}

/** Logged in, the user not loaded yet (a page embedding only this element). */
function Loader() {
  useEffect(() => {
    refreshUser().catch(notifyError)
  }, [])
  return <Spinner label="加载账户" />
}

function Center({ tab, user }: { tab: UserCenterTab; user: LoginUser }) {
  const [current, setCurrent] = useState<UserCenterTab>(tab)
  const tabsRef = useRef<HTMLDivElement>(null)
  useEffect(() => setCurrent(tab), [tab])

  // Fresh balances whenever the center is opened.
  useEffect(() => {
    refreshUser().catch(notifyError)
  }, [])

  function choose(next: UserCenterTab, focus = false) {
    setCurrent(next)
    emit(EVENT_NAVIGATE, { path: `/usercenter?id=${next}` })
    if (focus) queueMicrotask(() => tabsRef.current?.querySelector<HTMLElement>(`#lx-uc-tab-${next}`)?.focus())
  }

  function onTabKey(event: On.Key) {
    const at = USER_CENTER_TABS.findIndex((t) => t.id === current)
    let next = -1
    if (event.key === 'ArrowRight') next = (at + 1) % USER_CENTER_TABS.length
    else if (event.key === 'ArrowLeft') next = (at - 1 + USER_CENTER_TABS.length) % USER_CENTER_TABS.length
    else if (event.key === 'Home') next = 0
    else if (event.key === 'End') next = USER_CENTER_TABS.length - 1
    if (next < 0) return
    event.preventDefault()
    choose(USER_CENTER_TABS[next]!.id, true)
  }

  return (
    <section aria-labelledby="lx-uc-title" className="@container max-w-4xl mx-auto">
      <h2 id="lx-uc-title" className="sr-only cq-md:not-sr-only cq-md:mb-4 text-2xl font-bold">
        个人中心
      </h2>
      <div className="flex items-center gap-4">
        <Avatar user={user} size="size-14" />
        <div className="min-w-0">
          <p data-testid="uc-nickname" className="text-xl font-bold truncate">
            {user.nickName || '灵犀用户'}
          </p>
          <p className="text-sm text-muted flex items-center gap-2">
            <span data-testid="uc-phone">{maskPhone(user.phone)}</span>
            <span className={`px-2 rounded-full text-xs ${user.state === 0 ? 'bg-danger/15 text-danger' : 'bg-ok/15 text-ok'}`}>
              {user.state === 0 ? '已过期' : '有效'}
            </span>
          </p>
        </div>
      </div>
      <div ref={tabsRef} role="tablist" part="tabs" aria-label="个人中心" onKeyDown={onTabKey} className="mt-5 flex border-b border-line overflow-x-auto">
        {USER_CENTER_TABS.map((t) => (
          <button
            key={t.id}
            id={`lx-uc-tab-${t.id}`}
            type="button"
            role="tab"
            aria-selected={t.id === current}
            aria-controls={`lx-uc-panel-${t.id}`}
            tabIndex={t.id === current ? 0 : -1}
            onClick={() => choose(t.id)}
            className={`px-4 h-11 shrink-0 border-b-2 -mb-px whitespace-nowrap ${t.id === current ? 'border-primary text-primary font-medium' : 'border-transparent text-muted hover:text-ink'}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`lx-uc-panel-${current}`} aria-labelledby={`lx-uc-tab-${current}`} className="pt-6">
        {current === 'general' && <General user={user} />}
        {current === 'card' && <Card />}
        {current === 'recharge' && <Recharge />}
        {current === 'setting' && <Setting user={user} />}
      </div>
    </section>
  )
}
