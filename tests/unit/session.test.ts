// @vitest-environment happy-dom
import { allTasks } from 'nanostores'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { consumeRedirectLogin, parseLoginPayload, startSession } from '../../src/core/auth'
import { configure } from '../../src/core/config'
import { getCookie, setCookie } from '../../src/core/cookies'
import { confirm } from '../../src/core/emit'
import { answerConfirm, installGlobalListeners } from '../../src/core/events'
import { $menu } from '../../src/core/permissions'
import { $confirm, $loginOpen, $permissionTree, $systemConfig, $token, $user } from '../../src/core/stores'
import { EVENT_LOGIN, EVENT_UNAUTHORIZED, EVENT_WX_LOGIN } from '../../src/core/wire'
import { fail, ok, startApi, type Api } from './helpers/api-server'
import { fullTree, systemConfig, user } from './helpers/fixtures'
import { recordEvents, resetCore, toastTexts } from './helpers/reset'

let server: Api

/** base64 of UTF-8 JSON, as the WeChat callback builds it. */
const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64')
const fire = (name: string, detail?: unknown) => window.dispatchEvent(new CustomEvent(name, { detail }))
const tick = () => new Promise((resolve) => setTimeout(resolve, 30))

beforeAll(async () => {
  server = await startApi()
})
afterAll(() => server.close())
beforeEach(() => {
  resetCore()
  configure({ apiBase: server.url })
  server.calls.length = 0
  server.routes['/config/system.json'] = () => ({ body: systemConfig })
  server.routes['/api/v1/user/info'] = (call) => (call.authorization ? ok(user) : fail(50011004, '未登录', 401))
  server.routes['/api/v1/userPermission'] = () => ok({ bodyList: fullTree() })
})

describe('redirect login (?login=)', () => {
  const payload = { accessToken: 'tok-wx', accountId: 'acc-9', phone: '13800138000' }

  it('stores a valid payload and takes it off the address bar, keeping other params and the hash', () => {
    history.replaceState(null, '', `/chat?from=wx&login=${encodeURIComponent(encode(payload))}&x=1#top`)
    expect(consumeRedirectLogin()).toEqual(payload)
    expect(location.pathname + location.search + location.hash).toBe('/chat?from=wx&x=1#top')
    expect([getCookie('lingxi_token'), getCookie('lingxi_account_id'), getCookie('lingxi_phone')]).toEqual(['tok-wx', 'acc-9', '13800138000'])
    expect($token.get()).toBe('tok-wx')
  })

  it('is UTF-8 safe and accepts URL-safe base64, unpadded, and a + turned into a space', () => {
    const withChinese = { ...payload, nickName: '灵犀用户😀' }
    const b64 = encode(withChinese)
    expect(parseLoginPayload(b64)).toEqual(payload)
    expect(parseLoginPayload(b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''))).toEqual(payload)
    const plus = encode({ ...payload, accessToken: 'ab>?>?' })
    expect(plus).toContain('+')
    expect(parseLoginPayload(plus.replace(/\+/g, ' '))?.accessToken).toBe('ab>?>?')
    expect(parseLoginPayload(encode({ ...payload, accountId: 42 }))?.accountId).toBe('42')
  })

  it.each([
    ['not base64', '%%%'],
    ['not JSON', btoa('hello')],
    ['no token', encode({ accountId: 'a', phone: '1' })],
    ['empty token', encode({ accessToken: '', accountId: 'a', phone: '1' })],
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

  it('with a token cookie: loads user info and permissions with it', async () => {
    setCookie('lingxi_token', 'tok-cookie', { days: 1 })
    $token.set(getCookie('lingxi_token'))
    await startSession()
    expect(server.calls.map((c) => `${c.path} ${c.authorization ?? ''}`).sort()).toEqual([
      '/api/v1/user/info Bearer tok-cookie',
      '/api/v1/userPermission Bearer tok-cookie',
      '/config/system.json '
    ])
    expect($user.get()).toEqual(user)
    expect($permissionTree.get()).toEqual(fullTree())
    expect($menu.get().map((m) => m.permissionCode)).toContain('AI_TOOLS_ORDER_PLATFORM')
  })

  it('consumes a redirect login, then loads that user, toasts and announces the login', async () => {
    const events = recordEvents(EVENT_LOGIN)
    history.replaceState(null, '', `/chat?login=${encode({ accessToken: 'tok-wx', accountId: 'acc-1', phone: '13800138000' })}`)
    await startSession()
    expect(location.search).toBe('')
    expect(server.to('/api/v1/user/info')[0]?.authorization).toBe('Bearer tok-wx')
    expect($user.get()).toEqual(user)
    expect(toastTexts()).toEqual(['success: 登录成功！'])
    expect(events.types()).toEqual([EVENT_LOGIN])
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
    setCookie('lingxi_token', 'tok-expired', { days: 1 })
    $token.set('tok-expired')
    server.routes['/api/v1/user/info'] = () => fail(50011005, '登录已过期', 401)
    server.routes['/api/v1/userPermission'] = () => fail(50011005, '登录已过期', 401)
    const events = recordEvents(EVENT_UNAUTHORIZED)
    await startSession()
    expect(events.types()).toEqual([EVENT_UNAUTHORIZED, EVENT_UNAUTHORIZED])
    expect($loginOpen.get()).toBe('login')
    expect($token.get()).toBeNull()
    expect(getCookie('lingxi_token')).toBeNull()
    expect(toastTexts()).toEqual([])
    events.stop()
  })
})

describe('unauthorized event', () => {
  beforeEach(() => {
    installGlobalListeners()
    setCookie('lingxi_token', 'tok', { days: 1 })
    setCookie('lingxi_account_id', 'acc-1', { days: 1 })
    setCookie('lingxi_phone', '13800138000', { days: 1 })
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    $token.set('tok')
    $user.set(user)
  })

  it('clears the user, stored user info and cookies, and opens login', () => {
    fire(EVENT_UNAUTHORIZED, { code: 50011005 })
    expect($user.get()).toBeNull()
    expect($token.get()).toBeNull()
    expect(localStorage.getItem('lingxi-user-info')).toBeNull()
    expect([getCookie('lingxi_token'), getCookie('lingxi_account_id'), getCookie('lingxi_phone')]).toEqual([null, null, null])
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
    expect(getCookie('lingxi_token')).toBe('tok')
  })
})

describe('wx_login_success event', () => {
  it('restores the user from storage and the token from the cookie, then loads permissions', async () => {
    installGlobalListeners()
    $loginOpen.set('login')
    setCookie('lingxi_token', 'tok-wx', { days: 1 })
    localStorage.setItem('lingxi-user-info', JSON.stringify(user))
    fire(EVENT_WX_LOGIN)
    expect($user.get()).toEqual(user)
    expect($token.get()).toBe('tok-wx')
    expect($loginOpen.get()).toBe(false)
    await tick()
    expect(server.to('/api/v1/userPermission')[0]?.authorization).toBe('Bearer tok-wx')
    expect($permissionTree.get()).toEqual(fullTree())
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
