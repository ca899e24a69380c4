import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CERTIFICATES_REFRESH_MS } from '../src/modules/payments/wechat-certificates.js'
import { createWechatV3Provider } from '../src/modules/payments/wechat-v3.js'
import { type FakeWechatPayV3, startFakeWechatPayV3 } from './fakes/wechat-pay-v3.js'
import { memoryLogger } from './helpers/harness.js'
import { ALLOWANCES, balancesOf } from './helpers/allowances.js'
import { useWechatPayHarness } from './helpers/wechat-pay.js'
import { createPackage } from '../src/modules/payments/packages.js'

// Issue 21: a merchant without a configured WeChat Pay public key verifies answers and notifies
// with the platform certificates downloaded from GET /v3/certificates (each decrypted with the
// APIv3 key, its serial and validity checked, the download's own signature verified), cached and
// downloaded again every 12 hours and when a new serial shows up. The fake serves them encrypted as
// WeChat Pay does.

let t = Date.now()
const clock = { now: () => t, advance: (ms: number) => (t += ms) }
let fake: FakeWechatPayV3
beforeAll(async () => {
  fake = await startFakeWechatPayV3({ now: clock.now, platform: 'certificates' })
})
afterAll(async () => {
  await fake?.close()
})

const downloads = () => fake.requests.filter((r) => r.path === '/v3/certificates')
function provider() {
  const logger = memoryLogger()
  return { p: createWechatV3Provider(fake.settings(), { now: clock.now, logger }), logger }
}
const createOrder = (p: ReturnType<typeof provider>['p']) => {
  const orderId = `LX${randomUUID().replace(/-/g, '').slice(0, 20)}`
  return p
    .create({ orderId, amountFen: 990, description: '灵犀-测试', scene: 'native', expiresAt: new Date(t + 900_000), clientIp: '203.0.113.7' })
    .then((payment) => ({ orderId, payment }))
}
const rawNotify = (n: { headers: Record<string, string>; body: string }) => ({
  header: (name: string) => Object.entries(n.headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1],
  body: n.body
})

