import { $config } from './config'
import { announce, emit, toast } from './emit'
import { deviceKind } from './format'
import { MSG_SYSTEM_ERROR } from './messages'
import { $token, SESSION_MARKER } from './stores'
import type { LoginResponse, LoginUser, PermissionNode, SendCodeResponse, SystemConfig } from './types'
import { APP_PERMISSION_CODE, CODE_OK, EVENT_ERROR, EVENT_UNAUTHORIZED, UNAUTHORIZED_CODES } from './wire'

export type { LoginResponse, LoginUser, PermissionNode, SendCodeResponse, SystemConfig } from './types'

const API_ERROR = Symbol.for('lingxi.ApiError')
const NETWORK_ERROR = Symbol.for('lingxi.NetworkError')

function branded(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && brand in value
}

/**
 * The server answered with a code other than 2000. `instanceof` works across separately built
 * bundles on one page (the check is a page-wide brand, not this copy of the class).
 */
export class ApiError extends Error {
  code: number
  constructor(code: number, message: string) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    Object.defineProperty(this, API_ERROR, { value: true })
  }
  static [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, API_ERROR)
  }
}

/** No usable answer: the request failed, or the body was not the envelope. */
export class NetworkError extends Error {
  constructor(message = MSG_SYSTEM_ERROR, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'NetworkError'
    Object.defineProperty(this, NETWORK_ERROR, { value: true })
  }
  static [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, NETWORK_ERROR)
  }
}

interface Envelope {
  code: number
  message: string
  data: unknown
}

function isEnvelope(body: unknown): body is Envelope {
  return typeof body === 'object' && body !== null && typeof (body as Envelope).code === 'number'
}

export interface RequestOptions {
  signal?: AbortSignal
  /** Overrides `$token` (null = send no bearer; the session cookie still goes). */
  token?: string | null
}

/**
 * The headers of every API call: the CSRF guard the session cookie needs (`X-Lingxi-Request`), and
 * `Authorization` only for a bearer set explicitly (a script, a test), never for the marker of a
 * cookie session (docs/decisions/0019-session-cookie.md).
 */
export function authHeaders(token: string | null | undefined = $token.get()): Record<string, string> {
  const headers: Record<string, string> = { 'X-Lingxi-Request': '1' }
  if (token && !token.startsWith(SESSION_MARKER)) headers.Authorization = `Bearer ${token}`
  return headers
}

/**
 * POST JSON to `${apiBase}/api/v1${path}` and unwrap the envelope. Throws ApiError (code ≠ 2000,
 * whatever the HTTP status), NetworkError (no answer, or not an envelope) or, when `signal`
 * aborted, the abort reason. Never shows anything: see notifyError.
 */
export async function request<T>(path: string, body: object = {}, opts: RequestOptions = {}): Promise<T> {
  const headers = { ...authHeaders(opts.token === undefined ? $token.get() : opts.token), 'Content-Type': 'application/json', Accept: 'application/json' }
  let answer: unknown
  try {
    // Any HTTP status: the envelope's code decides (ADR 0004). A body that is not JSON is a NetworkError.
    const res = await fetch(`${$config.get().apiBase}/api/v1${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: opts.signal,
      credentials: 'include'
    })
    answer = JSON.parse(await res.text())
  } catch (cause) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? cause
    throw new NetworkError(MSG_SYSTEM_ERROR, { cause })
  }
  // Some fetch implementations finish a request aborted mid-flight; the caller no longer wants it.
  opts.signal?.throwIfAborted()
  if (!isEnvelope(answer)) throw new NetworkError()
  if (answer.code !== CODE_OK) throw new ApiError(answer.code, String(answer.message ?? ''))
  return answer.data as T
}

/** GET a static JSON file (`${apiBase}${path}?t=<now>`, no envelope). Failures: NetworkError. */
export async function getJson<T>(path: string): Promise<T> {
  try {
    const res = await fetch(`${$config.get().apiBase}${path}${path.includes('?') ? '&' : '?'}t=${Date.now()}`, { headers: { Accept: 'application/json' } })
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    return JSON.parse(await res.text()) as T
  } catch (cause) {
    throw new NetworkError(MSG_SYSTEM_ERROR, { cause })
  }
}

function isAbort(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Error).name === 'AbortError'
}

/**
 * The one mapping from errors to what the user sees (spec section 8): 50011004/5/6 fire the
 * unauthorized event (login opens, no message); other codes a warning with the server's message;
 * anything else 系统异常，请稍后重试 (code 0); both also fire the public `lingxi-error`. An abort the
 * caller asked for shows nothing.
 */
export function notifyError(error: unknown): void {
  if (error instanceof ApiError) {
    if (UNAUTHORIZED_CODES.includes(error.code)) {
      emit(EVENT_UNAUTHORIZED, { code: error.code })
    } else {
      toast(error.message, 'warning')
      announce(EVENT_ERROR, { code: error.code, message: error.message })
    }
  } else if (!isAbort(error)) {
    toast(MSG_SYSTEM_ERROR, 'error')
    announce(EVENT_ERROR, { code: 0, message: MSG_SYSTEM_ERROR })
  }
}

export type Platform = 'PC' | 'H5'

/** The configured platform, else the one detected from the user agent. */
const platform = (given?: Platform): Platform => given ?? $config.get().platform ?? deviceKind()

/** Typed endpoints. Each returns `data` of the envelope. */
export const api = {
  auth: {
    sendSmsCode: (input: { enCode: string; phone: string }) =>
      request<SendCodeResponse>('/auth/send-sms-code', { ...input, smsType: 'LOGIN', imgVerifyState: 1 }),
    login: (input: { enCode: string; phone: string; code: string; platform?: Platform }) =>
      request<LoginResponse>('/auth/login', { ...input, platform: platform(input.platform) }),
    loginWithoutCode: (input: { enCode?: string; phone: string; platform?: Platform }) =>
      request<LoginResponse>('/auth/login-without-code', { ...input, platform: platform(input.platform) }),
    logout: (opts?: RequestOptions) => request<null>('/auth/logout', {}, opts),
    /** Trades an older client's readable bearer for the session cookie (the bearer's session ends). */
    sessionCookie: (token: string) => request<LoginResponse>('/auth/session-cookie', {}, { token }),
    modifyPhoneSmsCode: (input: { enCode: string; phone: string }) => request<null>('/auth/modify-phone-sms-code', input),
    modifyPhone: (input: { enCode: string; phone: string; code: string }) => request<LoginResponse>('/auth/modify-phone', input)
  },
  user: {
    info: () => request<LoginUser>('/user/info')
  },
  userPermission: () => request<{ bodyList: PermissionNode[] }>('/userPermission', { appPermissionCode: APP_PERMISSION_CODE }),
  config: {
    system: () => getJson<SystemConfig>('/config/system.json'),
    chat: () => getJson<Record<string, unknown>>('/config/chatConfig.json'),
    mjHelper: () => getJson<unknown>('/config/MJHelper.json')
  }
}
