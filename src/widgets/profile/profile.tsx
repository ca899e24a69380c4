import { useStore } from '@nanostores/react'
import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { logout } from '../../core/auth'
import { confirm } from '../../core/emit'
import { copyText, formatCount, maskPhone } from '../../core/format'
import { $menu } from '../../core/permissions'
import { $loginOpen, $user } from '../../core/stores'
import type { LoginUser, MenuItem } from '../../core/types'
import { siteHref } from '../../ui/boot'
import type { ElementProps } from '../../ui/define'
import type * as On from '../../ui/events'
import { Icon } from '../../ui/icons'
import { SM, useMedia } from '../../ui/use-media'

// The panel's dialog loads when the panel first opens: a page shows only the header button.
const Dialog = lazy(() => import('../../ui/dialog').then((m) => ({ default: m.Dialog })))
// So does its theme control (only the host page has one), fetched beside the dialog.
const loadThemePicker = () => import('./theme-picker')
const ThemePicker = lazy(() => loadThemePicker().then((m) => ({ default: m.ThemePicker })))

/**
 * @summary The signed-in person: a header button (masked phone with a menu) and the profile panel
 * with usage, permitted tools, change phone and log out. Renders nothing while logged out.
 * @csspart trigger - The header button.
 * @csspart panel - The profile panel.
 */
export function Profile(_: ElementProps) {
  const user = useStore($user)
  const [menuOpen, setMenuOpen] = useState(false)
  const [panelOpen, setPanelOpen] = useState(false)
  const rootRef = useRef<HTMLDivElement>(null)

  useEffect(() => {
    if (!menuOpen) return
    const close = (event: Event) => {
      if (rootRef.current && !event.composedPath().includes(rootRef.current)) setMenuOpen(false)
    }
    document.addEventListener('pointerdown', close)
    return () => document.removeEventListener('pointerdown', close)
  }, [menuOpen])

  useEffect(() => {
    if (!user) setPanelOpen(false)
  }, [user])

  // A menu opened from the keyboard or the mouse starts on its first item (WAI-ARIA menu button).
  useEffect(() => {
    if (menuOpen) rootRef.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus()
  }, [menuOpen])

  if (!user) return null

  function handleMenuKey(event: On.Key) {
    if (!menuOpen) return
    const items = [...(rootRef.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])]
    const at = items.indexOf((rootRef.current?.getRootNode() as Document | ShadowRoot | undefined)?.activeElement as HTMLElement)
    if (event.key === 'Escape' || event.key === 'Tab') {
      setMenuOpen(false)
      if (event.key === 'Escape') rootRef.current?.querySelector<HTMLElement>('[part=trigger]')?.focus()
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      const next = (at + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length
      items[next]?.focus()
    }
  }

  function pick(action: () => void) {
    setMenuOpen(false)
    action()
  }

  return (
    <div ref={rootRef} className="relative">
      <button
        type="button"
        part="trigger"
        aria-haspopup="menu"
        aria-expanded={menuOpen}
        onClick={() => setMenuOpen((v) => !v)}
        className="flex items-center gap-2 h-10 pl-1 pr-2 rounded-full hover:bg-raised"
      >
        <Avatar user={user} size="size-8" />
        <span className="text-sm max-w-32 truncate" data-testid="header-phone">
          {/* a WeChat-only account has no phone yet: its nickname instead */}
          {user.phone ? maskPhone(user.phone) : user.nickName}
        </span>
        <Icon name="chevron" className={`size-4 text-muted transition-transform ${menuOpen ? 'rotate-180' : ''}`} />
      </button>
      {menuOpen && (
        <div
          role="menu"
          aria-label="账号菜单"
          onKeyDown={handleMenuKey}
          className="absolute right-0 top-12 z-20 w-44 py-1 rounded-xl border border-line bg-surface shadow-2xl lx-fade-in"
        >
          <MenuButton
            icon="user"
            label="个人信息"
            onClick={() =>
              pick(() => {
                loadThemePicker()
                setPanelOpen(true)
              })
            }
          />
          <MenuLink icon="center" label="个人中心" href={siteHref('/usercenter?id=general')} onClick={() => setMenuOpen(false)} />
          <MenuButton icon="phone" label="修改手机号" onClick={() => pick(() => $loginOpen.set('modify-phone'))} />
          <MenuButton icon="logout" label="退出登录" onClick={() => pick(handleLogout)} />
        </div>
      )}
      {panelOpen && (
        <Suspense fallback={null}>
          <ProfilePanel open onClose={() => setPanelOpen(false)} user={user} />
        </Suspense>
      )}
    </div>
  )
}

async function handleLogout() {
  if (await confirm({ title: '退出登录', message: '确定要退出当前账号吗？', confirmText: '退出' })) await logout()
}

