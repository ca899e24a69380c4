import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wechatIdentities } from '../src/db/schema.js'
import { type FakeWechatOAuth, startFakeWechatOAuth } from './fakes/wechat-oauth.js'
import { useHarness } from './helpers/database-hooks.js'

// WeChat login (OAuth against the fake open platform); red packets are in wechat.test.ts.

let oauth: FakeWechatOAuth
beforeAll(async () => {
  oauth = await startFakeWechatOAuth()
})
afterAll(async () => {
  await oauth?.close()
})

let env: Record<string, string> = {}
const ctx = useHarness(() => ({ env }))
const wxEnv = () => ({
  WECHAT_APP_ID: oauth.appId,
  WECHAT_APP_SECRET: oauth.appSecret,
  WECHAT_OPEN_URL: oauth.url,
  WECHAT_API_URL: oauth.url,
  PUBLIC_URL: 'http://lingxi.test'
})

/** A response that may be HTML (h.request parses JSON). */
const raw = (path: string, headers: Record<string, string> = {}) =>
  ctx.h.app.request(path, { headers }, { incoming: { socket: { remoteAddress: '203.0.113.7' } }, outgoing: {} })

/** Runs the browser side of a WeChat login against the fake; returns the decoded payload. */
async function wechatLogin(query = 'redirect=%2Forders%3Fx%3D1') {
  const start = await ctx.h.request(`/api/v1/auth/wechat/authorize?${query}`)
  expect(start.status).toBe(302)
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!
  expect(start.headers.get('set-cookie')).toMatch(/HttpOnly/i)
  const wx = await fetch(start.headers.get('location')!.replace('#wechat_redirect', ''), { redirect: 'manual' })
  const back = new URL(wx.headers.get('location')!)
  expect(back.pathname).toBe('/api/v1/auth/wechat/callback')
  const done = await raw(`${back.pathname}${back.search}`, { cookie })
  return { start, cookie, back, done }
}
const decode = (location: string) => JSON.parse(Buffer.from(new URL(location, 'http://x').searchParams.get('login')!, 'base64').toString('utf8'))

describe('WeChat login', () => {
  beforeAll(() => {
    env = wxEnv()
  })

  it('logs a new WeChat user in (new account, needPhone), and the same user again into the same account', async () => {
    oauth.user = { openid: 'oLogin1', unionid: 'uLogin1', nickname: '小灵' }
    const { done } = await wechatLogin()
    expect(done.status).toBe(302)
    const location = done.headers.get('location')!
    expect(location.startsWith('/orders?x=1&login=')).toBe(true)
    const payload = decode(location)
    // ADR 0019: the address carries who logged in, never the token; the session is this origin's
    // HttpOnly, partitioned cookie, short and renewable.
    expect(payload).toMatchObject({ accessToken: '', phone: '', needPhone: true })
    expect(location).not.toContain('lingxi_token')
    const session = done.headers.getSetCookie().find((l) => l.startsWith('lingxi_session='))!
    const token = /^lingxi_session=([^;]+);/.exec(session)![1]!
    expect(session.split(';').map((p) => p.trim())).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=None', 'Partitioned', 'Max-Age=604800']))
    const info = await ctx.h.post<any>('/api/v1/user/info', {}, { token })
    expect(info.body.data.nickName).toBe('小灵')
    const byCookie = await ctx.h.post<any>('/api/v1/user/info', {}, { headers: { Cookie: `lingxi_session=${token}`, 'X-Lingxi-Request': '1' } })
    expect(byCookie.body.data.accountId).toBe(payload.accountId)
    const again = decode((await wechatLogin()).done.headers.get('location')!)
    expect(again.accountId).toBe(payload.accountId)
    const system = await ctx.h.request('/config/system.json')
    expect((system.body as any).wechatLogin).toBe(true)
  })

  it('refuses a missing, mismatched or reused state, and reports WeChat errors in Chinese', async () => {
    const { back, cookie } = await wechatLogin()
    // Used once already.
    const reused = await raw(`${back.pathname}${back.search}`, { cookie })
    expect(reused.status).toBe(400)
    const start = await ctx.h.request('/api/v1/auth/wechat/authorize')
    const c2 = (start.headers.get('set-cookie') ?? '').split(';')[0]!
    const state = new URL(start.headers.get('location')!.replace('#wechat_redirect', '')).searchParams.get('state')!
    const code = oauth.issueCode()
    expect((await raw(`/api/v1/auth/wechat/callback?code=${code}&state=${state}`)).status).toBe(400) // no cookie
    expect((await raw(`/api/v1/auth/wechat/callback?code=${code}&state=forged`, { cookie: c2 })).status).toBe(400)
    ctx.h.clock.advance(11 * 60_000) // expired
    expect((await raw(`/api/v1/auth/wechat/callback?code=${code}&state=${state}`, { cookie: c2 })).status).toBe(400)
    // A code WeChat refuses.
    const s3 = await ctx.h.request('/api/v1/auth/wechat/authorize')
    const c3 = (s3.headers.get('set-cookie') ?? '').split(';')[0]!
    const st3 = new URL(s3.headers.get('location')!.replace('#wechat_redirect', '')).searchParams.get('state')!
    const bad = await raw(`/api/v1/auth/wechat/callback?code=not-a-code&state=${st3}`, { cookie: c3 })
    expect(bad.status).toBe(400)
    expect(await bad.text()).toContain('微信授权码无效，请重新扫码登录')
    expect((await ctx.h.request('/api/v1/auth/wechat/authorize?redirect=https://evil.example')).body).toMatchObject({ code: 40000001 })
  })

  it('binds WeChat to a phone account; the popup page fires wx_login_success', async () => {
    const { accessToken, accountId } = await ctx.h.login('13400000001')
    const bind = await ctx.h.post<any>('/api/v1/auth/wechat/bind', { redirect: '/orders', popup: true }, { token: accessToken })
    expect(bind.body.code).toBe(2000)
    oauth.user = { openid: 'oBind1', nickname: '绑定者' }
    const url = new URL(bind.body.data.authorizeUrl)
    const { done } = await wechatLogin(url.search.slice(1))
    expect(done.status).toBe(200)
    const html = await done.text()
    expect(html).toContain("dispatchEvent(new CustomEvent('wx_login_success'")
    // The popup page writes no cookie and holds no token: the session is its HttpOnly cookie.
    const token = /^lingxi_session=([^;]+);/.exec(done.headers.getSetCookie().find((l) => l.startsWith('lingxi_session='))!)![1]!
    expect(html).not.toContain(token)
    expect(html).not.toContain('document.cookie')
    expect(done.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/)
    const [identity] = await ctx.db.db.select().from(wechatIdentities).where(eq(wechatIdentities.openid, 'oBind1'))
    expect(identity?.accountId).toBe(accountId)
  })
})

describe('WeChat login, not configured', () => {
  beforeAll(() => {
    env = {}
  })
  it('is disabled with a clear message when not configured', async () => {
    const res = await ctx.h.request('/api/v1/auth/wechat/authorize?redirect=/')
    expect(res.body).toMatchObject({ code: 40000001, message: '微信登录未配置' })
    expect((await ctx.h.request('/config/system.json')).body).toMatchObject({ wechatLogin: false })
  })
})
