import { useCallback, useSyncExternalStore } from 'react'
import type { ReadableAtom } from 'nanostores'
import { $menu } from '../core/menu'
import { $loginOpen, $session, $user, type LoginDialogMode, type SessionInfo } from '../core/stores'
import type { LoginUser, MenuItem } from '../core/types'

const NO_MENU: MenuItem[] = []

/**
 * A store's value, re-rendering on change. While hydrating server-rendered HTML it first renders
 * `server` (what the server rendered: nobody logged in, no menu), then the browser's value: the
 * browser knows the session from its storage, which the server never sees, so rendering it at once
 * would not match the HTML (React error #418).
 */
function useClientStore<T>(store: ReadableAtom<T>, server: T): T {
  const subscribe = useCallback((onChange: () => void) => store.listen(onChange), [store])
  return useSyncExternalStore(
    subscribe,
    () => store.get(),
    () => server
  )
}

/** The logged-in person (null when logged out); re-renders on login, logout and profile changes. */
export function useUser(): LoginUser | null {
  return useClientStore($user, null)
}

/**
 * Who is logged in — `{accountId, phone, nickName, avatarUrl}`, the phone as the server shows it
 * to this page (138****5678 for a partner not in TRUSTED_ORIGINS) — or null. Also right after a
 * reload: a restored session shows at once and goes if the server no longer knows it.
 */
export function useSession(): SessionInfo | null {
  return useClientStore($session, null)
}

/** The menu the person's permissions allow (the default menu when logged out). */
export function useMenu(): MenuItem[] {
  return useClientStore($menu, NO_MENU)
}

/** Which login dialog is open: false, 'login' or 'modify-phone'. */
export function useLoginOpen(): LoginDialogMode {
  return useClientStore($loginOpen, false)
}
