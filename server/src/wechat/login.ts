import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { and, eq, gt, isNull, or } from 'drizzle-orm'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { z } from 'zod'
import { findOrCreateAccount } from '../auth/accounts.js'
import { setSessionCookie } from '../auth/cookie.js'
import { createSession } from '../auth/sessions.js'
import { BROWSER_SESSION_TTL_MS } from '../auth/tokens.js'
import type { wechatLoginPayload } from '../auth/wire.js'
import type { Config } from '../config.js'
import { accounts, wechatIdentities, wechatLoginStates } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { type Api, type AppContext, defineRoute } from '../http/api.js'
import { exchangeCode, mpAuthorizeUrl, qrconnectUrl, WechatOAuthError, type WechatUser } from './oauth.js'

export const WECHAT_BASE = '/api/v1/auth/wechat'
export const STATE_COOKIE = 'lingxi_wx_state'
export const STATE_TTL_MS = 10 * 60_000
export const NOT_CONFIGURED = '微信登录未配置'
/** Accounts made by a WeChat login carry this en_code and a placeholder phone until one is bound. */
export const WECHAT_EN_CODE = 'wx'

const hash = (value: string) => createHash('sha256').update(value).digest('hex')
const token = () => randomBytes(24).toString('base64url')

/** A path of this site ("/orders?x=1"); anything that could leave the site is refused. */
export function safeRedirect(value: string | undefined): string {
  const v = (value ?? '/').trim() || '/'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a redirect with control characters is refused
  if (!v.startsWith('/') || v.startsWith('//') || v.startsWith('/\\') || v.length > 1000 || /[\u0000-\u001f\\]/.test(v)) {
    throw new ApiError(40000001, 'redirect 只能是本站的路径（以 / 开头）')
  }
  return v
}

/** `<redirect>?login=…` (or `&login=`), before any #hash. */
export function withLogin(redirect: string, payload: string): string {
  const i = redirect.indexOf('#')
  const path = i >= 0 ? redirect.slice(0, i) : redirect
  const hashPart = i >= 0 ? redirect.slice(i) : ''
  return `${path}${path.includes('?') ? '&' : '?'}login=${encodeURIComponent(payload)}${hashPart}`
}

/** What `?login=` carries, as base64 of its JSON (`WechatLogin` of the wire types). */
export type LoginPayload = z.infer<typeof wechatLoginPayload>

export function encodePayload(p: LoginPayload): string {
  return Buffer.from(JSON.stringify(p), 'utf8').toString('base64')
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(c: AppContext, status: 200 | 400, title: string, body: string, script?: string) {
  const nonce = randomBytes(16).toString('base64')
  const html = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#17181c;color:#e5e7eb;font:16px/1.6 system-ui,sans-serif}main{max-width:28rem;padding:2rem;text-align:center}a{color:#fbab00}</style></head>
<body><main>${body}</main>${script ? `<script nonce="${nonce}">${script}</script>` : ''}</body></html>`
  return c.html(html, status, {
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`,
    'Cache-Control': 'no-store'
  })
}

function errorPage(c: AppContext, message: string, redirect = '/') {
  return page(c, 400, '微信登录失败', `<h1>微信登录失败</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(redirect)}">返回灵犀</a></p>`)
}

/** Links the WeChat user to an account (the binding one, the one already linked, or a new one). */
async function linkIdentity(api: Api, config: Config, appId: string, user: WechatUser, bindAccountId: string | null) {
  const now = api.now()
  const at = new Date(now)
  return api.db.transaction(async (tx) => {
    const match = user.unionid
      ? or(and(eq(wechatIdentities.appId, appId), eq(wechatIdentities.openid, user.openid)), eq(wechatIdentities.unionid, user.unionid))
      : and(eq(wechatIdentities.appId, appId), eq(wechatIdentities.openid, user.openid))
    const [identity] = await tx.select().from(wechatIdentities).where(match).limit(1)
    let accountId: string
    if (bindAccountId) {
      if (identity && identity.accountId !== bindAccountId) throw new WechatOAuthError(-10, '该微信已绑定其他灵犀账号，请用该微信直接登录')
      accountId = bindAccountId
    } else if (identity) {
      accountId = identity.accountId
    } else {
      // No account yet: one with a placeholder phone; the client asks for a real one (needPhone).
      accountId = await findOrCreateAccount(tx, { enCode: WECHAT_EN_CODE, phone: `wx${hash(`${appId}:${user.openid}`).slice(0, 20)}` }, config, now)
      const nick = user.nickname.trim().slice(0, 30)
      if (nick) await tx.update(accounts).set({ nickName: nick, updatedAt: at }).where(eq(accounts.id, accountId))
    }
    if (!identity) {
      await tx
        .insert(wechatIdentities)
        .values({ appId, openid: user.openid, unionid: user.unionid, accountId, nickName: user.nickname.slice(0, 64), createdAt: at, updatedAt: at })
    } else if (identity.appId !== appId || identity.openid !== user.openid) {
      // The same person (unionid) through another app — the official account inside WeChat after a
      // QR login, or the reverse: this app's openid is recorded too, since WeChat Pay JSAPI needs
      // the openid of its own app id. The unionid stays on the first row (it is unique).
      await tx
        .insert(wechatIdentities)
        .values({ appId, openid: user.openid, unionid: null, accountId, nickName: user.nickname.slice(0, 64), createdAt: at, updatedAt: at })
        .onConflictDoNothing()
    }
    const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId))
    if (!account) throw new WechatOAuthError(-11, '账号不存在，请重新登录')
    const accessToken = await createSession(tx, accountId, 'PC', now, BROWSER_SESSION_TTL_MS)
    const needPhone = account.enCode === WECHAT_EN_CODE
    return { accessToken, accountId, phone: needPhone ? '' : account.phone, needPhone }
  })
}

