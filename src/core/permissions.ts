import { api } from './api'
import { $config } from './config'
import { readJson, writeJson } from './storage'
import { $permissionTree, $systemConfig, $token, $user } from './stores'
import type { PermissionNode, SystemConfig } from './types'
import { PREMISSION_MENUS_KEY } from './wire'

/** Codes of checked nodes under checked parents (what is stored under `premission menus`). */
export function grantedCodes(tree: PermissionNode[]): string[] {
  return tree.flatMap((n) => (n.checked === 1 ? [n.permissionCode, ...grantedCodes(n.childList ?? [])] : []))
}

/** Whether the user holds `code`: the codes of user info or the stored permission codes. */
export function hasPermission(code: string): boolean {
  const stored = readJson<unknown>(PREMISSION_MENUS_KEY)
  return ($user.get()?.permissionCodes ?? []).includes(code) || (Array.isArray(stored) && stored.includes(code))
}

/**
 * Fetches the AI_TOOLS tree (only with a token: without one the menu is the default) and stores
 * the granted codes under `premission menus`.
 */
export async function loadPermissions(): Promise<void> {
  if (!$token.get()) {
    $permissionTree.set(null)
    return
  }
  const { bodyList } = await api.userPermission()
  const tree = Array.isArray(bodyList) ? bodyList : []
  writeJson(PREMISSION_MENUS_KEY, grantedCodes(tree))
  $permissionTree.set(tree)
}

/**
 * Fetches system.json into `$systemConfig`. Its cookieDomain applies when none was configured and
 * the page is under it.
 */
export async function loadSystemConfig(): Promise<SystemConfig> {
  const config = await api.config.system()
  const domain = config.cookieDomain?.replace(/^\./, '')
  const host = typeof location === 'undefined' ? '' : location.hostname
  // A cookie domain the page is not under would be refused by the browser: keep the host's own.
  if (domain && !$config.get().cookieDomain && (host === domain || host.endsWith(`.${domain}`))) {
    $config.setKey('cookieDomain', config.cookieDomain!)
  }
  $systemConfig.set(config)
  return config
}
