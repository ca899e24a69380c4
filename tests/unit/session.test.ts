// @vitest-environment happy-dom
import { allTasks } from 'nanostores'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { consumeRedirectLogin, parseLoginPayload, startSession } from '../../src/core/auth'
import { configure } from '../../src/core/config'
import { getCookie } from '../../src/core/cookies'
import { confirm } from '../../src/core/emit'
import { answerConfirm, installGlobalListeners } from '../../src/core/events'
import { $menu } from '../../src/core/menu'
import { $confirm, $loginOpen, $permissionTree, $systemConfig, $token, $user } from '../../src/core/stores'
import { EVENT_LOGIN, EVENT_LOGOUT, EVENT_UNAUTHORIZED, EVENT_WX_LOGIN } from '../../src/core/wire'
import { fail, ok, startApi, type Api, type Call } from './helpers/api-server'
import { writeCookie } from './helpers/cookie'
import { fullTree, systemConfig, user } from './helpers/fixtures'
import { recordEvents, resetCore, toastTexts } from './helpers/reset'

let server: Api

/** base64 of UTF-8 JSON, as the WeChat callback builds it. */
const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64')
const fire = (name: string, detail?: unknown) => window.dispatchEvent(new CustomEvent(name, { detail }))
const tick = () => new Promise((resolve) => setTimeout(resolve, 30))
const MARKER = /^session:/
const legacyCookies = () => [getCookie('lingxi_token'), getCookie('lingxi_account_id'), getCookie('lingxi_phone')]
/** Whether the fake API holds a cookie session for the page (it sees no cookie jar: the CSRF header stands for it). */
let cookieOpen = true
const signedIn = (call: Call) => Boolean(call.authorization) || (cookieOpen && call.csrf === '1')

beforeAll(async () => {
  server = await startApi()
})
afterAll(() => server.close())
beforeEach(() => {
  resetCore()
  configure({ apiBase: server.url })
  server.calls.length = 0
  server.routes['/config/system.json'] = () => ({ body: systemConfig })
  cookieOpen = true
  server.routes['/api/v1/user/info'] = (call) => (signedIn(call) ? ok(user) : fail(50011004, '未登录', 401))
  server.routes['/api/v1/userPermission'] = () => ok({ bodyList: fullTree() })
})

describe('redirect login (?login=)', () => {
  // What the WeChat callback sends now: who logged in, no token (the session is its cookie).
  const payload = { accessToken: '', accountId: 'acc-9', phone: '13800138000' }

  it('marks a session open for a valid payload and takes it off the address bar, keeping other params and the hash', () => {
    history.replaceState(null, '', `/chat?from=wx&login=${encodeURIComponent(encode(payload))}&x=1#top`)
    expect(consumeRedirectLogin()).toEqual(payload)
    expect(location.pathname + location.search + location.hash).toBe('/chat?from=wx&x=1#top')
    expect(legacyCookies()).toEqual([null, null, null])
    expect($token.get()).toMatch(MARKER)
  })

  it('is UTF-8 safe and accepts URL-safe base64, unpadded, and a + turned into a space', () => {
    const withChinese = { ...payload, nickName: '灵犀用户😀' }
    const b64 = encode(withChinese)
    expect(parseLoginPayload(b64)).toEqual(payload)
    expect(parseLoginPayload(b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''))).toEqual(payload)
    // an older server's payload still carried a token
    const plus = encode({ ...payload, accessToken: 'ab>?>?' })
    expect(plus).toContain('+')
    expect(parseLoginPayload(plus.replace(/\+/g, ' '))?.accessToken).toBe('ab>?>?')
    expect(parseLoginPayload(encode({ ...payload, accountId: 42 }))?.accountId).toBe('42')
  })

  it.each([
    ['not base64', '%%%'],
    ['not JSON', btoa('hello')],
    ['no token', encode({ accountId: 'a', phone: '1' })],
    ['token not a string', encode({ accessToken: 1, accountId: 'a', phone: '1' })],
    ['no accountId', encode({ accessToken: 't', phone: '1' })],
    ['no phone', encode({ accessToken: 't', accountId: 'a' })],
    ['an array', encode(['t', 'a', '1'])],
    ['null', encode(null)]
  ])('ignores %s with a warning (and still cleans the URL)', (_, value) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    history.replaceState(null, '', `/chat?login=${encodeURIComponent(value)}`)
    expect(consumeRedirectLogin()).toBeNull()
    expect(warn).toHaveBeenCalledOnce()
    warn.mockRestore()
    expect(location.search).toBe('')
    expect(getCookie('lingxi_token')).toBeNull()
    expect($token.get()).toBeNull()
  })

  it('does nothing without the parameter', () => {
    history.replaceState(null, '', '/chat?x=1')
    expect(consumeRedirectLogin()).toBeNull()
    expect(location.search).toBe('?x=1')
  })
})

