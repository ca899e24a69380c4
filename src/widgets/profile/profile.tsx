import { useStore } from '@nanostores/react'
import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { maskPhone } from '../../core/format'
import { $user } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { Icon } from '../../ui/icons'
import { Avatar } from './avatar'
import { deferred } from './deferred'

// The panel (its dialog and theme control) loads when it first opens: a page shows only the header button.
const loadPanel = () => deferred(import('./panel'))
const ProfilePanel = lazy(loadPanel)
const loadThemePicker = () => deferred(import('./theme-picker'))
// The account menu loads when the button is first pointed at, focused or pressed.
const loadMenu = () => deferred(import('./account-menu'))
const AccountMenu = lazy(loadMenu)

/**
 * @summary The signed-in person: a header button (masked phone with a menu) and the profile panel
 * with usage, permitted tools, change phone and log out. Renders nothing while logged out.
 * @csspart trigger - The header button (a pill on --lingxi-bg, so the phone reads on any page).
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

  if (!user) return null

  return (
    <div ref={rootRef} className="relative">
      <button
        type="button"
        part="trigger"
        aria-haspopup="menu"
        aria-expanded={menuOpen}
        onPointerEnter={loadMenu}
        onFocus={loadMenu}
        onClick={() => setMenuOpen((v) => !v)}
        className="flex items-center gap-2 h-10 pl-1 pr-2 rounded-full bg-bg hover:bg-raised"
      >
        <Avatar user={user} size="size-8" />
        <span className="text-sm max-w-32 truncate" data-testid="header-phone">
          {/* a WeChat-only account has no phone yet: its nickname instead */}
          {user.phone ? maskPhone(user.phone) : user.nickName}
        </span>
        <Icon name="chevron" className={`size-4 text-muted transition-transform ${menuOpen ? 'rotate-180' : ''}`} />
      </button>
      {menuOpen && (
        <Suspense fallback={null}>
          <AccountMenu
            root={rootRef}
            onClose={() => setMenuOpen(false)}
            onPanel={() => {
              loadPanel()
              loadThemePicker()
              setPanelOpen(true)
            }}
          />
        </Suspense>
      )}
      {panelOpen && (
        <Suspense fallback={null}>
          <ProfilePanel open onClose={() => setPanelOpen(false)} user={user} />
        </Suspense>
      )}
    </div>
  )
}
