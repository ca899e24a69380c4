import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { CSRF_HEADER, CSRF_REFUSED, SESSION_COOKIE } from '../src/auth/cookie.js'
import { BROWSER_SESSION_MAX_MS, BROWSER_SESSION_TTL_MS, sha256Hex } from '../src/auth/tokens.js'
import { sessions } from '../src/db/schema.js'
import { useHarness } from './helpers/database-hooks.js'

// ADR 0019: a browser's session is an HttpOnly, Secure, SameSite=None, Partitioned cookie of the
// API origin, authenticating credentialed calls that carry the CSRF header; short and renewed on use.

const PARTNER = 'https://partner.example'
const TRUSTED = 'https://trusted.example'
const ctx = useHarness({ env: { CORS_ORIGINS: `${PARTNER},${TRUSTED}`, TRUSTED_ORIGINS: TRUSTED } })
const INFO = '/api/v1/user/info'
const LOGOUT = '/api/v1/auth/logout'
const DAY = 24 * 3600 * 1000

/** Logs in as a page of `origin` would; returns the answer, the cookie's token and its Set-Cookie line. */
async function browserLogin(phone: string, origin = PARTNER) {
  expect((await ctx.h.sendCode(phone)).body.code).toBe(2000)
  const code = ctx.h.lastCode(phone)
  const res = await ctx.h.post<{ accessToken: string; accountId: string; phone: string }>(
    '/api/v1/auth/login',
    { enCode: '86', phone, code, platform: 'PC' },
    { headers: { Origin: origin } }
  )
  expect(res.body.code).toBe(2000)
  ctx.h.clock.advance(61_000)
  const line = res.headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`)) ?? ''
  const token = /^lingxi_session=([^;]*)/.exec(line)?.[1] ?? ''
  return { res, token, line }
}

/** A credentialed call of a partner page: the cookie, its Origin and the CSRF header. */
function withCookie(token: string, extra: Record<string, string> = {}) {
  return { headers: { Origin: PARTNER, Cookie: `${SESSION_COOKIE}=${token}`, [CSRF_HEADER]: '1', ...extra } }
}

const cookieLine = (res: { headers: Headers }) => res.headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`))

describe('the session cookie', () => {
  it('is set on a browser login: HttpOnly, Secure, SameSite=None, Partitioned, 7 days, on /api/', async () => {
    const { res, token, line } = await browserLogin('13800138000')
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // The page's scripts never see the token: the answer's body carries none.
    expect(res.body.data.accessToken).toBe('')
    expect(JSON.stringify(res.body)).not.toContain(token)
    const attributes = line.split(';').map((a) => a.trim())
    expect(attributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=None', 'Partitioned', 'Path=/api/', `Max-Age=${BROWSER_SESSION_TTL_MS / 1000}`])
    )
    expect(line).not.toMatch(/Domain=/i)
    // The credentialed answer names the one origin.
    expect(res.headers.get('access-control-allow-origin')).toBe(PARTNER)
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    expect(res.headers.get('vary')).toMatch(/Origin/)
    const [row] = await ctx.db.db
      .select()
      .from(sessions)
      .where(eq(sessions.tokenHash, sha256Hex(token)))
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(BROWSER_SESSION_TTL_MS)
  })

  it('is not set for a caller without Origin (scripts, the CLI), which gets the long bearer', async () => {
    const sent = await ctx.h.sendCode('13800138001')
    expect(sent.body.code).toBe(2000)
    const res = await ctx.h.post<{ accessToken: string; phone: string }>('/api/v1/auth/login', {
      enCode: '86',
      phone: '13800138001',
      code: ctx.h.lastCode('13800138001'),
      platform: 'PC'
    })
    expect(cookieLine(res)).toBeUndefined()
    expect(res.body.data.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(res.body.data.phone).toBe('13800138001')
  })

  it('authenticates a call with the CSRF header, and refuses one without it', async () => {
    const { token } = await browserLogin('13800138000')
    const ok = await ctx.h.post<{ phone: string }>(INFO, {}, withCookie(token))
    expect(ok.body.code).toBe(2000)
    const before = await ctx.h.snapshot()
    const refused = await ctx.h.post(INFO, {}, { headers: { Origin: PARTNER, Cookie: `${SESSION_COOKIE}=${token}` } })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ code: 40300001, message: CSRF_REFUSED, data: null })
    // A cross-site form post (no header, any origin) cannot log out either.
    const logout = await ctx.h.post(LOGOUT, {}, { headers: { Origin: 'https://evil.example', Cookie: `${SESSION_COOKIE}=${token}` } })
    expect(logout.body.code).toBe(40300001)
    expect(await ctx.h.snapshot()).toEqual(before)
    expect((await ctx.h.post(INFO, {}, withCookie(token))).body.code).toBe(2000)
  })

  it('gives way to an Authorization header', async () => {
    const { token } = await browserLogin('13800138000')
    const res = await ctx.h.post(INFO, {}, withCookie(token, { Authorization: `Bearer ${'x'.repeat(43)}` }))
    expect(res.body.code).toBe(50011005)
    // The same session also works as a bearer (scripts, tests).
    expect((await ctx.h.post(INFO, {}, { token })).body.code).toBe(2000)
  })

  it('answers 50011004 without cookie or bearer', async () => {
    const res = await ctx.h.post(INFO, {}, { headers: { Origin: PARTNER, [CSRF_HEADER]: '1' } })
    expect(res.body.code).toBe(50011004)
  })

  it('is cleared by logout, and the session is revoked at once despite the cache', async () => {
    const { token } = await browserLogin('13800138000')
    expect((await ctx.h.post(INFO, {}, withCookie(token))).body.code).toBe(2000) // now cached
    const out = await ctx.h.post(LOGOUT, {}, withCookie(token))
    expect(out.body.code).toBe(2000)
    expect(cookieLine(out)).toMatch(/^lingxi_session=;.*Max-Age=0/)
    const after = await ctx.h.post(INFO, {}, withCookie(token))
    expect(after.body.code).toBe(50011006)
    // The browser is told to forget a cookie whose session ended.
    expect(cookieLine(after)).toMatch(/Max-Age=0/)
  })

  it('ends when the account’s sessions are revoked by a bearer call (phone change elsewhere)', async () => {
    const { token } = await browserLogin('13800138000')
    expect((await ctx.h.post(INFO, {}, withCookie(token))).body.code).toBe(2000)
    expect((await ctx.h.post(LOGOUT, {}, { token })).body.code).toBe(2000)
    expect((await ctx.h.post(INFO, {}, withCookie(token))).body.code).toBe(50011006)
  })
})