describe('startSession', () => {
  it('logged out: loads system config only, and the menu is the default', async () => {
    await startSession()
    expect(server.calls.map((c) => c.path)).toEqual(['/config/system.json'])
    expect($systemConfig.get()).toEqual(systemConfig)
    expect($menu.get().map((m) => m.permissionCode)).not.toContain('AI_TOOLS_ORDER_PLATFORM')
    expect($menu.get()).toHaveLength(7)
  })

  it('after a reload (stored user info): the session is restored with the cookie and confirmed by user/info', async () => {
    localStorage.setItem('lingxi-user-info', JSON.stringify({ ...user, nickName: '旧昵称' }))
    $token.set('session:restored') // what a fresh page reads from the stored user info (stores.test.ts)
    await startSession()
    expect(server.calls.map((c) => `${c.path} ${c.authorization ?? ''} ${c.csrf ?? ''}`).sort()).toEqual([
      '/api/v1/user/info  1',
      '/api/v1/userPermission  1',
      '/config/system.json  '
    ])
    expect($user.get()).toEqual(user)
    expect($permissionTree.get()).toEqual(fullTree())
    expect($menu.get().map((m) => m.permissionCode)).toContain('AI_TOOLS_ORDER_PLATFORM')
  })

  it('after a reload whose cookie session ended: logged out, login opens', async () => {
    installGlobalListeners()
    cookieOpen = false
    server.routes['/api/v1/userPermission'] = () => fail(50011004, '未登录', 401)
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    $token.set('session:restored')
    await startSession()
    expect($token.get()).toBeNull()
    expect($user.get()).toBeNull()
    expect(localStorage.getItem('lingxi-user-info')).toBeNull()
    expect($loginOpen.get()).toBe('login')
  })

  it('an older client’s readable token is traded once for the session cookie, then deleted', async () => {
    writeCookie('lingxi_token=tok-legacy; path=/')
    writeCookie('lingxi_account_id=acc-1; path=/')
    writeCookie('lingxi_phone=13800138000; path=/')
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    // not before the trade: nothing may ask with a cookie that is not there yet
    expect($token.get()).toBeNull()
    server.routes['/api/v1/auth/session-cookie'] = (call) =>
      call.authorization === 'Bearer tok-legacy' ? ok({ accessToken: '', accountId: 'acc-1', phone: '138****8000' }) : fail(50011005, '登录已过期', 401)
    await startSession()
    expect(server.to('/api/v1/auth/session-cookie')).toHaveLength(1)
    expect(legacyCookies()).toEqual([null, null, null])
    expect($token.get()).toMatch(MARKER)
    expect(server.to('/api/v1/user/info')[0]).toMatchObject({ authorization: undefined, csrf: '1' })
    expect($user.get()).toEqual(user)
  })

  it('a readable token the server refuses is deleted; a cookie session another tab opened still counts', async () => {
    writeCookie('lingxi_token=tok-traded-elsewhere; path=/')
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    server.routes['/api/v1/auth/session-cookie'] = () => fail(50011006, '会话已失效', 401)
    await startSession()
    expect(getCookie('lingxi_token')).toBeNull()
    expect($token.get()).toMatch(MARKER)
    expect($user.get()).toEqual(user)
    expect(toastTexts()).toEqual([])
  })

  it('consumes a redirect login, then loads that user, toasts and announces the login', async () => {
    const events = recordEvents(EVENT_LOGIN)
    history.replaceState(null, '', `/chat?login=${encode({ accessToken: '', accountId: 'acc-1', phone: '13800138000' })}`)
    await startSession()
    expect(location.search).toBe('')
    expect(server.to('/api/v1/user/info')[0]).toMatchObject({ authorization: undefined, csrf: '1' })
    expect($user.get()).toEqual(user)
    expect(toastTexts()).toEqual(['success: 登录成功！'])
    expect(events.seen).toEqual([{ type: EVENT_LOGIN, detail: { accountId: user.accountId, phone: user.phone } }])
    events.stop()
  })

  it('a forged redirect login without a cookie session logs nobody in', async () => {
    installGlobalListeners()
    cookieOpen = false
    server.routes['/api/v1/userPermission'] = () => fail(50011004, '未登录', 401)
    const events = recordEvents(EVENT_LOGIN)
    history.replaceState(null, '', `/chat?login=${encode({ accessToken: '', accountId: 'acc-x', phone: '13900000000' })}`)
    await startSession()
    expect($token.get()).toBeNull()
    expect(events.seen).toEqual([])
    expect(toastTexts()).toEqual([])
    events.stop()
  })

  it('runs once per page however many elements call it', async () => {
    await Promise.all([startSession(), startSession(), startSession()])
    await startSession()
    expect(server.to('/config/system.json')).toHaveLength(1)
  })

  it('never rejects: failures are reported', async () => {
    server.routes['/config/system.json'] = () => ({ destroy: true })
    await expect(startSession()).resolves.toBeUndefined()
    await allTasks()
    expect(toastTexts()).toEqual(['error: 系统异常，请稍后重试'])
  })

  it('an expired token at boot opens login without a message', async () => {
    $token.set('tok-expired')
    server.routes['/api/v1/user/info'] = () => fail(50011005, '登录已过期', 401)
    server.routes['/api/v1/userPermission'] = () => fail(50011005, '登录已过期', 401)
    const events = recordEvents(EVENT_UNAUTHORIZED)
    await startSession()
    expect(events.types()).toEqual([EVENT_UNAUTHORIZED, EVENT_UNAUTHORIZED])
    expect($loginOpen.get()).toBe('login')
    expect($token.get()).toBeNull()
    expect(toastTexts()).toEqual([])
    events.stop()
  })
})

