import { execFileSync } from 'node:child_process'
import { createHmac, randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { CSRF_HEADER, SESSION_COOKIE } from '../src/auth/cookie.js'
import { loadConfig } from '../src/config.js'
import { ConfigError } from '../src/config/env.js'
import { accounts, partnerIdentities, sessions } from '../src/db/schema.js'
import type { Api } from '../src/http/api.js'
import { useHarness } from './helpers/database-hooks.js'

// Issue 16, item 3 (docs/decisions/0020-partner-sso.md): a partner's backend signs a short-lived
// HS256 assertion; its page trades it for the normal session cookie, locked to its origins.

const ACME = 'https://acme.example'
const ACME_SHOP = 'https://shop.acme.example'
const GLOBEX = 'https://globex.example'
const OTHER = 'https://other.example'
const ACME_SECRET = 'acme-secret-0123456789-abcdefghijklmnop'
const GLOBEX_SECRET = 'globex-secret-0123456789-abcdefghijklmn'
const PARTNERS = [
  { id: 'acme', name: 'Acme 商城', origins: [ACME, ACME_SHOP], secret: ACME_SECRET, permissions: ['AI_TOOLS_CHAT'], start: { tokens: 5000, mj: 0 } },
  { id: 'globex', origins: [GLOBEX], secret: GLOBEX_SECRET, trusted: true }
]
let api: Api | undefined
const ctx = useHarness({ env: { CORS_ORIGINS: OTHER, LINGXI_PARTNERS: JSON.stringify(PARTNERS), START_TOKENS: '777' }, extend: (a) => (api = a) })
const IDENTIFY = '/api/v1/auth/partner/identify'
const INFO = '/api/v1/user/info'

type Login = { accessToken: string; accountId: string; phone: string }

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
/** A JWT made by hand, so that every field (and the header) can be wrong on purpose. */
function jwt(payload: Record<string, unknown>, secret = ACME_SECRET, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }) {
  const unsigned = `${b64(header)}.${b64(payload)}`
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`
}
function claims(over: Record<string, unknown> = {}) {
  const iat = Math.floor(ctx.h.clock.now() / 1000)
  return { iss: 'acme', sub: 'user-1', aud: 'lingxi', iat, exp: iat + 120, jti: randomUUID(), ...over }
}
/** An assertion as the partner's backend makes it, with its own clock. */
const sign = (sub: string, partnerId = 'acme', extra: { nickname?: string; phone?: string } = {}) =>
  jwt(claims({ iss: partnerId, sub, ...extra }), partnerId === 'acme' ? ACME_SECRET : GLOBEX_SECRET)
/** The copy-paste example of examples/partner-backend, run as a partner would run it (it signs with the real clock, as does the harness's). */
const EXAMPLE = new URL('../../examples/partner-backend/sign.mjs', import.meta.url)
const signWithExample = (sub: string) =>
  execFileSync(process.execPath, [EXAMPLE.pathname, 'acme', sub, '张三'], { env: { LINGXI_PARTNER_SECRET: ACME_SECRET }, encoding: 'utf8' }).trim()

function identify(assertion: string, origin: string | null = ACME) {
  return ctx.h.post<Login>(IDENTIFY, { assertion, platform: 'PC' }, { headers: origin ? { Origin: origin } : {} })
}
const cookieOf = (res: { headers: Headers }) =>
  /^lingxi_session=([^;]*)/.exec(res.headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`)) ?? '')?.[1] ?? ''
const withCookie = (token: string, origin: string | null) => ({
  headers: { Cookie: `${SESSION_COOKIE}=${token}`, [CSRF_HEADER]: '1', ...(origin ? { Origin: origin } : {}) }
})

async function expectRefused(assertion: string, message: RegExp, origin: string | null = ACME, code = 40300001) {
  const res = await identify(assertion, origin)
  expect(res.body.code).toBe(code)
  expect(res.status).toBe(code === 40300001 ? 403 : 400)
  expect(res.body.message).toMatch(message)
  expect(res.body.data).toBeNull()
  expect(cookieOf(res)).toBe('')
}

