import { createVerify, randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wechatIdentities } from '../src/db/schema.js'
import { createPackage } from '../src/modules/payments/packages.js'
import { type FakeWechatOAuth, startFakeWechatOAuth } from './fakes/wechat-oauth.js'
import { ALLOWANCES, balancesOf } from './helpers/allowances.js'
import { useWechatPayHarness } from './helpers/wechat-pay.js'

// Issue 21: WeChat Pay JSAPI inside WeChat, with the openid of the official account's web
// authorization (公众号网页授权) that a login or a bind made inside WeChat records. The website
// app's QR login (elsewhere) gives another openid, which JSAPI cannot use.

let oauth: FakeWechatOAuth
beforeAll(async () => {
  oauth = await startFakeWechatOAuth()
})
afterAll(async () => {
  await oauth?.close()
})
const { ctx, fake } = useWechatPayHarness({
  env: () => ({
    WECHAT_APP_ID: oauth.appId,
    WECHAT_APP_SECRET: oauth.appSecret,
    // The official account is the app the merchant pays with (PAY_WECHAT_APP_ID = its AppID).
    WECHAT_MP_APP_ID: fake.appId,
    WECHAT_MP_APP_SECRET: oauth.mpAppSecret,
    WECHAT_OPEN_URL: oauth.url,
    WECHAT_API_URL: oauth.url,
    PUBLIC_URL: 'http://lingxi.test'
  })
})
beforeAll(() => {
  oauth.mpAppId = fake.appId
})

const WECHAT_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.47(0x18002f2c) NetType/WIFI Language/zh_CN'
const SAFARI_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Version/17.4 Mobile/15E148 Safari/604.1'

/** The browser side of a WeChat login or bind, with this user agent; answers where WeChat was sent and the callback's answer. */
async function wechatRoundTrip(query: string, ua: string) {
  const start = await ctx.h.app.request(`/api/v1/auth/wechat/authorize?${query}`, { headers: { 'user-agent': ua } })
  expect(start.status).toBe(302)
  const to = new URL(start.headers.get('location')!.replace('#wechat_redirect', ''))
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!
  const wx = await fetch(to, { redirect: 'manual' })
  const back = new URL(wx.headers.get('location')!)
  const done = await ctx.h.app.request(`${back.pathname}${back.search}`, { headers: { cookie, 'user-agent': ua } })
  return { to, back, done }
}

async function jsapiOrder(token: string) {
  const pkg = await createPackage(ctx.db.db, ALLOWANCES, {
    name: `微信包${randomUUID().slice(0, 4)}`,
    priceFen: 1990,
    grants: { tokens: 200_000, mj: 0, suno: 0 }
  })
  return ctx.h.post<any>('/api/v1/pay/order/create', { packageId: pkg.id, provider: 'wechat', scene: 'jsapi', idempotencyKey: randomUUID() }, { token })
}

