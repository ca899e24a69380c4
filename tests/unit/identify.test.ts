// @vitest-environment happy-dom
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { configure } from '../../src/core/config'
import { installGlobalListeners } from '../../src/core/events'
import { identify } from '../../src/core/identify'
import { $bindPhone, $loginOpen, $token, $user, openLogin } from '../../src/core/stores'
// Its page-wide lingxi-login listener asks a WeChat user without a phone to bind one: never a partner's user.
import '../../src/ui/login/wechat-flow'
import { EVENT_LOGIN } from '../../src/core/wire'
import { fail, ok, startApi, type Api, type Call } from './helpers/api-server'
import { fullTree, systemConfig, user } from './helpers/fixtures'
import { recordEvents, resetCore, toastTexts } from './helpers/reset'

// Partner single sign-on (issue 16, item 3): lingxi.identify(assertion) → the session cookie, no SMS.

let server: Api
const partnerUser = { ...user, accountId: 'acc-p', userId: 'acc-p', phone: '', nickName: '张三' }
const cookieCall = (reply: () => ReturnType<typeof ok>) => (call: Call) =>
  !call.authorization && call.csrf === '1' ? reply() : fail(50011004, '请先登录', 401)

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
  server.routes['/config/system.json'] = () => ok(systemConfig)
  server.routes['/api/v1/user/info'] = cookieCall(() => ok(partnerUser))
  server.routes['/api/v1/userPermission'] = cookieCall(() => ok({ bodyList: fullTree() }))
})

describe('identify', () => {
  it('trades the assertion for the session cookie: marker, user, permissions, lingxi-login, the dialog closed, no toast', async () => {
    server.routes['/api/v1/auth/partner/identify'] = () => ok({ accessToken: '', accountId: 'acc-p', phone: '' })
    openLogin()
    const events = recordEvents(EVENT_LOGIN)
    const session = await identify(' eyJ.a.b ')
    expect(server.to('/api/v1/auth/partner/identify')[0]?.body).toEqual({ assertion: 'eyJ.a.b', platform: 'PC' })
    expect(server.to('/api/v1/auth/partner/identify')[0]?.csrf).toBe('1')
    expect($token.get()).toMatch(/^session:/)
    expect($user.get()).toEqual(partnerUser)
    expect(session).toMatchObject({ accountId: 'acc-p', nickName: '张三', phone: '' })
    expect($loginOpen.get()).toBe(false)
    expect($bindPhone.get()).toBe(false)
    expect(toastTexts()).toEqual([])
    expect(events.seen).toEqual([{ type: EVENT_LOGIN, detail: { accountId: 'acc-p', phone: '', via: 'partner' } }])
    events.stop()
  })

  it('rejects with the server’s refusal and logs nobody in', async () => {
    server.routes['/api/v1/auth/partner/identify'] = () => fail(40300001, '身份断言已过期，请让合作方后端重新签发', 403)
    const events = recordEvents(EVENT_LOGIN)
    await expect(identify('eyJ.a.b')).rejects.toMatchObject({ code: 40300001, message: '身份断言已过期，请让合作方后端重新签发' })
    expect($token.get()).toBeNull()
    expect($user.get()).toBeNull()
    expect(events.seen).toEqual([])
    events.stop()
  })

  it('refuses a missing assertion without calling the server', async () => {
    await expect(identify('')).rejects.toThrow(TypeError)
    await expect(identify(undefined)).rejects.toThrow(/JWT string/)
    expect(server.to('/api/v1/auth/partner/identify')).toEqual([])
  })
})
