// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { user } from './helpers/fixtures'
import { writeCookie } from './helpers/cookie'

const KEY = Symbol.for('lingxi.v1')
type Core = typeof import('../../src/core')

/** A first visit: no anchor on the page, a fresh copy of core. */
async function freshCore(): Promise<Core> {
  delete (globalThis as Record<symbol, unknown>)[KEY]
  vi.resetModules()
  return import('../../src/core')
}

beforeEach(() => {
  writeCookie('lingxi_token=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/')
  localStorage.clear()
})

describe('lazy initial values', () => {
  it('$token and $user read the stored user info on first use, not at import: a marker, never a token', async () => {
    const core = await freshCore()
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    expect(core.$token.get()).toMatch(/^session:[a-z0-9]+$/)
    expect(core.$user.get()).toEqual(user)
    expect(core.$session.get()).toEqual({ accountId: user.accountId, phone: user.phone, nickName: user.nickName, avatarUrl: user.avatarUrl })
  })

  it('an older client’s readable token is not a session until startSession has traded it', async () => {
    const core = await freshCore()
    writeCookie('lingxi_token=tok-legacy; path=/')
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    expect(core.$token.get()).toBeNull()
    expect(core.currentSession()).toBeNull()
  })

  it('a subscriber gets the stored value first', async () => {
    const core = await freshCore()
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    const seen: unknown[] = []
    core.$user.subscribe((value) => seen.push(value?.accountId ?? null))()
    expect(seen).toEqual(['acc-1'])
  })

  it('a value set before first use wins over storage', async () => {
    const core = await freshCore()
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    core.$token.set(null)
    expect(core.$token.get()).toBeNull()
  })

  it('garbage in storage reads as logged out', async () => {
    const core = await freshCore()
    localStorage.setItem('lingxi-user-info', '{not json')
    expect(core.$user.get()).toBeNull()
  })
})

describe('the anchor', () => {
  it('is globalThis[Symbol.for("lingxi.v1")] = {v: 1, registry} holding the stores', async () => {
    const core = await freshCore()
    const anchor = (globalThis as Record<symbol, { v: number; registry: Record<string, unknown> }>)[KEY]!
    expect(anchor.v).toBe(1)
    expect(anchor.registry.$user).toBe(core.$user)
    expect(anchor.registry.$token).toBe(core.$token)
    expect(anchor.registry.$menu).toBe(core.$menu)
    expect(anchor.registry.$config).toBe(core.$config)
  })

  it('a second copy of core finds the first copy’s stores', async () => {
    const first = await freshCore()
    vi.resetModules()
    const second: Core = await import('../../src/core')
    expect(second).not.toBe(first)
    expect(second.$user).toBe(first.$user)
    first.$user.set(user)
    expect(second.$user.get()).toEqual(user)
  })

  it("takes the loader's boot config (data-api, cookie domain)", async () => {
    delete (globalThis as Record<symbol, unknown>)[KEY]
    ;(globalThis as Record<symbol, unknown>)[KEY] = {
      v: 1,
      registry: {},
      boot: { apiBase: 'https://api.lingxi.test/', cookieDomain: '.lingxi.test' }
    }
    vi.resetModules()
    const core: Core = await import('../../src/core')
    expect(core.$config.get()).toEqual({ apiBase: 'https://api.lingxi.test', cookieDomain: '.lingxi.test' })
    core.configure({ apiBase: 'http://127.0.0.1:1/', platform: 'H5' })
    expect(core.$config.get()).toEqual({ apiBase: 'http://127.0.0.1:1', cookieDomain: '.lingxi.test', platform: 'H5' })
  })
})