describe('WeChat Pay platform certificates', () => {
  it('are downloaded (signed request), decrypted and used to verify answers and notifies; cached afterwards', async () => {
    expect(fake.settings()).toMatchObject({ platformKey: undefined, platformSerial: undefined })
    const { p } = provider()
    const before = downloads().length
    const { orderId, payment } = await createOrder(p)
    expect(payment.codeUrl).toMatch(/^weixin:\/\//)
    expect(downloads().length - before).toBe(1)
    // The download is a call like any other: signed with the merchant key, checked by the fake.
    expect(downloads().at(-1)?.signOk).toBe(true)
    expect(fake.platformSerial).toMatch(/^[0-9A-F]{40}$/)

    fake.pay(orderId)
    const verified = await p.verifyNotify(rawNotify(fake.notify(orderId)))
    expect(verified).toMatchObject({ ok: true, orderId, amountFen: 990, paid: true })
    expect(await p.query(orderId)).toMatchObject({ state: 'paid', amountFen: 990 })
    // Cached: neither the notify nor the query downloaded again.
    expect(downloads().length - before).toBe(1)
    // A notify signed by someone else under the same serial is still refused.
    const forged = fake.notify(orderId, { signWith: fake.merchant.privateKey })
    expect(await p.verifyNotify(rawNotify(forged))).toEqual({ ok: false, reason: 'bad Wechatpay-Signature' })
  })

  it('are downloaded again after 12 hours, and when a new certificate signs (rotation)', async () => {
    const { p } = provider()
    const { orderId } = await createOrder(p)
    const before = downloads().length
    clock.advance(CERTIFICATES_REFRESH_MS)
    await p.query(orderId)
    expect(downloads().length - before).toBe(1)

    // WeChat Pay rotates: the new certificate signs, both are listed.
    clock.advance(61_000)
    const next = fake.rotate()
    expect(fake.certificates).toHaveLength(2)
    expect(await p.query(orderId)).toMatchObject({ state: 'pending' })
    expect(downloads().length - before).toBe(2)
    fake.pay(orderId)
    const n = fake.notify(orderId)
    expect(n.headers['Wechatpay-Serial']).toBe(next?.serial)
    expect(await p.verifyNotify(rawNotify(n))).toMatchObject({ ok: true, orderId, paid: true })
  })

  it('an unknown serial downloads at most once a minute, and is refused', async () => {
    const { p } = provider()
    const { orderId } = await createOrder(p)
    fake.pay(orderId)
    const before = downloads().length
    const strangers = Array.from({ length: 5 }, () => fake.notify(orderId, { serial: '7ABCDEF0123456789ABCDEF0123456789ABCDEF0' }))
    clock.advance(61_000)
    for (const n of strangers)
      expect(await p.verifyNotify(rawNotify(n))).toMatchObject({ ok: false, reason: expect.stringMatching(/^unknown Wechatpay-Serial/) })
    expect(downloads().length - before).toBe(1)
  })

  for (const [trouble, what] of [
    ['wrong-apiv3-key', 'certificates encrypted with another APIv3 key'],
    ['bad-signature', 'a download not signed by the certificates it lists'],
    ['serial-mismatch', 'a serial_no that is not the certificate’s'],
    ['expired', 'an expired certificate'],
    ['error', 'an error answer']
  ] as const) {
    it(`refuses ${what}: nothing is trusted, answers and notifies fail, the failure is logged`, async () => {
      const { orderId } = await createOrder(provider().p)
      fake.pay(orderId)
      const n = fake.notify(orderId)
      fake.troubleCertificates(trouble)
      try {
        const { p, logger } = provider()
        await expect(p.query(orderId)).rejects.toMatchObject({ code: 'BAD_SIGNATURE' })
        clock.advance(61_000)
        expect(await p.verifyNotify(rawNotify(n))).toMatchObject({ ok: false, reason: expect.stringMatching(/^unknown Wechatpay-Serial/) })
        expect(logger.entries.some((l) => /downloading the wechat pay platform certificates failed/.test(JSON.stringify(l)))).toBe(true)
      } finally {
        fake.troubleCertificates('none')
      }
    })
  }

  it('a failed refresh keeps the certificates already held', async () => {
    const { p, logger } = provider()
    const { orderId } = await createOrder(p)
    fake.troubleCertificates('bad-signature')
    try {
      clock.advance(CERTIFICATES_REFRESH_MS)
      expect(await p.query(orderId)).toMatchObject({ state: 'pending' })
      expect(logger.entries.some((l) => /certificates failed/.test(JSON.stringify(l)))).toBe(true)
    } finally {
      fake.troubleCertificates('none')
    }
  })
})

describe('the server with WeChat Pay and no public key configured', () => {
  const { ctx, fake: served } = useWechatPayHarness({ platform: 'certificates' })

  it('credits an order from a notify verified with the downloaded certificate', async () => {
    const pkg = await createPackage(ctx.db.db, ALLOWANCES, { name: '证书包', priceFen: 990, grants: { tokens: 1000, mj: 0, suno: 0 } })
    const { accessToken, accountId } = await ctx.h.login('13800138000')
    const res = await ctx.h.post<any>(
      '/api/v1/pay/order/create',
      { packageId: pkg.id, provider: 'wechat', scene: 'native', idempotencyKey: randomUUID() },
      { token: accessToken }
    )
    expect(res.body.code).toBe(2000)
    served.pay(res.body.data.orderId)
    const n = served.notify(res.body.data.orderId)
    expect((await ctx.h.request('/api/v1/pay/notify/wechat', { method: 'POST', headers: n.headers, body: n.body })).status).toBe(204)
    expect((await balancesOf(ctx.db.db, accountId)).tokens).toBe(1000)
    expect(served.requests.filter((r) => r.path === '/v3/certificates')).toHaveLength(1)
  })
})