describe('sliding expiry', () => {
  it('renews on use at most hourly, expires after 7 idle days, and never past 30 days', async () => {
    const { token } = await browserLogin('13800138000')
    const expiry = async () =>
      (
        await ctx.db.db
          .select()
          .from(sessions)
          .where(eq(sessions.tokenHash, sha256Hex(token)))
      )[0]!.expiresAt.getTime()
    const first = await expiry()
    ctx.h.clock.advance(30 * 60_000)
    const early = await ctx.h.post(INFO, {}, withCookie(token))
    expect(cookieLine(early)).toBeUndefined()
    expect(await expiry()).toBe(first)
    ctx.h.clock.advance(31 * 60_000 + 6_000) // the cache forgets the session; more than an hour since the login
    const renewed = await ctx.h.post(INFO, {}, withCookie(token))
    expect(renewed.body.code).toBe(2000)
    expect(await expiry()).toBe(ctx.h.clock.now() + BROWSER_SESSION_TTL_MS)
    expect(cookieLine(renewed)).toContain(`Max-Age=${BROWSER_SESSION_TTL_MS / 1000}`)
    // Used every 6 days it lives on, until 30 days after the login.
    for (let day = 6; day < 30; day += 6) {
      ctx.h.clock.advance(6 * DAY)
      expect((await ctx.h.post(INFO, {}, withCookie(token))).body.code).toBe(2000)
    }
    const [row] = await ctx.db.db
      .select()
      .from(sessions)
      .where(eq(sessions.tokenHash, sha256Hex(token)))
    expect(row!.expiresAt.getTime()).toBe(row!.createdAt.getTime() + BROWSER_SESSION_MAX_MS)
    ctx.h.clock.advance(row!.expiresAt.getTime() - ctx.h.clock.now())
    expect((await ctx.h.post(INFO, {}, withCookie(token))).body.code).toBe(50011005)
  })

  it('expires after 7 days without use', async () => {
    const { token } = await browserLogin('13800138000')
    ctx.h.clock.advance(BROWSER_SESSION_TTL_MS - 61_000 - 1000)
    expect((await ctx.h.post(INFO, {}, withCookie(token))).body.code).toBe(2000)
    const other = await browserLogin('13800138002')
    ctx.h.clock.advance(BROWSER_SESSION_TTL_MS)
    expect((await ctx.h.post(INFO, {}, withCookie(other.token))).body.code).toBe(50011005)
  })
})

describe('the phone number a page sees', () => {
  it('is masked for a partner, whole for a trusted partner and for the site itself', async () => {
    expect((await browserLogin('13800135678')).res.body.data.phone).toBe('138****5678')
    expect((await browserLogin('13800135678', TRUSTED)).res.body.data.phone).toBe('13800135678')
    expect((await browserLogin('13800135678', new URL(ctx.h.config.publicUrl).origin)).res.body.data.phone).toBe('13800135678')
  })
})

