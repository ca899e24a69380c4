import { useStore } from '@nanostores/react'
import { lazy, Suspense } from 'react'
import { copyText, formatCount, maskPhone } from '../../core/format'
import { $menu } from '../../core/menu'
import { $loginOpen } from '../../core/stores'
import type { LoginUser, MenuItem } from '../../core/types'
import { siteHref } from '../../ui/boot'
import { Dialog } from '../../ui/dialog'
import { Icon } from '../../ui/icons'
import { SM, useMedia } from '../../ui/use-media'
import { Avatar } from './avatar'
import { handleLogout } from './logout'

// The profile panel loads when it first opens (the header shows only the button and its menu).
// Its theme control (only the host page has one) comes beside it: the menu starts fetching it.
const ThemePicker = lazy(() => import('./theme-picker').then((m) => ({ default: m.ThemePicker })))

/** Usage, permitted tools, the theme, change phone and log out. */
export default function ProfilePanel({ open, onClose, user }: { open: boolean; onClose: () => void; user: LoginUser }) {
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