describe('partner identify', () => {
  it('logs the partner’s user in with the example script’s assertion: the session cookie, the partner’s tools and allowance', async () => {
    const res = await identify(signWithExample('user-42'))
    expect(res.body.code).toBe(2000)
    expect(res.body.message).toBe('登录成功！')
    expect(res.body.data.accessToken).toBe('')
    expect(res.body.data.phone).toBe('')
    expect(res.headers.get('access-control-allow-origin')).toBe(ACME)
    const token = cookieOf(res)
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const info = await ctx.h.post<{ accountId: string; nickName: string; phone: string; permissionCodes: string[] } & Record<string, unknown>>(
      INFO,
      {},
      withCookie(token, ACME_SHOP)
    )
    expect(info.body.code).toBe(2000)
    expect(info.body.data).toMatchObject({ accountId: res.body.data.accountId, nickName: '张三', phone: '', permissionCodes: ['AI_TOOLS_CHAT'] })
    // The partner's starting allowance; what it leaves out comes from START_*.
    expect(info.body.data.tokens).toBe(5000)
    expect(info.body.data.mjCount).toBe(0)
    expect(info.body.data.sunoCount).toBe(10)
    const [identity] = await ctx.db.db.select().from(partnerIdentities).where(eq(partnerIdentities.accountId, res.body.data.accountId))
    expect(identity).toMatchObject({ partnerId: 'acme', sub: 'user-42', phone: '' })
    const [session] = await ctx.db.db.select().from(sessions).where(eq(sessions.accountId, res.body.data.accountId))
    expect(session?.partnerId).toBe('acme')
  })

  it('finds the same account on the next identify, and never links by the phone the partner vouches for', async () => {
    const login = await ctx.h.login('13800138000')
    const first = await identify(sign('user-7', 'acme', { phone: '13800138000' }))
    ctx.h.clock.advance(1000)
    const second = await identify(sign('user-7', 'acme', { nickname: '改名', phone: '13900139000' }))
    expect(second.body.data.accountId).toBe(first.body.data.accountId)
    expect(first.body.data.accountId).not.toBe(login.accountId)
    // The nickname is taken when the account is made only (the user may change it in Lingxi).
    const [account] = await ctx.db.db.select().from(accounts).where(eq(accounts.id, first.body.data.accountId))
    expect(account?.nickName).toMatch(/^灵犀用户/)
    expect(account?.enCode).toBe('pt')
    // The phone is kept as the partner said it last, for the console; it logs nobody in.
    const [identity] = await ctx.db.db.select().from(partnerIdentities).where(eq(partnerIdentities.sub, 'user-7'))
    expect(identity?.phone).toBe('13900139000')
  })

  it('scopes accounts by partner: the same sub of two partners is two accounts', async () => {
    const acme = await identify(sign('shared-sub'))
    const globex = await identify(sign('shared-sub', 'globex'), GLOBEX)
    expect(acme.body.code).toBe(2000)
    expect(globex.body.code).toBe(2000)
    expect(acme.body.data.accountId).not.toBe(globex.body.data.accountId)
    // globex configured nothing: its users get DEFAULT_PERMISSIONS and START_* (START_TOKENS=777 here).
    const info = await ctx.h.post<{ tokens: number; permissionCodes: string[] }>(INFO, {}, withCookie(cookieOf(globex), GLOBEX))
    expect(info.body.data.tokens).toBe(777)
    expect(info.body.data.permissionCodes).toContain('AI_TOOLS_PAINTING')
  })

  it('makes one account when the first identifies of a user race', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => identify(sign('racer'))))
    expect(answers.map((a) => a.body.code)).toEqual(Array(6).fill(2000))
    expect(new Set(answers.map((a) => a.body.data.accountId)).size).toBe(1)
    const rows = await ctx.db.db.select().from(partnerIdentities).where(eq(partnerIdentities.sub, 'racer'))
    expect(rows).toHaveLength(1)
  })
})

