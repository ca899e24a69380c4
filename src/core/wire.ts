/**
 * Every spelling of the client's that crosses a boundary (storage keys, cookie names, error codes,
 * window event names) lives here and nowhere else; the status values of the wire are the server's
 * (`@lingxi/server/wire`). The spec's spellings stay as written, typos included (`premission
 * menus`): other code and stored data depend on them.
 */

/** localStorage: JSON array of the permission codes the user holds. */
export const PREMISSION_MENUS_KEY = 'premission menus'
/** localStorage: JSON of the logged-in user (`LoginUser`). */
export const USER_INFO_KEY = 'lingxi-user-info'
/** sessionStorage flag: the page runs inside an ICT-authenticated shell; never open our login. */
export const ICT_AUTH_FLAG = 'ict-auth'
/** localStorage: the user info the ICT shell provides. */
export const ICT_USER_INFO_KEY = 'ict-user-info'
/** localStorage: the host page's theme, `dark` | `light` | `auto` (src/host/public/theme.js reads it too). */
export const THEME_KEY = 'lingxi-theme'

/** Readable session cookies of older clients: traded for the session cookie once, then deleted (ADR 0019). */
export const COOKIE_TOKEN = 'lingxi_token'
export const COOKIE_ACCOUNT_ID = 'lingxi_account_id'
export const COOKIE_PHONE = 'lingxi_phone'

/** Query parameter carrying a redirect login (base64 of JSON `{accessToken: '', accountId, phone}`). */
export const LOGIN_PARAM = 'login'

/** The application permission code sent to /userPermission. */
export const APP_PERMISSION_CODE = 'AI_TOOLS'

export const CODE_OK = 2000
/** No token, token unknown/expired, session revoked: these fire the unauthorized event. */
export const UNAUTHORIZED_CODES: readonly number[] = [50011004, 50011005, 50011006]

/** detail `{message, type}` */
export const EVENT_TOAST = 'lingxi-toast'
/** detail `{title?, message, confirmText?, cancelText?, resolve(ok)}` */
export const EVENT_CONFIRM = 'lingxi-confirm'
/** detail `{code}`: the server refused the token. */
export const EVENT_UNAUTHORIZED = 'lingxi-unauthorized'
/** Fired by the WeChat login popup once the server has set the session cookie. */
export const EVENT_WX_LOGIN = 'wx_login_success'
/** detail `{accountId, phone}`: a login completed. */
export const EVENT_LOGIN = 'lingxi-login'
/** A logout completed. */
export const EVENT_LOGOUT = 'lingxi-logout'
/** detail `{code, message}`: a failure was shown to the person (not a refused session: that opens login). */
export const EVENT_ERROR = 'lingxi-error'

/** detail `{path, topicId?}`: a widget asks the page to go somewhere (the host page routes it). */
export const EVENT_NAVIGATE = 'lingxi-navigate'
