import { useStore } from '@nanostores/react'
import { $menu } from '../core/permissions'
import { $loginOpen, $user, type LoginDialogMode } from '../core/stores'
import type { LoginUser, MenuItem } from '../core/types'

/** The logged-in person (null when logged out); re-renders on login, logout and profile changes. */
export function useUser(): LoginUser | null {
  return useStore($user)
}

/** The menu the person's permissions allow (the default menu when logged out). */
export function useMenu(): MenuItem[] {
  return useStore($menu)
}

/** Which login dialog is open: false, 'login' or 'modify-phone'. */
export function useLoginOpen(): LoginDialogMode {
  return useStore($loginOpen)
}
