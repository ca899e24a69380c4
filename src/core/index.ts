// The framework-free core of Lingxi: stores, API client, auth, permissions, events, formatters.
// Every store lives on the page-wide anchor (see shared.ts), so bundles on one page share them.
export { anchor, shared } from './shared'
export type { Anchor, BootConfig } from './anchor'
export * from './wire'
export * from './messages'
export { $config, configure, type Config } from './config'
export { getCookie, removeCookie, setCookie, type CookieOptions } from './cookies'
export { copyText, deviceKind, formatCount, maskPhone } from './format'
export {
  $confirm,
  $loginOpen,
  $permissionTree,
  $systemConfig,
  $toasts,
  $token,
  $user,
  type LoginDialogMode,
  type PendingConfirm,
  type Toast,
} from './stores'
export {
  api,
  ApiError,
  getJson,
  NetworkError,
  notifyError,
  request,
  type Platform,
  type RequestOptions,
} from './api'
export type {
  CountryEntry,
  LoginResponse,
  LoginUser,
  MenuItem,
  PermissionMeta,
  PermissionNode,
  SendCodeResponse,
  SystemConfig,
} from './types'
export {
  answerConfirm,
  confirm,
  dismissToast,
  handleUnauthorized,
  handleWxLogin,
  installGlobalListeners,
  toast,
  TOAST_MS,
  type ConfirmOptions,
  type ToastType,
} from './events'
export {
  $allowedPaths,
  $menu,
  activeMenuCode,
  allowedPaths,
  buildMenu,
  defaultMenu,
  firstLeafPath,
  grantedCodes,
  guardRedirect,
  hasPermission,
  hasSd,
  isPathAllowed,
  USER_CENTER_PATH,
} from './permissions'
export {
  closeLogin,
  consumeRedirectLogin,
  loadPermissions,
  loadSystemConfig,
  login,
  loginWithoutCode,
  logout,
  modifyPhone,
  openLogin,
  parseLoginPayload,
  refreshUser,
  sendModifyPhoneCode,
  sendSmsCode,
  startSession,
  type CodeLoginInput,
} from './auth'
export { loadCountries, searchCountries } from './countries'