function ProfilePanel({ open, onClose, user }: { open: boolean; onClose: () => void; user: LoginUser }) {
  const wide = useMedia(SM)
  const menu = useStore($menu)
  const expired = user.state === 0
  const tools = flatten(menu).filter((m) => !m.hidden)
  const usage = [
    { label: '对话额度', value: user.tokens, unit: 'tokens' },
    { label: '绘画次数', value: user.mjCount, unit: '次' },
    { label: '音乐次数', value: user.sunoCount, unit: '次' }
  ]
  return (
    <Dialog open={open} onClose={onClose} title="个人信息" placement={wide ? 'center' : 'right'} width={wide ? 420 : 300} part="panel">
      <div className="flex items-center gap-4">
        <Avatar user={user} size="size-14" />
        <div className="min-w-0">
          <p className="text-base font-semibold truncate">{user.nickName}</p>
          {user.phone ? (
            <button
              type="button"
              onClick={() => copyText(user.phone)}
              title="点击复制手机号"
              className="mt-1 flex items-center gap-1 text-sm text-muted hover:text-primary"
            >
              <span data-testid="profile-phone">{maskPhone(user.phone)}</span>
              <Icon name="copy" className="size-3.5" />
            </button>
          ) : (
            <p className="mt-1 text-sm text-muted" data-testid="profile-phone">
              未绑定手机号
            </p>
          )}
        </div>
      </div>
      <ul className="mt-5 grid grid-cols-3 gap-2" aria-label="剩余额度">
        {usage.map((u) => (
          <li key={u.label} className="rounded-card bg-raised px-2 py-3 text-center">
            <p className={`text-base sm:text-lg font-semibold ${expired ? 'text-danger' : 'text-primary'}`} data-testid="usage-value">
              {expired ? '已过期' : formatCount(u.value)}
            </p>
            <p className="mt-0.5 text-xs text-muted">{u.label}</p>
          </li>
        ))}
      </ul>
      {tools.length > 0 && (
        <nav aria-label="我的工具" className="mt-5">
          <p className="mb-2 text-xs text-muted">我的工具</p>
          <ul className="grid grid-cols-2 gap-2">
            {tools.map((t) => (
              <li key={t.permissionCode}>
                <a
                  href={siteHref(t.path)}
                  onClick={onClose}
                  className="flex items-center gap-2 h-10 px-3 rounded-lg border border-line hover:border-primary hover:text-primary"
                >
                  <Icon name={t.icon} className="size-4" />
                  <span className="truncate text-sm">{t.permissionName}</span>
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <Suspense fallback={null}>
        <ThemePicker />
      </Suspense>
      <div className="mt-5 flex flex-col gap-2">
        <a href={siteHref('/usercenter?id=general')} onClick={onClose} className="flex items-center gap-2 h-10 px-3 rounded-lg hover:bg-raised">
          <Icon name="center" className="size-4 text-muted" /> 个人中心
        </a>
        <button
          type="button"
          onClick={() => {
            onClose()
            $loginOpen.set('modify-phone')
          }}
          className="flex items-center gap-2 h-10 px-3 rounded-lg hover:bg-raised text-left"
        >
          <Icon name="phone" className="size-4 text-muted" /> 修改手机号
        </button>
        <button
          type="button"
          onClick={() => {
            onClose()
            handleLogout()
          }}
          className="flex items-center gap-2 h-10 px-3 rounded-lg hover:bg-raised text-left text-danger"
        >
          <Icon name="logout" className="size-4" /> 退出登录
        </button>
      </div>
    </Dialog>
  )
}

function flatten(items: MenuItem[]): MenuItem[] {
  return items.flatMap((m) => [m, ...flatten(m.children ?? [])])
}

function Avatar({ user, size }: { user: LoginUser; size: string }) {
  if (user.avatarUrl) return <img src={user.avatarUrl} alt="" className={`${size} rounded-full object-cover`} />
  const initial = (user.nickName || '灵').slice(0, 1)
  return (
    <span aria-hidden="true" className={`${size} shrink-0 rounded-full grid place-items-center bg-primary text-primary-ink font-bold`}>
      {initial}
    </span>
  )
}

function MenuButton({ icon, label, onClick }: { icon: string; label: string; onClick: () => void }) {
  return (
    <button
      type="button"
      role="menuitem"
      onClick={onClick}
      className="w-full flex items-center gap-2 px-3 h-10 text-left text-sm hover:bg-raised focus:bg-raised outline-none"
    >
      <Icon name={icon} className="size-4 text-muted" />
      {label}
    </button>
  )
}

function MenuLink({ icon, label, href, onClick }: { icon: string; label: string; href: string; onClick: () => void }) {
  return (
    <a role="menuitem" href={href} onClick={onClick} className="w-full flex items-center gap-2 px-3 h-10 text-sm hover:bg-raised focus:bg-raised outline-none">
      <Icon name={icon} className="size-4 text-muted" />
      {label}
    </a>
  )
}
