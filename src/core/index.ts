/**
 * `lingxi/core`: what a page or app needs to work with Lingxi beside (or instead of) its
 * components — the session, the menu the permissions allow, toasts and confirmations, and the API
 * client — framework-free. The stores live on the page-wide anchor
 * (`globalThis[Symbol.for('lingxi.v1')]`), so every Lingxi bundle on a page (the CDN elements, this
 * package) sees one `$user`. A tool's own state stays with the tool (src/widgets/<tool>/state.ts),
 * out of this API.
 *
 * @example
 * import { $user, configure, login, logout, startSession } from 'lingxi/core'
 * configure({ apiBase: 'https://ai.example.com' })
 * startSession()
 * $user.subscribe((user) => console.log(user ? user.phone : 'logged out'))
 */

/** Where the API is and how the session cookies are scoped; `configure` before the first call. */
export { $config, configure, type Config } from './config'

/**
 * The session: `$token` (in a browser an opaque marker, never the token: the session is the API's
 * HttpOnly cookie) and `$user` (null when logged out), `$session` / `currentSession()` (who is
 * logged in, as this page may read it), the login dialog's state, and the actions. `startSession`
 * is the one call at boot (the components make it themselves).
 */
export { $loginOpen, $session, $token, $user, currentSession, type LoginDialogMode, type SessionInfo } from './stores'
export {
  closeLogin,
  login,
  loginWithoutCode,
  logout,
  modifyPhone,
  openLogin,
  refreshUser,
  sendModifyPhoneCode,
  sendSmsCode,
  startSession,
  type CodeLoginInput
} from './auth'
/** Partner single sign-on: logs the partner's user in with the assertion its backend signed (README, 合作方单点登录). */
export { identify } from './identify'

/**
 * Permissions: the menu of the tools the person may use (the default menu when logged out), the
 * paths it opens, and single permission codes.
 */
export { $permissionTree, $systemConfig } from './stores'
export { $allowedPaths, $menu, isPathAllowed } from './menu'
export { hasPermission, loadPermissions, loadSystemConfig } from './permissions'

/**
 * Events: toasts and confirmations (any script may raise them; `<lingxi-toaster>` or the
 * `Toaster` component shows them, or render `$toasts` and `$confirm` yourself), and the names of
 * the page-wide window events.
 */
export { confirm, toast, type ConfirmOptions, type ToastType } from './emit'
export { $confirm, $toasts, type PendingConfirm, type Toast } from './stores'
export { answerConfirm, dismissToast } from './events'
export { EVENT_CONFIRM, EVENT_LOGIN, EVENT_LOGOUT, EVENT_NAVIGATE, EVENT_TOAST, EVENT_UNAUTHORIZED } from './wire'

/**
 * The API client: typed endpoints of the session, `request` for any other (POST JSON, the token
 * sent, the envelope unwrapped), the two errors it throws, and `notifyError`, which shows an
 * error as the spec says (login for a refused token, else a toast).
 */
export { api, ApiError, getJson, NetworkError, notifyError, request, type Platform, type RequestOptions } from './api'

/** Uploads from scripts: an image PUT with progress, then checked and registered by the server. */
export { UPLOAD_ACCEPT, UPLOAD_MAX_BYTES, uploadImage, type Image, type UploadOptions, type UploadPurpose } from './upload'

/** Formatters: phone numbers, counts and allowances as the spec shows them. */
export { copyText, formatCount, maskPhone } from './format'
export { BALANCE_KINDS, formatAllowance, type BalanceKind, type Balances } from './allowances'

/** Shapes of the wire. */
export type { LoginResponse, LoginUser, MenuItem, PermissionMeta, PermissionNode, SendCodeResponse, SystemConfig } from './types'
