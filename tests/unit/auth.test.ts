// @vitest-environment happy-dom
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { login, loginWithoutCode, logout, modifyPhone, refreshUser, sendModifyPhoneCode, sendSmsCode } from '../../src/core/auth'
import { configure } from '../../src/core/config'
import { getCookie } from '../../src/core/cookies'
import { installGlobalListeners } from '../../src/core/events'
import { $menu } from '../../src/core/menu'
import { loadPermissions, loadSystemConfig } from '../../src/core/permissions'
import { $loginOpen, $permissionTree, $systemConfig, $token, $user, openLogin } from '../../src/core/stores'
import { EVENT_LOGIN, EVENT_LOGOUT } from '../../src/core/wire'
import { fail, ok, startApi, type Api, type Call } from './helpers/api-server'
import { fullTree, node, systemConfig, user } from './helpers/fixtures'
import { recordEvents, resetCore, spyCookieWrites, toastTexts } from './helpers/reset'

let server: Api
const session = { accessToken: 'tok-new', accountId: 'acc-1', phone: '13800138000' }
const cookies = () => [getCookie('lingxi_token'), getCookie('lingxi_account_id'), getCookie('lingxi_phone')]
const stored = (key: string) => localStorage.getItem(key)

/**
 * Routes that need the right session, as the real server does: that bearer, or a call of the
 * page's cookie session (the CSRF header without a bearer; the fake server sees no cookie jar).
 */
function authed(token: string, reply: () => ReturnType<typeof ok>) {
  return (call: Call) => (call.authorization === `Bearer ${token}` || (!call.authorization && call.csrf === '1') ? reply() : fail(50011005, '登录已过期', 401))
}
const MARKER = /^session:/

beforeAll(async () => {
  server = await startApi()
  installGlobalListeners()
})
afterAll(() => server.close())
beforeEach(() => {
  resetCore()
  configure({ apiBase: server.url })
  server.calls.length = 0
  for (const key of Object.keys(server.routes)) delete server.routes[key]
  server.routes['/api/v1/user/info'] = authed('tok-new', () => ok(user))
  server.routes['/api/v1/userPermission'] = authed('tok-new', () => ok({ bodyList: fullTree() }))
})

describe('sendSmsCode', () => {
  it('sends the trimmed phone with the LOGIN fields and returns withoutCode', async () => {
    server.routes['/api/v1/auth/send-sms-code'] = () => ok({ withoutCode: 1 })
    expect(await sendSmsCode('852', ' 91234567 ')).toEqual({ withoutCode: 1 })
    expect(server.calls[0]?.body).toEqual({ enCode: '852', phone: '91234567', smsType: 'LOGIN', imgVerifyState: 1 })
  })

  it('rejects with the ApiError and changes nothing', async () => {
    server.routes['/api/v1/auth/send-sms-code'] = () => fail(50011007, '验证码发送过于频繁，请60秒后再试', 429)
    await expect(sendSmsCode('86', '13800138000')).rejects.toMatchObject({ code: 50011007 })
    expect(toastTexts()).toEqual([])
  })
})

