import { useEffect, useRef } from 'react'
import type { MenuItem } from '../core/types'
import { Icon } from '../ui/icons'
import type { HeaderCommands } from '../widgets/manifest'

/** A tool's controls in the phone header (the chat's, hot news'): its element listens for `event`. */
export function HeaderButtons({ label, event, commands }: HeaderCommands) {
  return (
    <fieldset className="min-w-0 flex items-center" aria-label={label}>
      {commands.map(([command, name, d]) => (
        <button
          key={command}
          type="button"
          aria-label={name}
          title={name}
          onClick={() => dispatchEvent(new CustomEvent(event, { detail: { command } }))}
          className="size-9 grid place-items-center rounded-lg text-muted hover:text-ink hover:bg-raised"
        >
          <svg
            viewBox="0 0 24 24"
            className="size-5"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
            strokeLinejoin="round"
            aria-hidden="true"
          >
            <path d={d} />
          </svg>
        </button>
      ))}
    </fieldset>
  )
}

function visible(menu: MenuItem[]) {
  return menu.filter((m) => !m.hidden)
}

export function Sidebar({ menu, active, pathname }: { menu: MenuItem[]; active: string | null; pathname: string }) {
  return (
    <nav aria-label="工具菜单" className="w-52 shrink-0 border-r border-line px-3 py-4 sticky top-16 h-[calc(100dvh-64px)] overflow-y-auto flex flex-col gap-1">
      {visible(menu).map((item) => (
        <a
          key={item.permissionCode}
          href={item.path}
          aria-current={active === item.permissionCode ? 'page' : undefined}
          className={`flex items-center gap-3 h-11 px-3 rounded-lg transition-colors ${
            active === item.permissionCode ? 'bg-primary/15 text-primary font-medium' : 'text-muted hover:text-ink hover:bg-raised'
          }`}
        >
          <Icon name={item.icon} />
          <span>{item.permissionName}</span>
        </a>
      ))}
      <a
        href="/usercenter?id=general"
        aria-current={pathname === '/usercenter' ? 'page' : undefined}
        className={`mt-auto flex items-center gap-3 h-11 px-3 rounded-lg ${
          pathname === '/usercenter' ? 'bg-primary/15 text-primary font-medium' : 'text-muted hover:text-ink hover:bg-raised'
        }`}
      >
        <Icon name="center" />
        <span>个人中心</span>
      </a>
    </nav>
  )
}

export function BottomBar({ menu, active, pathname }: { menu: MenuItem[]; active: string | null; pathname: string }) {
  const item = (key: string, href: string, icon: string, label: string, on: boolean) => (
    <a
      key={key}
      href={href}
      aria-current={on ? 'page' : undefined}
      className={`flex-[1_0_auto] min-w-14 px-1.5 flex flex-col items-center justify-center gap-0.5 text-[11px] ${on ? 'text-primary' : 'text-muted'}`}
    >
      <Icon name={icon} className="size-5" />
      <span className="whitespace-nowrap">{label}</span>
    </a>
  )
  // Each item is at least as wide as its label (优质接单平台 was clipped at a fixed width). The tools scroll sideways when there are many; 我的 (the personal center) stays in reach, and
  // the current tool is scrolled into view (图床, seventh of seven, would otherwise sit off-screen).
  const strip = useRef<HTMLDivElement>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: active, menu: what the strip shows; the effect reads their result in the DOM
  useEffect(() => {
    const current = strip.current?.querySelector<HTMLElement>('[aria-current="page"]')
    if (!current || !strip.current) return
    const box = strip.current
    const left = current.offsetLeft - box.offsetLeft
    if (left < box.scrollLeft || left + current.offsetWidth > box.scrollLeft + box.clientWidth) {
      box.scrollLeft = left - (box.clientWidth - current.offsetWidth) / 2
    }
  }, [active, menu])
  return (
    <nav
      aria-label="工具菜单"
      data-testid="bottom-bar"
      className="sticky bottom-0 z-30 h-[50px] pb-[env(safe-area-inset-bottom)] box-content border-t border-line bg-bg/95 backdrop-blur flex"
    >
      <div ref={strip} className="flex-1 min-w-0 flex overflow-x-auto [scrollbar-width:none]">
        {visible(menu).map((m) => item(m.permissionCode, m.path, m.icon, m.permissionName, active === m.permissionCode))}
      </div>
      <div className="flex w-16 shrink-0 border-l border-line">{item('center', '/usercenter?id=general', 'user', '我的', pathname === '/usercenter')}</div>
    </nav>
  )
}

export function Footer() {
  return (
    <footer className="px-8 py-5 border-t border-line text-xs text-muted flex flex-wrap gap-x-4 gap-y-1">
      <span>© {new Date().getFullYear()} 灵犀 AI 工具箱</span>
      <a href="/license.html" target="_blank" rel="noopener" className="hover:text-ink">
        服务条款
      </a>
      <span>AI 生成内容仅供参考</span>
    </footer>
  )
}
