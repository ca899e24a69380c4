import type { WechatSettings } from '../config.js'

type OAuthSettings = NonNullable<WechatSettings['oauth']>

export interface WechatUser {
  openid: string
  unionid: string | null
  nickname: string
  headimgurl: string
}

/** A WeChat API answer carrying `errcode`, or a failed exchange; `message` is for users. */
export class WechatOAuthError extends Error {
  constructor(
    readonly errcode: number,
    message: string
  ) {
    super(message)
    this.name = 'WechatOAuthError'
  }
}

const MESSAGES: Record<number, string> = {
  40029: '微信授权码无效，请重新扫码登录',
  40163: '微信授权码已被使用，请重新扫码登录',
  42003: '微信授权码已过期，请重新扫码登录',
  40013: '微信登录配置有误（AppID 无效），请联系客服',
  40125: '微信登录配置有误（AppSecret 无效），请联系客服',
  40001: '微信登录凭证无效，请重新扫码登录',
  42001: '微信登录凭证已过期，请重新扫码登录',
  40003: '微信用户标识无效，请重新扫码登录',
  41001: '微信登录缺少凭证，请重新扫码登录',
  [-1]: '微信系统繁忙，请稍后重试'
}

/**
 * Inside WeChat: the official account's web authorization (公众号网页授权), snsapi_userinfo — the
 * page asks the user to allow, then comes back to `redirectUri` with `code` and `state`.
 */
export function mpAuthorizeUrl(s: OAuthSettings, redirectUri: string, state: string): string {
  const q = new URLSearchParams({ appid: s.appId, redirect_uri: redirectUri, response_type: 'code', scope: 'snsapi_userinfo', state })
  return `${s.openBase}/connect/oauth2/authorize?${q.toString()}#wechat_redirect`
}

/** The qrconnect URL the browser is sent to. */
export function qrconnectUrl(s: OAuthSettings, redirectUri: string, state: string): string {
  const q = new URLSearchParams({ appid: s.appId, redirect_uri: redirectUri, response_type: 'code', scope: 'snsapi_login', state })
  return `${s.openBase}/connect/qrconnect?${q.toString()}#wechat_redirect`
}

async function getJson(url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  let res: Response
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
  } catch {
    throw new WechatOAuthError(-2, '连接微信失败，请稍后重试')
  }
  let body: unknown
  try {
    // WeChat answers JSON with a text/plain content type.
    body = JSON.parse(await res.text())
  } catch {
    throw new WechatOAuthError(-3, '微信的应答无法识别，请稍后重试')
  }
  if (typeof body !== 'object' || body === null) throw new WechatOAuthError(-3, '微信的应答无法识别，请稍后重试')
  const o = body as Record<string, unknown>
  const errcode = typeof o.errcode === 'number' ? o.errcode : 0
  if (errcode !== 0) throw new WechatOAuthError(errcode, MESSAGES[errcode] ?? `微信登录失败（${errcode}），请重新扫码登录`)
  return o
}

/** `sns/oauth2/access_token` then `sns/userinfo`. */
export async function exchangeCode(s: OAuthSettings, code: string, timeoutMs = 10_000): Promise<WechatUser> {
  const token = await getJson(
    `${s.apiBase}/sns/oauth2/access_token?${new URLSearchParams({ appid: s.appId, secret: s.appSecret, code, grant_type: 'authorization_code' })}`,
    timeoutMs
  )
  const accessToken = typeof token.access_token === 'string' ? token.access_token : ''
  const openid = typeof token.openid === 'string' ? token.openid : ''
  if (!accessToken || !openid) throw new WechatOAuthError(-3, '微信的应答无法识别，请稍后重试')
  const info = await getJson(`${s.apiBase}/sns/userinfo?${new URLSearchParams({ access_token: accessToken, openid, lang: 'zh_CN' })}`, timeoutMs)
  const unionid = typeof info.unionid === 'string' && info.unionid ? info.unionid : typeof token.unionid === 'string' && token.unionid ? token.unionid : null
  return {
    openid: typeof info.openid === 'string' && info.openid ? info.openid : openid,
    unionid,
    nickname: typeof info.nickname === 'string' ? info.nickname : '',
    headimgurl: typeof info.headimgurl === 'string' ? info.headimgurl : ''
  }
}
