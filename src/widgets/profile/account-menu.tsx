import { type ReactNode, type RefObject, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { $loginOpen } from '../../core/stores'
import { siteHref } from '../../ui/boot'
import type * as On from '../../ui/events'
import { Icon } from '../../ui/icons'
import { handleLogout } from './logout'

interface AccountMenuProps {
  /** The profile's root: the trigger and the menu are inside it. */
  root: RefObject<HTMLDivElement | null>
  onClose: () => void
  /** 个人信息: opens the profile panel. */
  onPanel: () => void
}

/** The open account menu (WAI-ARIA menu button): it starts on its first item; arrows move, Escape and Tab close. */
export default function AccountMenu({ root, onClose, onPanel }: AccountMenuProps) {
  useEffect(() => {
    root.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus()
  }, [root])

  function handleMenuKey(event: On.Key) {
    const items = [...(root.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])]
    const at = items.indexOf((root.current?.getRootNode() as Document | ShadowRoot | undefined)?.activeElement as HTMLElement)
    if (event.key === 'Escape' || event.key === 'Tab') {
      onClose()
      if (event.key === 'Escape') root.current?.querySelector<HTMLElement>('[part=trigger]')?.focus()
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      const next = (at + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length
      items[next]?.focus()
    }
  }

  function pick(action: () => void) {
    onClose()
    action()
  }

  return (
    <MenuLayer onClose={onClose}>
      <div
        role="menu"
        aria-label="账号菜单"
        onKeyDown={handleMenuKey}
        className="absolute right-0 top-12 z-20 w-44 py-1 rounded-xl border border-line bg-surface shadow-2xl lx-fade-in"
      >
        <MenuButton icon="user" label="个人信息" onClick={() => pick(onPanel)} />
        <MenuLink icon="center" label="个人中心" href={siteHref('/usercenter?id=general')} onClick={onClose} />
        <MenuButton icon="phone" label="修改手机号" onClick={() => pick(() => $loginOpen.set('modify-phone'))} />
        <MenuButton icon="logout" label="退出登录" onClick={() => pick(handleLogout)} />
      </div>
    </MenuLayer>
  )
}

type Popoverish = HTMLElement & { showPopover?: () => void }

/**
 * The open menu's layer: the whole window, transparent, in the top layer (a popover), so what the
 * menu lies over is not half covered and half clickable beneath it — a press beside the menu only
 * closes it. The menu keeps its place below the trigger. Without popover: as before, in the header.
 */
function MenuLayer({ onClose, children }: { onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null)
  const [at, setAt] = useState<{ top: number; right: number } | null>(null)
  useLayoutEffect(() => {
    const layer = ref.current as Popoverish | null
    const anchor = layer?.parentElement
    if (!layer || !anchor || typeof layer.showPopover !== 'function') return
    try {
      layer.showPopover()
    } catch {
      return
    }
    const box = anchor.getBoundingClientRect()
    setAt({ top: box.top, right: document.documentElement.clientWidth - box.right })
  }, [])
  return (
    <div
      ref={ref}
      popover="manual"
      onPointerDown={(e) => e.target === e.currentTarget && onClose()}
      className={at ? 'fixed inset-0 m-0 p-0 border-0 size-full max-w-none max-h-none bg-transparent overflow-hidden' : 'contents'}
    >
      {at ? (
        <div className="absolute" style={{ top: at.top, right: at.right }}>
          {children}
        </div>
      ) : (
        children
      )}
    </div>
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