describe('WeChat Pay JSAPI with the official account’s login', () => {
  it('a phone account binds WeChat inside WeChat (web authorization), then pays by JSAPI with that openid', async () => {
    const { accessToken, accountId } = await ctx.h.login('13500000001')
    expect((await jsapiOrder(accessToken)).body).toMatchObject({ code: 40000001, message: '请先在微信内用微信登录，再使用微信支付' })

    oauth.user = { openid: 'oWebQr1', mpOpenid: 'oMpPayer1', unionid: 'uPayer1', nickname: '公众号用户' }
    const bind = await ctx.h.post<any>('/api/v1/auth/wechat/bind', { redirect: '/usercenter?id=recharge' }, { token: accessToken })
    const { to, back, done } = await wechatRoundTrip(new URL(bind.body.data.authorizeUrl).search.slice(1), WECHAT_UA)
    // Inside WeChat: the official account's web authorization, not the QR login.
    expect(to.pathname).toBe('/connect/oauth2/authorize')
    expect(to.searchParams.get('appid')).toBe(fake.appId)
    expect(to.searchParams.get('scope')).toBe('snsapi_userinfo')
    expect(back.searchParams.get('app')).toBe('mp')
    expect(done.status).toBe(302)
    const [identity] = await ctx.db.db.select().from(wechatIdentities).where(eq(wechatIdentities.openid, 'oMpPayer1'))
    expect(identity).toMatchObject({ appId: fake.appId, accountId })

    const res = await jsapiOrder(accessToken)
    expect(res.body.code).toBe(2000)
    const o = res.body.data
    const sent = fake.requests.find((r) => r.path === '/v3/pay/transactions/jsapi' && r.body.includes(o.orderId))
    expect(sent?.signOk).toBe(true)
    expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({ appid: fake.appId, payer: { openid: 'oMpPayer1' }, amount: { total: 1990 } })
    // WeixinJSBridge getBrandWCPayRequest parameters, signed with the merchant key.
    const p = o.payment
    expect(p).toMatchObject({ appId: fake.appId, signType: 'RSA' })
    expect(
      createVerify('RSA-SHA256').update(`${p.appId}\n${p.timeStamp}\n${p.nonceStr}\n${p.package}\n`).verify(fake.merchant.publicKey, p.paySign, 'base64')
    ).toBe(true)

    fake.pay(o.orderId)
    const n = fake.notify(o.orderId)
    expect((await ctx.h.request('/api/v1/pay/notify/wechat', { method: 'POST', headers: n.headers, body: n.body })).status).toBe(204)
    expect((await balancesOf(ctx.db.db, accountId)).tokens).toBe(200_000)
  })

  it('a QR login elsewhere, then a login inside WeChat: the same account (unionid), and the official account’s openid recorded too', async () => {
    oauth.user = { openid: 'oWebQr2', mpOpenid: 'oMpPayer2', unionid: 'uPayer2', nickname: '双端用户' }
    const web = await wechatRoundTrip('redirect=%2F', SAFARI_UA)
    expect(web.to.pathname).toBe('/connect/qrconnect')
    expect(web.back.searchParams.get('app')).toBeNull()
    const mp = await wechatRoundTrip('redirect=%2F', WECHAT_UA)
    expect(mp.to.pathname).toBe('/connect/oauth2/authorize')
    const rows = await ctx.db.db.select().from(wechatIdentities).where(eq(wechatIdentities.nickName, '双端用户'))
    expect(rows.map((r) => [r.appId, r.openid, r.unionid]).sort()).toEqual(
      [
        [oauth.appId, 'oWebQr2', 'uPayer2'],
        [fake.appId, 'oMpPayer2', null]
      ].sort()
    )
    expect(new Set(rows.map((r) => r.accountId)).size).toBe(1)
    // The session of the login inside WeChat pays by JSAPI.
    const token = /^lingxi_session=([^;]+);/.exec(mp.done.headers.getSetCookie().find((l) => l.startsWith('lingxi_session='))!)![1]!
    const res = await jsapiOrder(token)
    expect(res.body.code).toBe(2000)
    const sent = fake.requests.find((r) => r.path === '/v3/pay/transactions/jsapi' && r.body.includes(res.body.data.orderId))
    expect(JSON.parse(sent?.body ?? '{}').payer).toEqual({ openid: 'oMpPayer2' })
  })

  it('a code of one app is exchanged with that app only; system.json offers WeChat login', async () => {
    oauth.user = { openid: 'oWebQr3', nickname: '换码' }
    const start = await ctx.h.app.request('/api/v1/auth/wechat/authorize?redirect=%2F', { headers: { 'user-agent': WECHAT_UA } })
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!
    const state = new URL(start.headers.get('location')!.replace('#wechat_redirect', '')).searchParams.get('state')!
    // A code of the website app presented as the official account's: WeChat refuses it (40029).
    const code = oauth.issueCode(oauth.user, oauth.appId)
    const done = await ctx.h.app.request(`/api/v1/auth/wechat/callback?app=mp&code=${code}&state=${state}`, { headers: { cookie } })
    expect(done.status).toBe(400)
    expect(await done.text()).toContain('微信授权码无效')
    expect((await ctx.h.request('/config/system.json')).body).toMatchObject({ wechatLogin: true })
  })
})