export function registerWechatLogin(api: Api, config: Config): void {
  const { oauth, mp } = config.wechat
  const callbackUrl = `${config.publicUrl}${WECHAT_BASE}/callback`
  const secure = config.publicUrl.startsWith('https:')
  const requireConfigured = () => {
    if (!oauth && !mp) throw new ApiError(40000001, NOT_CONFIGURED)
  }
  /**
   * Which app a login goes through: inside WeChat (its browser says MicroMessenger) the official
   * account's web authorization, whose openid WeChat Pay JSAPI needs — the QR login cannot run
   * there; elsewhere the website app's QR login. With only one of them configured, that one.
   */
  const appFor = (c: AppContext) => {
    const inWechat = /MicroMessenger/i.test(c.req.header('user-agent') ?? '')
    if (mp && (inWechat || !oauth)) return { kind: 'mp' as const, settings: mp }
    if (oauth) return { kind: 'web' as const, settings: oauth }
    throw new ApiError(40000001, NOT_CONFIGURED)
  }

  api.docs.push({
    method: 'get',
    path: `${WECHAT_BASE}/authorize`,
    tag: 'auth',
    summary: 'Start a WeChat QR login (or a bind, with ticket): redirects to WeChat',
    auth: false,
    parameters: [
      { name: 'redirect', in: 'query', description: 'A path of this site to come back to (starts with /); / when absent' },
      { name: 'popup', in: 'query', description: '1: opened as a popup, which ends by telling its opener (wx_login_success) and closing' },
      { name: 'ticket', in: 'query', description: 'From wechat/bind’s authorizeUrl: binds WeChat to that account; redirect and popup come from the bind' }
    ],
    responses: {
      302: {
        description: 'To WeChat’s QR login page, which comes back to callback',
        headers: {
          Location: 'open.weixin.qq.com/connect/qrconnect (inside WeChat, with WECHAT_MP_APP_ID: /connect/oauth2/authorize, snsapi_userinfo)',
          'Set-Cookie': `${STATE_COOKIE}: the login state, HttpOnly, 10 minutes`
        }
      }
    }
  })
  api.app.get(`${WECHAT_BASE}/authorize`, async (c) => {
    const app = appFor(c)
    const now = api.now()
    const state = token()
    const ticket = c.req.query('ticket')
    if (ticket) {
      // A bind started by a logged-in client: the ticket becomes this browser's state, once.
      const [row] = await api.db
        .update(wechatLoginStates)
        .set({ stateHash: hash(state), ticketHash: null, expiresAt: new Date(now + STATE_TTL_MS) })
        .where(and(eq(wechatLoginStates.ticketHash, hash(ticket)), isNull(wechatLoginStates.usedAt), gt(wechatLoginStates.expiresAt, new Date(now))))
        .returning()
      if (!row) throw new ApiError(40000001, '绑定链接已失效，请重新发起绑定')
    } else {
      const redirect = safeRedirect(c.req.query('redirect'))
      await api.db.insert(wechatLoginStates).values({
        id: randomUUID(),
        stateHash: hash(state),
        redirect,
        popup: c.req.query('popup') === '1',
        expiresAt: new Date(now + STATE_TTL_MS),
        createdAt: new Date(now)
      })
    }
    setCookie(c, STATE_COOKIE, state, { path: WECHAT_BASE, httpOnly: true, sameSite: 'Lax', secure, maxAge: STATE_TTL_MS / 1000 })
    // The official account's code comes back marked, so the callback exchanges it with that app.
    if (app.kind === 'mp') return c.redirect(mpAuthorizeUrl(app.settings, `${callbackUrl}?app=mp`, state), 302)
    return c.redirect(qrconnectUrl(app.settings, callbackUrl, state), 302)
  })

  defineRoute(
    api,
    `${WECHAT_BASE}/bind`,
    {
      tag: 'auth',
      summary: 'Start binding WeChat to the logged-in account: open authorizeUrl in the browser (valid 10 minutes, once)',
      body: z.object({ redirect: z.string().optional(), popup: z.boolean().optional() }),
      auth: true,
      response: z.object({ authorizeUrl: z.string() })
    },
    async ({ body, auth }) => {
      requireConfigured()
      const now = api.now()
      const ticket = token()
      await api.db.insert(wechatLoginStates).values({
        id: randomUUID(),
        ticketHash: hash(ticket),
        redirect: safeRedirect(body.redirect),
        popup: body.popup ?? false,
        bindAccountId: auth.account.id,
        expiresAt: new Date(now + STATE_TTL_MS),
        createdAt: new Date(now)
      })
      return { authorizeUrl: `${config.publicUrl}${WECHAT_BASE}/authorize?ticket=${ticket}` }
    }
  )

  api.docs.push({
    method: 'get',
    path: `${WECHAT_BASE}/callback`,
    tag: 'auth',
    summary: 'WeChat comes back here: logs in (or binds), then redirects back with ?login=, or serves the popup page',
    auth: false,
    parameters: [
      { name: 'code', in: 'query', description: 'WeChat’s authorization code; absent when the user declined' },
      { name: 'state', in: 'query', description: 'The state authorize gave WeChat; must match the state cookie' }
    ],
    responses: {
      302: {
        description:
          "Logged in (the session cookie is set): back to the redirect path with ?login=<base64 of the JSON {accessToken: '', accountId, phone, needPhone}>",
        headers: { Location: 'the redirect path with the login parameter' }
      },
      200: { description: 'Logged in, in a popup (the session cookie is set): a page that tells its opener and closes', contentType: 'text/html' },
      400: {
        description:
          'Login failed (state mismatch or expired, declined, WeChat refused): an error page; the refusal envelope instead when WeChat login is not configured',
        contentType: 'text/html'
      }
    }
  })
  api.app.get(`${WECHAT_BASE}/callback`, async (c) => {
    requireConfigured()
    const settings = c.req.query('app') === 'mp' ? mp : oauth
    if (!settings) throw new ApiError(40000001, NOT_CONFIGURED)
    const state = c.req.query('state') ?? ''
    const cookie = getCookie(c, STATE_COOKIE)
    deleteCookie(c, STATE_COOKIE, { path: WECHAT_BASE, secure })
    if (!state || !cookie || cookie !== state) return errorPage(c, '登录状态校验失败（请在同一个浏览器中完成扫码），请重新发起微信登录')
    const now = api.now()
    const [row] = await api.db
      .update(wechatLoginStates)
      .set({ usedAt: new Date(now) })
      .where(and(eq(wechatLoginStates.stateHash, hash(state)), isNull(wechatLoginStates.usedAt), gt(wechatLoginStates.expiresAt, new Date(now))))
      .returning()
    if (!row) return errorPage(c, '登录链接已失效或已使用，请重新发起微信登录')
    const code = c.req.query('code')
    if (!code) return errorPage(c, '您取消了微信登录', row.redirect)
    let payload: LoginPayload
    try {
      const user = await exchangeCode(settings, code)
      payload = await linkIdentity(api, config, settings.appId, user, row.bindAccountId)
    } catch (error) {
      if (error instanceof WechatOAuthError) return errorPage(c, error.message, row.redirect)
      throw error
    }
    // The session is the HttpOnly cookie of this origin (ADR 0019): neither `?login=` nor the popup
    // page carries the token, only who logged in (the page loads the rest with user/info).
    setSessionCookie(c, payload.accessToken)
    const target = withLogin(row.redirect, encodePayload({ ...payload, accessToken: '' }))
    if (!row.popup) return c.redirect(target, 302)
    // Tells the opener (a page of this origin) and closes; without an opener it redirects.
    const script = `(function(){var t=${JSON.stringify(target).replace(/</g, '\\u003c')};
try{if(window.opener&&window.opener.location.origin===location.origin){window.opener.dispatchEvent(new CustomEvent('wx_login_success',{detail:{accountId:${JSON.stringify(payload.accountId)},needPhone:${payload.needPhone}}}));window.close();return}}catch(x){}
location.replace(t)})()`
    return page(c, 200, '微信登录成功', '<h1>微信登录成功</h1><p>正在返回灵犀…</p>', script)
  })
}