describe('user/info', () => {
  it('masks the phone for a partner page, not for a trusted partner, the site itself or a script', async () => {
    const { token } = await browserLogin('13800135678')
    const partner = await ctx.h.post<{ phone: string }>(INFO, {}, withCookie(token))
    expect(partner.body.data.phone).toBe('138****5678')
    expect(JSON.stringify(partner.body)).not.toContain('13800135678')
    const trusted = await ctx.h.post<{ phone: string }>(INFO, {}, withCookie(token, { Origin: TRUSTED }))
    expect(trusted.body.data.phone).toBe('13800135678')
    const site = await ctx.h.post<{ phone: string }>(INFO, {}, withCookie(token, { Origin: new URL(ctx.h.config.publicUrl).origin }))
    expect(site.body.data.phone).toBe('13800135678')
    expect((await ctx.h.post<{ phone: string }>(INFO, {}, { token })).body.data.phone).toBe('13800135678')
    // The profile answer (user center) too.
    const saved = await ctx.h.post<{ phone: string; nickName: string }>('/api/v1/user/profile/save', { nickName: '小灵' }, withCookie(token))
    expect(saved.body.data).toMatchObject({ phone: '138****5678', nickName: '小灵' })
    const unchanged = await ctx.h.post<{ phone: string }>('/api/v1/user/profile/save', {}, withCookie(token, { Origin: TRUSTED }))
    expect(unchanged.body.data.phone).toBe('13800135678')
    // A forged Origin on a bearer call changes only what that caller sees.
    expect((await ctx.h.post<{ phone: string }>(INFO, {}, { token, headers: { Origin: 'https://evil.example' } })).body.data.phone).toBe('138****5678')
  })
})

describe('CORS with credentials', () => {
  it('lets an allowed origin send the CSRF header with credentials, and nobody else', async () => {
    const preflight = (origin: string) =>
      ctx.h.request('/api/v1/user/info', {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, x-lingxi-request' }
      })
    const ok = await preflight(PARTNER)
    expect(ok.headers.get('access-control-allow-origin')).toBe(PARTNER)
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true')
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/X-Lingxi-Request/i)
    expect(ok.headers.get('vary')).toMatch(/Origin/)
    const evil = await preflight('https://evil.example')
    expect(evil.headers.get('access-control-allow-origin')).toBeNull()
    expect(evil.headers.get('access-control-allow-credentials')).toBeNull()
  })
})

describe('auth/session-cookie (a legacy readable bearer traded for the cookie)', () => {
  it('opens a cookie session for a browser and ends the bearer’s', async () => {
    const { accessToken } = await ctx.h.login('13800135678')
    const res = await ctx.h.post<{ accessToken: string; phone: string }>(
      '/api/v1/auth/session-cookie',
      {},
      { token: accessToken, headers: { Origin: PARTNER } }
    )
    expect(res.body.code).toBe(2000)
    expect(res.body.data.phone).toBe('138****5678')
    expect(res.body.data.accessToken).toBe('')
    const token = /^lingxi_session=([^;]*)/.exec(cookieLine(res) ?? '')?.[1] ?? ''
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(token).not.toBe(accessToken)
    expect((await ctx.h.post(INFO, {}, { token: accessToken })).body.code).toBe(50011006)
    expect((await ctx.h.post(INFO, {}, withCookie(token))).body.code).toBe(2000)
  })

  it('is refused without Origin (not a browser) and leaves the bearer alone', async () => {
    const { accessToken } = await ctx.h.login('13800135678')
    const res = await ctx.h.post('/api/v1/auth/session-cookie', {}, { token: accessToken })
    expect(res.body.code).toBe(40000001)
    expect(cookieLine(res)).toBeUndefined()
    expect((await ctx.h.post(INFO, {}, { token: accessToken })).body.code).toBe(2000)
  })
})

describe('the site itself', () => {
  it('sees the full phone when its page calls the host it was served from, whatever PUBLIC_URL says', async () => {
    expect((await browserLogin('13800135678', 'http://lingxi.internal:8080')).res.body.data.phone).toBe('138****5678')
    const sent = await ctx.h.sendCode('13800135670')
    expect(sent.body.code).toBe(2000)
    const res = await ctx.h.post<{ phone: string }>(
      '/api/v1/auth/login',
      { enCode: '86', phone: '13800135670', code: ctx.h.lastCode('13800135670'), platform: 'PC' },
      { headers: { Origin: 'http://lingxi.internal:8080', Host: 'lingxi.internal:8080' } }
    )
    expect(res.body.data.phone).toBe('13800135670')
  })
})
