import { computed } from 'nanostores'
import { shared } from './shared'
import { $permissionTree, $systemConfig, $token } from './stores'
import type { MenuItem, PermissionNode, SystemConfig } from './types'

// The menu of the host page (and lingxi/core's $menu): apart from permissions.ts, which every
// element needs (hasPermission, loading the tree), so an embedded element does not carry it.

/**
 * What the tools' manifests say about the menu entries of their permission codes (the `menu` and
 * `highlights` of their routes), derived from src/widgets/tools.ts by `menuRules` and compiled in
 * as `__LINGXI_MENU__` by every build (rollup, tsup, vitest: scripts/tools.mjs), so the host's
 * menu knows them without importing any tool. A tuple: only values reach the bundles.
 */
export type MenuRules = [
  /** Codes whose entry is routable but never listed: AI_TOOLS_SD. */
  hidden: string[],
  /** Codes never on a logged-out visitor's menu: the hidden ones, and those listed only from the permission tree (the order platforms). */
  signedIn: string[],
  /** Paths that highlight the entry of another code than their own: [path, code]. */
  highlights: [path: string, code: string][]
]

declare const __LINGXI_MENU__: MenuRules

/** The rules of the tools this bundle was built with. */
const [hidden, signedIn, highlights] = __LINGXI_MENU__

/** Always reachable, whatever the permissions. */
export const USER_CENTER_PATH = '/usercenter'
const FALLBACK_PATH = '/usercenter?id=general'

function item(code: string, config: SystemConfig): MenuItem | null {
  const meta = config.permissionCodes[code]
  if (!meta) return null
  const entry: MenuItem = { permissionName: meta.permissionName, permissionCode: code, path: meta.path, icon: meta.icon }
  if (hidden.includes(code)) entry.hidden = true
  return entry
}

/**
 * The menu from the server's permission tree: checked nodes whose code the config knows, in tree
 * order. An unchecked or unknown node hides its whole subtree. Hidden codes (AI_TOOLS_SD) are kept
 * but hidden.
 */
export function buildMenu(tree: PermissionNode[], config: SystemConfig): MenuItem[] {
  const menu: MenuItem[] = []
  for (const node of tree) {
    const entry = node.checked === 1 ? item(node.permissionCode, config) : null
    if (!entry) continue
    const children = buildMenu(node.childList ?? [], config)
    if (children.length) entry.children = children
    menu.push(entry)
  }
  return menu
}

/** The menu without a token: every configured tool except the hidden and the signed-in-only ones (SD, the two order platforms). */
export function defaultMenu(config: SystemConfig): MenuItem[] {
  return Object.keys(config.permissionCodes)
    .filter((code) => !signedIn.includes(code))
    .map((code) => item(code, config)!)
}

/** The path of the first visible leaf (an entry without visible children): the landing page. */
export function firstLeafPath(menu: MenuItem[]): string | null {
  for (const entry of menu) {
    if (entry.hidden) continue
    const visible = entry.children?.filter((c) => !c.hidden) ?? []
    const path = visible.length ? firstLeafPath(visible) : entry.path
    if (path) return path
  }
  return null
}

function flatten(menu: MenuItem[]): MenuItem[] {
  return menu.flatMap((entry) => [entry, ...flatten(entry.children ?? [])])
}

/** Every path the menu opens (hidden entries too), the config's extra routes for those codes, and /usercenter. */
export function allowedPaths(menu: MenuItem[], config: SystemConfig | null): string[] {
  const entries = flatten(menu)
  const codes = new Set(entries.map((e) => e.permissionCode))
  const paths = entries.map((e) => e.path)
  for (const [path, code] of Object.entries(config?.pathMap?.production ?? {})) if (codes.has(code)) paths.push(path)
  paths.push(USER_CENTER_PATH)
  return [...new Set(paths)]
}

function normalize(pathname: string): string {
  const path = pathname.split(/[?#]/)[0] ?? ''
  return path.length > 1 ? path.replace(/\/+$/, '') : path
}

function under(pathname: string, base: string): boolean {
  return pathname === base || pathname.startsWith(base.endsWith('/') ? base : `${base}/`)
}

/** Exact match or a sub-path on a segment boundary: /orders allows /orders/ordersDetail/1/2, not /ordersX. */
export function isPathAllowed(pathname: string, allowed: string[]): boolean {
  const path = normalize(pathname)
  return allowed.some((base) => under(path, normalize(base)))
}

/** Where a logged-in user on `pathname` must go instead: null when allowed, else the landing page. */
export function guardRedirect(pathname: string, menu: MenuItem[], config: SystemConfig | null): string | null {
  if (isPathAllowed(pathname, allowedPaths(menu, config))) return null
  return firstLeafPath(menu) ?? FALLBACK_PATH
}

/**
 * The top-level menu code to highlight on `pathname` (a route's `highlights`: /sd and /mjHelper
 * highlight painting; detail routes highlight their platform), or null.
 */
export function activeMenuCode(pathname: string, menu: MenuItem[], config: SystemConfig | null): string | null {
  const path = normalize(pathname)
  for (const [base, code] of highlights) if (under(path, base)) return code
  const routes: [base: string, code: string][] = Object.entries(config?.pathMap?.production ?? {})
  let active: string | null = null
  let longest = -1
  for (const top of menu) {
    const entries = flatten([top])
    const bases = entries.map((e) => e.path)
    for (const [base, code] of routes) if (entries.some((e) => e.permissionCode === code)) bases.push(base)
    for (const base of bases.map(normalize)) {
      if (under(path, base) && base.length > longest) {
        active = top.permissionCode
        longest = base.length
      }
    }
  }
  return active
}

/** The menu for the current session: from the tree with a token, the default without. */
export const $menu = shared('$menu', () =>
  computed([$token, $permissionTree, $systemConfig], (token, tree, config): MenuItem[] => {
    if (!config) return []
    if (!token) return defaultMenu(config)
    return tree ? buildMenu(tree, config) : []
  })
)

export const $allowedPaths = shared('$allowedPaths', () => computed([$menu, $systemConfig], (menu, config) => allowedPaths(menu, config)))