describe('partner identify refuses', () => {
  it('a replayed assertion (the same jti), even after the first session ended', async () => {
    const assertion = sign('user-1')
    const first = await identify(assertion)
    expect(first.body.code).toBe(2000)
    await ctx.h.post('/api/v1/auth/logout', {}, withCookie(cookieOf(first), ACME))
    await expectRefused(assertion, /已被使用过（jti 重复）/)
    // From another allowed origin of the same partner too.
    await expectRefused(assertion, /jti 重复/, ACME_SHOP)
  })

  it('a wrong signature: another partner’s secret, a tampered payload, no signature', async () => {
    await expectRefused(jwt(claims(), GLOBEX_SECRET), /签名无效/)
    const good = jwt(claims())
    const [h, , s] = good.split('.')
    await expectRefused(`${h}.${b64(claims({ sub: 'admin' }))}.${s}`, /签名无效/)
    await expectRefused(`${h}.${b64(claims())}.`, /签名无效|无法验证/)
  })

  it('another algorithm than HS256 (none, HS512)', async () => {
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`
    await expectRefused(unsigned, /必须是 HS256（收到 none）/)
    await expectRefused(jwt(claims(), ACME_SECRET, { alg: 'HS512', typ: 'JWT' }), /必须是 HS256（收到 HS512）/)
  })

  it('a wrong or missing aud', async () => {
    await expectRefused(jwt(claims({ aud: 'someone-else' })), /受众 aud 必须是「lingxi」/)
    await expectRefused(jwt(claims({ aud: undefined })), /受众 aud/)
    expect((await identify(jwt(claims({ aud: ['x', 'lingxi'] })))).body.code).toBe(2000)
  })

  it('an unknown or missing iss', async () => {
    await expectRefused(jwt(claims({ iss: 'initech' })), /签发方 iss「initech」不是已配置的合作方/)
    await expectRefused(jwt(claims({ iss: undefined })), /不是已配置的合作方/)
  })

  it('an expired assertion, one living longer than 5 minutes, one from the future, one without exp', async () => {
    const assertion = jwt(claims())
    ctx.h.clock.advance(120_000 + 31_000)
    await expectRefused(assertion, /已过期/)
    const iat = Math.floor(ctx.h.clock.now() / 1000)
    await expectRefused(jwt(claims({ iat, exp: iat + 301 })), /有效期不能超过 5 分钟/)
    await expectRefused(jwt(claims({ iat: iat + 120, exp: iat + 200 })), /iat 晚于服务器当前时间/)
    await expectRefused(jwt(claims({ exp: undefined })), /必须带有 iat 和 exp/)
    // Within the leeway of a slightly slow partner clock it passes.
    expect((await identify(jwt(claims({ iat: iat + 10, exp: iat + 100 })))).body.code).toBe(2000)
  })

  it('no sub, no jti', async () => {
    await expectRefused(jwt(claims({ sub: '' })), /缺少 sub/)
    await expectRefused(jwt(claims({ jti: undefined })), /缺少 jti/)
  })

  it('a malformed assertion, a missing one', async () => {
    await expectRefused('not-a-jwt', /格式不正确/, ACME, 40000001)
    const res = await ctx.h.post(IDENTIFY, { platform: 'PC' }, { headers: { Origin: ACME } })
    expect(res.body.code).toBe(40000001)
    expect(res.body.message).toMatch(/缺少 assertion/)
  })

  it('a page of another origin (another partner’s, an unknown one) and a caller without Origin', async () => {
    await expectRefused(sign('user-1'), /合作方「acme」的登录只能在其网站发起（请求来源 https:\/\/globex.example/, GLOBEX)
    await expectRefused(sign('user-1'), /请求来源 https:\/\/other.example 不在其允许的来源中/, OTHER)
    await expectRefused(sign('user-1'), /只能由浏览器页面发起（请求缺少 Origin）/, null, 40000001)
  })
})

describe('a partner’s session', () => {
  it('works only from that partner’s origins', async () => {
    const res = await identify(sign('locked'))
    const token = cookieOf(res)
    for (const origin of [ACME, ACME_SHOP]) expect((await ctx.h.post(INFO, {}, withCookie(token, origin))).body.code).toBe(2000)
    for (const origin of [GLOBEX, OTHER, null]) {
      const refused = await ctx.h.post(INFO, {}, withCookie(token, origin))
      expect(refused.status).toBe(403)
      expect(refused.body.code).toBe(40300001)
      expect(refused.body.message).toMatch(/由合作方「acme」签发，只能在其网站使用/)
    }
    // As a bearer (a script that somehow got the token) it is locked just the same.
    const bearer = await ctx.h.post(INFO, {}, { token })
    expect(bearer.status).toBe(403)
    // Trading it for a fresh cookie keeps the lock.
    const traded = await ctx.h.post<Login>('/api/v1/auth/session-cookie', {}, withCookie(token, ACME))
    expect(traded.body.code).toBe(2000)
    const fresh = cookieOf(traded)
    expect((await ctx.h.post(INFO, {}, withCookie(fresh, OTHER))).status).toBe(403)
    expect((await ctx.h.post(INFO, {}, withCookie(fresh, ACME))).body.code).toBe(2000)
  })

  it('is the only kind locked: a phone login’s session works from any origin', async () => {
    const login = await ctx.h.login('13800138009')
    for (const origin of [OTHER, ACME, GLOBEX])
      expect((await ctx.h.post(INFO, {}, { token: login.accessToken, headers: { Origin: origin } })).body.code).toBe(2000)
  })

  it('ends when its partner is removed from the configuration', async () => {
    const res = await identify(sign('gone'))
    const token = cookieOf(res)
    api!.partnerOrigins = () => undefined
    const refused = await ctx.h.post(INFO, {}, withCookie(token, ACME))
    expect(refused.status).toBe(403)
    expect(refused.body.message).toMatch(/合作方「acme」已停用/)
  })
})

describe('the console', () => {
  it('lists the partners with their users, never their secrets; operators only', async () => {
    await identify(sign('one'))
    await identify(sign('two'))
    await identify(sign('one', 'globex'), GLOBEX)
    const operator = await ctx.h.login('13800138010')
    const refused = await ctx.h.post('/api/admin/partners', {}, { token: operator.accessToken })
    expect(refused.status).toBe(403)
    await ctx.db.db
      .update(accounts)
      .set({ permissionCodes: ['ADMIN'] })
      .where(eq(accounts.id, operator.accountId))
    ctx.h.clock.advance(10_000)
    const res = await ctx.h.post<{ list: Record<string, unknown>[] }>('/api/admin/partners', {}, { token: operator.accessToken })
    expect(res.body.code).toBe(2000)
    expect(res.body.data.list).toEqual([
      {
        id: 'acme',
        name: 'Acme 商城',
        origins: [ACME, ACME_SHOP],
        permissions: ['AI_TOOLS_CHAT'],
        start: { tokens: 5000, mj: 0, suno: 10 },
        trusted: false,
        users: 2
      },
      expect.objectContaining({ id: 'globex', name: 'globex', origins: [GLOBEX], trusted: true, users: 1 })
    ])
    expect(JSON.stringify(res.body)).not.toContain(ACME_SECRET)
  })
})

describe('partner configuration', () => {
  const env = (partners: unknown) => ({ DATA_DIR: '/tmp/lingxi-partner-config', LINGXI_PARTNERS: JSON.stringify(partners) })
  const problems = (partners: unknown) => {
    try {
      loadConfig(env(partners))
    } catch (error) {
      return error instanceof ConfigError ? error.problems.join('\n') : String(error)
    }
    return ''
  }

  it('adds the partners’ origins to CORS and the trusted ones to TRUSTED_ORIGINS', () => {
    const config = loadConfig({ ...env(PARTNERS), CORS_ORIGINS: OTHER })
    expect(config.corsOrigins).toEqual([OTHER, ACME, ACME_SHOP, GLOBEX])
    expect(config.trustedOrigins).toEqual([GLOBEX])
    expect(config.partners.map((p) => p.id)).toEqual(['acme', 'globex'])
  })

  it('stops the server at start on a short secret, a bad origin, a duplicate id, ADMIN, bad JSON', () => {
    expect(problems([{ id: 'a', origins: [ACME], secret: 'short' }])).toMatch(/secret must be at least 32 bytes/)
    expect(problems([{ id: 'a', origins: ['https://acme.example/path'], secret: ACME_SECRET }])).toMatch(/is not an origin/)
    expect(problems([{ id: 'a', origins: [], secret: ACME_SECRET }])).toMatch(/at least one origin/)
    expect(problems([PARTNERS[1], PARTNERS[1]])).toMatch(/"globex" appears twice/)
    expect(problems([{ id: 'a', origins: [ACME], secret: ACME_SECRET, permissions: ['ADMIN'] }])).toMatch(/may not give ADMIN/)
    expect(problems([{ id: 'a', origins: [ACME], secret: ACME_SECRET, permissions: ['NOPE'] }])).toMatch(/unknown permission NOPE/)
    let bad = ''
    try {
      loadConfig({ DATA_DIR: '/tmp/lingxi-partner-config', LINGXI_PARTNERS: '[{' })
    } catch (error) {
      bad = String(error)
    }
    expect(bad).toMatch(/LINGXI_PARTNERS: not valid JSON/)
  })
})
