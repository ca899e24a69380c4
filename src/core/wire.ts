/**
 * Every spelling that crosses a boundary (storage keys, cookie names, status values, error codes,
 * window event names) lives here and nowhere else. The spec's spellings stay as written, typos
 * included (`premission menus`, `interrput`): other code and stored data depend on them.
 */

/** localStorage: JSON array of the permission codes the user holds. */
export const PREMISSION_MENUS_KEY = 'premission menus'
/** localStorage: JSON of the logged-in user (`LoginUser`). */
export const USER_INFO_KEY = 'lingxi-user-info'
/** sessionStorage flag: the page runs inside an ICT-authenticated shell; never open our login. */
export const ICT_AUTH_FLAG = 'ict-auth'
/** localStorage: the user info the ICT shell provides. */
export const ICT_USER_INFO_KEY = 'ict-user-info'

export const COOKIE_TOKEN = 'lingxi_token'
export const COOKIE_ACCOUNT_ID = 'lingxi_account_id'
export const COOKIE_PHONE = 'lingxi_phone'

/** Query parameter carrying a redirect login (base64 of JSON `{accessToken, accountId, phone}`). */
export const LOGIN_PARAM = 'login'

/** The application permission code sent to /userPermission. */
export const APP_PERMISSION_CODE = 'AI_TOOLS'

export const MESSAGE_STATUSES = ['streaming', 'complete', 'error', 'interrput', 'timeout'] as const
/**
 * - `streaming`: the reply is still arriving.
 * - `complete`: the reply ended normally.
 * - `error`: the upstream failed.
 * - `interrput`: the user stopped it (wire spelling).
 * - `timeout`: the upstream took too long.
 */
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]

export const TASK_STATUSES = ['NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'FAILURE', 'SUCCESS', 'INTERRPUT', 'TIMEOUT'] as const
/**
 * - `NOT_START`: accepted, not queued upstream yet.
 * - `SUBMITTED`: queued upstream.
 * - `IN_PROGRESS`: generating (progress is reported).
 * - `FAILURE`: failed; the allowance was given back.
 * - `SUCCESS`: finished.
 * - `INTERRPUT`: stopped by the user (wire spelling).
 * - `TIMEOUT`: the upstream took too long.
 */
export type TaskStatus = (typeof TASK_STATUSES)[number]

export const CODE_OK = 2000
/** No token, token unknown/expired, session revoked: these fire the unauthorized event. */
export const UNAUTHORIZED_CODES: readonly number[] = [50011004, 50011005, 50011006]

/** detail `{message, type}` */
export const EVENT_TOAST = 'lingxi-toast'
/** detail `{title?, message, confirmText?, cancelText?, resolve(ok)}` */
export const EVENT_CONFIRM = 'lingxi-confirm'
/** detail `{code}`: the server refused the token. */
export const EVENT_UNAUTHORIZED = 'lingxi-unauthorized'
/** Fired by the WeChat login page once it has stored the user and the token cookie. */
export const EVENT_WX_LOGIN = 'wx_login_success'
/** detail `{accountId, phone}`: a login completed. */
export const EVENT_LOGIN = 'lingxi-login'
/** A logout completed. */
export const EVENT_LOGOUT = 'lingxi-logout'

/** Permission codes the client treats specially. */
export const CODE_CHAT = 'AI_TOOLS_CHAT'
export const CODE_PAINTING = 'AI_TOOLS_PAINTING'
export const CODE_SD = 'AI_TOOLS_SD'
export const CODE_ORDER_PLATFORM = 'AI_TOOLS_ORDER_PLATFORM'
export const CODE_ORDER_PLATFORM_QUALITY = 'AI_TOOLS_ORDER_PLATFORM_QUALITY'

/** detail `{path, topicId?}`: a widget asks the page to go somewhere (the host page routes it). */
export const EVENT_NAVIGATE = 'lingxi-navigate'