describe('login', () => {
  beforeEach(() => {
    server.routes['/api/v1/auth/login'] = () => ok(session)
  })

  it('stores the session, loads user and permissions, closes the dialog, toasts and announces', async () => {
    openLogin()
    const events = recordEvents(EVENT_LOGIN)
    $systemConfig.set(systemConfig)
    await login({ enCode: '86', phone: ' 13800138000 ', code: ' 1234 ' })
    expect(server.to('/api/v1/auth/login')[0]?.body).toEqual({ enCode: '86', phone: '13800138000', code: '1234', platform: 'PC' })
    // ADR 0019: no readable cookie, and the page keeps a marker, not the token
    expect(cookies()).toEqual([null, null, null])
    expect($token.get()).toMatch(MARKER)
    // the calls after the login go with the cookie and the CSRF header, no bearer
    expect(server.to('/api/v1/user/info')[0]).toMatchObject({ authorization: undefined, csrf: '1' })
    expect($user.get()).toEqual(user)
    expect(JSON.parse(stored('lingxi-user-info')!)).toEqual(user)
    expect($permissionTree.get()).toEqual(fullTree())
    expect(JSON.parse(stored('premission menus')!)).toContain('AI_TOOLS_SD')
    expect($menu.get().map((m) => m.path)).toContain('/orders')
    expect($loginOpen.get()).toBe(false)
    expect(toastTexts()).toEqual(['success: 登录成功！'])
    expect(events.seen).toEqual([{ type: EVENT_LOGIN, detail: { accountId: 'acc-1', phone: '13800138000' } }])
    events.stop()
  })

  it('sends the configured platform instead of the detected one', async () => {
    configure({ platform: 'H5' })
    await login({ enCode: '86', phone: '13800138000', code: '1234' })
    expect(server.to('/api/v1/auth/login')[0]?.body).toMatchObject({ platform: 'H5' })
  })

  it('sends H5 from a mobile user agent', async () => {
    Object.defineProperty(navigator, 'userAgent', { value: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile/15E148', configurable: true })
    try {
      await login({ enCode: '86', phone: '13800138000', code: '1234' })
    } finally {
      delete (navigator as { userAgent?: string }).userAgent
    }
    expect(server.to('/api/v1/auth/login')[0]?.body).toMatchObject({ platform: 'H5' })
    expect(navigator.userAgent).toContain('HappyDOM')
  })

  it('writes no cookie and keeps no token, whatever the answer carries', async () => {
    configure({ cookieDomain: '.lingxi.test' })
    const { writes, restore } = spyCookieWrites()
    try {
      await login({ enCode: '86', phone: '13800138000', code: '1234' })
    } finally {
      restore()
    }
    expect(writes).toEqual([])
    expect(JSON.stringify({ token: $token.get(), user: $user.get(), stored: { ...localStorage } })).not.toContain('tok-new')
  })

  it('a wrong code rejects with the ApiError and stores nothing', async () => {
    server.routes['/api/v1/auth/login'] = () => fail(50011001, '验证码错误')
    openLogin()
    await expect(login({ enCode: '86', phone: '13800138000', code: '0000' })).rejects.toMatchObject({ code: 50011001 })
    expect(cookies()).toEqual([null, null, null])
    expect($token.get()).toBeNull()
    expect($loginOpen.get()).toBe('login')
  })

  it('still logs in when user info fails afterwards, and reports that failure', async () => {
    server.routes['/api/v1/user/info'] = () => ({ destroy: true })
    await login({ enCode: '86', phone: '13800138000', code: '1234' })
    expect($token.get()).toMatch(MARKER)
    expect(toastTexts()).toEqual(['success: 登录成功！', 'error: 系统异常，请稍后重试'])
  })
})

describe('loginWithoutCode', () => {
  it('logs in an allowlisted phone without a code', async () => {
    server.routes['/api/v1/auth/login-without-code'] = () => ok(session)
    const events = recordEvents(EVENT_LOGIN)
    await loginWithoutCode({ enCode: '86', phone: '13800138000' })
    expect(server.to('/api/v1/auth/login-without-code')[0]?.body).toEqual({ enCode: '86', phone: '13800138000', platform: 'PC' })
    expect($token.get()).toMatch(MARKER)
    expect($user.get()).toEqual(user)
    expect(events.types()).toEqual([EVENT_LOGIN])
    events.stop()
  })
})

describe('logout', () => {
  beforeEach(() => {
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    localStorage.setItem('premission menus', JSON.stringify(['AI_TOOLS_CHAT']))
    $token.set('session:old')
    $user.set(user)
    $permissionTree.set(fullTree())
  })

  it('clears storage and stores before calling logout with the session cookie (the server ends it)', async () => {
    let seenByServer: unknown
    server.routes['/api/v1/auth/logout'] = (call) => {
      seenByServer = {
        authorization: call.authorization,
        csrf: call.csrf,
        userInfo: stored('lingxi-user-info'),
        codes: stored('premission menus'),
        cookies: cookies(),
        token: $token.get(),
        user: $user.get()
      }
      return ok(null)
    }
    const events = recordEvents(EVENT_LOGOUT)
    await logout()
    expect(seenByServer).toEqual({
      authorization: undefined,
      csrf: '1',
      userInfo: null,
      codes: null,
      cookies: [null, null, null],
      token: null,
      user: null
    })
    expect($permissionTree.get()).toBeNull()
    expect(toastTexts()).toEqual(['success: 已退出登录，期待您再次回来'])
    expect(events.types()).toEqual([EVENT_LOGOUT])
    events.stop()
  })

  it('ignores a failing logout call', async () => {
    server.routes['/api/v1/auth/logout'] = () => fail(50011006, '会话已失效', 401)
    const events = recordEvents('lingxi-unauthorized', EVENT_LOGOUT)
    await logout()
    expect(events.types()).toEqual([EVENT_LOGOUT])
    expect(toastTexts()).toEqual(['success: 已退出登录，期待您再次回来'])
    expect($loginOpen.get()).toBe(false)
    events.stop()
  })

  it('works offline', async () => {
    configure({ apiBase: 'http://127.0.0.1:9' })
    await logout()
    expect(cookies()).toEqual([null, null, null])
    expect(toastTexts()).toEqual(['success: 已退出登录，期待您再次回来'])
  })
})

describe('change phone', () => {
  it('sendModifyPhoneCode posts the new phone', async () => {
    server.routes['/api/v1/auth/modify-phone-sms-code'] = () => ok(null)
    $token.set('tok-new')
    await sendModifyPhoneCode('86', ' 13900139000 ')
    expect(server.calls[0]).toMatchObject({ body: { enCode: '86', phone: '13900139000' }, authorization: 'Bearer tok-new' })
  })

  it('modifyPhone stores the fresh session, refreshes the user and toasts 修改成功！', async () => {
    const changed = { ...user, phone: '13900139000' }
    server.routes['/api/v1/auth/modify-phone'] = authed('tok-old', () => ok({ accessToken: 'tok-fresh', accountId: 'acc-1', phone: '13900139000' }))
    server.routes['/api/v1/user/info'] = authed('tok-fresh', () => ok(changed))
    $token.set('tok-old')
    openLogin('modify-phone')
    await modifyPhone({ enCode: '86', phone: '13900139000', code: '4321' })
    expect(server.to('/api/v1/auth/modify-phone')[0]?.body).toEqual({ enCode: '86', phone: '13900139000', code: '4321' })
    expect(cookies()).toEqual([null, null, null])
    expect($token.get()).toMatch(MARKER)
    expect($token.get()).not.toBe('tok-old')
    expect($user.get()?.phone).toBe('13900139000')
    expect(JSON.parse(stored('lingxi-user-info')!).phone).toBe('13900139000')
    expect($loginOpen.get()).toBe(false)
    expect(toastTexts()).toEqual(['success: 修改成功！'])
  })

  it('a taken number rejects and keeps the session', async () => {
    server.routes['/api/v1/auth/modify-phone'] = () => fail(50011009, '该手机号已被其他账号使用', 409)
    $token.set('tok-old')
    await expect(modifyPhone({ enCode: '86', phone: '13900139000', code: '4321' })).rejects.toMatchObject({ code: 50011009 })
    expect($token.get()).toBe('tok-old')
  })
})

describe('loaders', () => {
  it('refreshUser fills $user and the stored user info', async () => {
    $token.set('tok-new')
    expect(await refreshUser()).toEqual(user)
    expect($user.get()).toEqual(user)
    expect(JSON.parse(stored('lingxi-user-info')!)).toEqual(user)
  })

  it('loadPermissions asks nothing without a token', async () => {
    $permissionTree.set(fullTree())
    await loadPermissions()
    expect(server.calls).toEqual([])
    expect($permissionTree.get()).toBeNull()
  })

  it('loadPermissions stores the tree and the granted codes under `premission menus`', async () => {
    server.routes['/api/v1/userPermission'] = () => ok({ bodyList: [node('AI_TOOLS_CHAT'), node('AI_TOOLS_HOT', 0)] })
    $token.set('tok-new')
    await loadPermissions()
    expect(server.calls[0]?.body).toEqual({ appPermissionCode: 'AI_TOOLS' })
    expect($permissionTree.get()).toEqual([node('AI_TOOLS_CHAT'), node('AI_TOOLS_HOT', 0)])
    expect(JSON.parse(stored('premission menus')!)).toEqual(['AI_TOOLS_CHAT'])
  })

  it('loadSystemConfig fills $systemConfig from /config/system.json', async () => {
    server.routes['/config/system.json'] = () => ({ body: systemConfig })
    await loadSystemConfig()
    expect($systemConfig.get()).toEqual(systemConfig)
    expect(server.calls[0]?.method).toBe('GET')
  })

  it("loadSystemConfig keeps system.json's cookieDomain away from a page not under it", async () => {
    server.routes['/config/system.json'] = () => ({ body: { ...systemConfig, cookieDomain: '.lingxi.test' } })
    await loadSystemConfig()
    const { $config } = await import('../../src/core')
    expect($config.get().cookieDomain).toBe('')
  })
})

describe('toasts', () => {
  it('disappear after about 3 s, and can be dismissed earlier', async () => {
    vi.useFakeTimers()
    try {
      const { toast, $toasts, dismissToast } = await import('../../src/core')
      toast('一', 'info')
      toast('二', 'info')
      toast('二', 'info') // the same message is not stacked
      expect($toasts.get().map((t) => t.message)).toEqual(['一', '二'])
      dismissToast($toasts.get()[0]!.id)
      expect($toasts.get().map((t) => t.message)).toEqual(['二'])
      vi.advanceTimersByTime(2999)
      expect($toasts.get()).toHaveLength(1)
      vi.advanceTimersByTime(1)
      expect($toasts.get()).toEqual([])
    } finally {
      vi.useRealTimers()
    }
  })
})