describe('unauthorized event', () => {
  beforeEach(() => {
    installGlobalListeners()
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    $token.set('session:x')
    $user.set(user)
  })

  it('clears the user and the stored user info, and opens login', () => {
    fire(EVENT_UNAUTHORIZED, { code: 50011005 })
    expect($user.get()).toBeNull()
    expect($token.get()).toBeNull()
    expect(localStorage.getItem('lingxi-user-info')).toBeNull()
    expect($loginOpen.get()).toBe('login')
  })

  it('opens one dialog for several refusals at once', () => {
    const opened: unknown[] = []
    const unbind = $loginOpen.listen((value) => opened.push(value))
    for (let i = 0; i < 5; i++) fire(EVENT_UNAUTHORIZED, { code: 50011005 })
    unbind()
    expect(opened).toEqual(['login'])
  })

  it('switches an open change-phone dialog to login', () => {
    $loginOpen.set('modify-phone')
    fire(EVENT_UNAUTHORIZED)
    expect($loginOpen.get()).toBe('login')
  })

  it('with the ICT-auth flag: uses the ICT user info and opens nothing', () => {
    const ictUser = { ...user, nickName: 'ICT 用户' }
    sessionStorage.setItem('ict-auth', '1')
    localStorage.setItem('ict-user-info', JSON.stringify(ictUser))
    fire(EVENT_UNAUTHORIZED, { code: 50011005 })
    expect($user.get()).toEqual(ictUser)
    expect($loginOpen.get()).toBe(false)
    expect($token.get()).toBe('session:x')
  })
})

describe('wx_login_success event', () => {
  it('marks the session the popup opened (its cookie), closes the dialog and loads permissions', async () => {
    installGlobalListeners()
    $loginOpen.set('login')
    fire(EVENT_WX_LOGIN)
    expect($token.get()).toMatch(MARKER)
    expect($loginOpen.get()).toBe(false)
    await tick()
    expect(server.to('/api/v1/userPermission')[0]).toMatchObject({ authorization: undefined, csrf: '1' })
    expect($permissionTree.get()).toEqual(fullTree())
  })

  it('a bind (already logged in) keeps the session', () => {
    installGlobalListeners()
    $token.set('session:kept')
    fire(EVENT_WX_LOGIN)
    expect($token.get()).toBe('session:kept')
  })
})

describe('another tab (storage event)', () => {
  const storage = (newValue: string | null) => window.dispatchEvent(new StorageEvent('storage', { key: 'lingxi-user-info', newValue }))

  it('a logout there logs this page out, without asking the server', () => {
    installGlobalListeners()
    $token.set('session:x')
    $user.set(user)
    const events = recordEvents(EVENT_LOGOUT)
    storage(null)
    expect($token.get()).toBeNull()
    expect($user.get()).toBeNull()
    expect(events.types()).toEqual([EVENT_LOGOUT])
    expect(server.calls).toEqual([])
    events.stop()
  })

  it('a login there logs this page in', async () => {
    installGlobalListeners()
    $loginOpen.set('login')
    const events = recordEvents(EVENT_LOGIN)
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    storage(JSON.stringify(user))
    expect($token.get()).toMatch(MARKER)
    expect($user.get()).toEqual(user)
    expect($loginOpen.get()).toBe(false)
    expect(events.types()).toEqual([EVENT_LOGIN])
    events.stop()
    await tick()
  })
})

describe('confirm', () => {
  beforeEach(() => installGlobalListeners())

  it('resolves with the answer, one dialog at a time in order', async () => {
    const first = confirm({ title: '删除', message: '确定删除该对话吗？', confirmText: '删除' })
    const second = confirm({ message: '清空记录？' })
    expect($confirm.get()).toMatchObject({ title: '删除', message: '确定删除该对话吗？', confirmText: '删除' })
    answerConfirm(true)
    expect($confirm.get()?.message).toBe('清空记录？')
    answerConfirm(false)
    expect($confirm.get()).toBeNull()
    expect(await first).toBe(true)
    expect(await second).toBe(false)
  })

  it('any page script can ask through the window event', async () => {
    const answer = new Promise((resolve) => fire('lingxi-confirm', { message: '继续吗？', resolve }))
    expect($confirm.get()?.message).toBe('继续吗？')
    answerConfirm(true)
    expect(await answer).toBe(true)
  })

  it('toasts from the window event land in $toasts with a known type', () => {
    fire('lingxi-toast', { message: '页面脚本的提示', type: 'success' })
    fire('lingxi-toast', { message: '未知类型', type: 'weird' })
    fire('lingxi-toast', {})
    expect(toastTexts()).toEqual(['success: 页面脚本的提示', 'info: 未知类型'])
  })

  it('installing twice listens once', () => {
    installGlobalListeners()
    installGlobalListeners()
    fire('lingxi-toast', { message: '一次', type: 'info' })
    expect(toastTexts()).toEqual(['info: 一次'])
  })
})
