// @vitest-environment happy-dom
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { api, ApiError, getJson, NetworkError, notifyError, request } from '../../src/core/api'
import { configure } from '../../src/core/config'
import { toast } from '../../src/core/emit'
import { installGlobalListeners } from '../../src/core/events'
import { copyText } from '../../src/core/format'
import { MSG_COPIED, MSG_LOGGED_OUT, MSG_LOGIN_OK, MSG_MODIFY_OK, MSG_OPERATION_OK, MSG_SMS_SENT, MSG_SYSTEM_ERROR } from '../../src/core/messages'
import { $token } from '../../src/core/stores'
import { EVENT_ERROR, EVENT_TOAST, EVENT_UNAUTHORIZED } from '../../src/core/wire'
import { fail, ok, startApi, type Api } from './helpers/api-server'
import { recordEvents, resetCore, toastTexts } from './helpers/reset'

let server: Api

beforeAll(async () => {
  server = await startApi()
  installGlobalListeners()
})
afterAll(() => server.close())
beforeEach(() => {
  resetCore()
  configure({ apiBase: server.url })
  server.calls.length = 0
})

/** Calls `path` through request + notifyError, as a widget does; returns what the user got. */
async function outcome(path: string) {
  const events = recordEvents(EVENT_TOAST, EVENT_UNAUTHORIZED)
  let result: unknown
  let error: unknown
  try {
    result = await request(path, { a: 1 })
  } catch (e) {
    error = e
    notifyError(e)
  }
  events.stop()
  return { result, error, events: events.types(), toasts: toastTexts() }
}

describe('transport', () => {
  it('POSTs JSON to /api/v1 with the bearer token', async () => {
    server.routes['/api/v1/echo'] = (call) => ok(call)
    $token.set('tok-123')
    await request('/echo', { phone: '138' })
    const [call] = server.to('/api/v1/echo')
    expect(call).toMatchObject({ method: 'POST', authorization: 'Bearer tok-123', body: { phone: '138' } })
  })

  it('sends no Authorization header without a token, and {} without a body', async () => {
    server.routes['/api/v1/echo'] = () => ok(null)
    await request('/echo')
    expect(server.to('/api/v1/echo')[0]).toMatchObject({ authorization: undefined, body: {} })
  })

  it('a cookie session: the CSRF header and no Authorization (the marker is not a token)', async () => {
    server.routes['/api/v1/echo'] = () => ok(null)
    $token.set('session:abc')
    await request('/echo')
    expect(server.to('/api/v1/echo')[0]).toMatchObject({ authorization: undefined, csrf: '1' })
  })

  it('uses an explicit token over $token, and null for none', async () => {
    server.routes['/api/v1/echo'] = () => ok(null)
    $token.set('current')
    await request('/echo', {}, { token: 'old' })
    await request('/echo', {}, { token: null })
    expect(server.to('/api/v1/echo').map((c) => c.authorization)).toEqual(['Bearer old', undefined])
  })

  it('getJson GETs a static file with a cache-busting t and no envelope', async () => {
    server.routes['/config/system.json'] = () => ({ body: { permissionCodes: {} } })
    const before = Date.now()
    expect(await getJson('/config/system.json')).toEqual({ permissionCodes: {} })
    const [call] = server.to('/config/system.json')
    expect(call?.method).toBe('GET')
    expect(Number(call?.query.get('t'))).toBeGreaterThanOrEqual(before)
  })

  it('getJson turns a failure into NetworkError', async () => {
    server.routes['/config/chatConfig.json'] = () => ({ status: 404, raw: 'Not Found' })
    await expect(getJson('/config/chatConfig.json')).rejects.toBeInstanceOf(NetworkError)
  })

  it('an aborted request rejects with the abort, and notifyError shows nothing', async () => {
    server.routes['/api/v1/slow'] = () => new Promise((resolve) => setTimeout(() => resolve(ok(1)), 200))
    const controller = new AbortController()
    const pending = request('/slow', {}, { signal: controller.signal })
    controller.abort()
    const error = await pending.catch((e: unknown) => e)
    expect((error as Error).name).toBe('AbortError')
    notifyError(error)
    expect(toastTexts()).toEqual([])
  })
})

describe('error catalogue (spec section 8)', () => {
  it('2000 → data', async () => {
    server.routes['/api/v1/x'] = () => ok({ withoutCode: 0 })
    const r = await outcome('/api/v1/x'.slice(7))
    expect(r).toMatchObject({ result: { withoutCode: 0 }, error: undefined, events: [], toasts: [] })
  })

  it.each([
    [50011004, 401],
    [50011005, 401],
    [50011006, 401]
  ])('%i → the unauthorized event, no message', async (code, status) => {
    server.routes['/api/v1/x'] = () => fail(code, '登录已失效', status)
    const r = await outcome('/x')
    expect(r.error).toBeInstanceOf(ApiError)
    expect((r.error as ApiError).code).toBe(code)
    expect(r.events).toEqual([EVENT_UNAUTHORIZED])
    expect(r.toasts).toEqual([])
  })

  it("another code → a warning with the server's message (whatever the HTTP status)", async () => {
    server.routes['/api/v1/x'] = () => fail(50011001, '验证码错误', 400)
    const r = await outcome('/x')
    expect(r.error).toMatchObject({ name: 'ApiError', code: 50011001, message: '验证码错误' })
    expect(r.events).toEqual([EVENT_TOAST])
    expect(r.toasts).toEqual(['warning: 验证码错误'])
  })

  it('a non-2000 code inside HTTP 200 is an ApiError too', async () => {
    server.routes['/api/v1/x'] = () => fail(40200001, '绘画次数不足', 200)
    const r = await outcome('/x')
    expect(r.toasts).toEqual(['warning: 绘画次数不足'])
  })

  it('network failure → error 系统异常，请稍后重试', async () => {
    server.routes['/api/v1/x'] = () => ({ destroy: true })
    const r = await outcome('/x')
    expect(r.error).toBeInstanceOf(NetworkError)
    expect(r.toasts).toEqual([`error: ${MSG_SYSTEM_ERROR}`])
  })

  it('no server at all → the same', async () => {
    configure({ apiBase: 'http://127.0.0.1:9' })
    const r = await outcome('/x')
    expect(r.error).toBeInstanceOf(NetworkError)
    expect(r.toasts).toEqual([`error: ${MSG_SYSTEM_ERROR}`])
  })

  it('unparsable JSON → the same', async () => {
    server.routes['/api/v1/x'] = () => ({ raw: '{"code":2000,' })
    const r = await outcome('/x')
    expect(r.error).toBeInstanceOf(NetworkError)
    expect(r.toasts).toEqual([`error: ${MSG_SYSTEM_ERROR}`])
  })

  it('a proxy error page (not the envelope) → the same', async () => {
    server.routes['/api/v1/x'] = () => ({ status: 502, raw: '<html>Bad Gateway</html>' })
    const r = await outcome('/x')
    expect(r.toasts).toEqual([`error: ${MSG_SYSTEM_ERROR}`])
  })

  it('JSON that is not the envelope → the same', async () => {
    server.routes['/api/v1/x'] = () => ({ body: { ok: true } })
    const r = await outcome('/x')
    expect(r.error).toBeInstanceOf(NetworkError)
    expect(r.toasts).toEqual([`error: ${MSG_SYSTEM_ERROR}`])
  })

  it('a thrown non-API error → the same', () => {
    notifyError(new TypeError('x is undefined'))
    expect(toastTexts()).toEqual([`error: ${MSG_SYSTEM_ERROR}`])
  })

  it('success messages are the spec texts and show as success toasts', () => {
    const texts = [MSG_SMS_SENT, MSG_LOGIN_OK, MSG_MODIFY_OK, MSG_COPIED, MSG_LOGGED_OUT, MSG_OPERATION_OK]
    expect(texts).toEqual(['短信验证码已发送', '登录成功！', '修改成功！', '已复制到剪切板！', '已退出登录，期待您再次回来', '操作成功'])
    for (const text of texts) toast(text, 'success')
    expect(toastTexts()).toEqual(texts.map((t) => `success: ${t}`))
  })

  it('the copy helper falls back to a prompt', async () => {
    const prompted: unknown[] = []
    Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true })
    window.prompt = ((...args: unknown[]) => {
      prompted.push(args)
      return null
    }) as typeof window.prompt
    try {
      expect(await copyText('abc')).toBe(false)
    } finally {
      delete (navigator as { clipboard?: unknown }).clipboard
    }
    expect(prompted).toEqual([['复制以下内容', 'abc']])
  })
})

describe('lingxi-error', () => {
  it('fires on every lingxi-* element and on document, bubbling to window, for a failure shown; not for a refused session', () => {
    const el = document.createElement('lingxi-chat')
    const other = document.createElement('div')
    document.body.append(el, other)
    const heard: string[] = []
    el.addEventListener(EVENT_ERROR, (e) => heard.push(`element ${JSON.stringify((e as CustomEvent).detail)}`))
    other.addEventListener(EVENT_ERROR, () => heard.push('other'))
    const onDocument = (e: Event) => heard.push(`document ${e.eventPhase === Event.AT_TARGET ? 'target' : 'capture'}`)
    const onWindow = () => heard.push('window')
    document.addEventListener(EVENT_ERROR, onDocument)
    window.addEventListener(EVENT_ERROR, onWindow)
    notifyError(new ApiError(40000001, '参数错误'))
    notifyError(new ApiError(50011005, '登录已过期'))
    document.removeEventListener(EVENT_ERROR, onDocument)
    window.removeEventListener(EVENT_ERROR, onWindow)
    el.remove()
    other.remove()
    expect(heard).toEqual(['element {"code":40000001,"message":"参数错误"}', 'document target', 'window'])
  })
})

describe('ApiError across bundles', () => {
  it('instanceof recognises an ApiError made by another copy of the class', () => {
    class OtherCopy extends Error {
      code = 50011001
      constructor() {
        super('验证码错误')
        Object.defineProperty(this, Symbol.for('lingxi.ApiError'), { value: true })
      }
    }
    const foreign = new OtherCopy()
    expect(foreign).toBeInstanceOf(ApiError)
    expect(new Error('x')).not.toBeInstanceOf(ApiError)
    notifyError(foreign)
    expect(toastTexts()).toEqual(['warning: 验证码错误'])
  })
})

describe('endpoints', () => {
  it('send-sms-code adds smsType LOGIN and imgVerifyState 1', async () => {
    server.routes['/api/v1/auth/send-sms-code'] = () => ok({ withoutCode: 0 })
    expect(await api.auth.sendSmsCode({ enCode: '86', phone: '13800138000' })).toEqual({ withoutCode: 0 })
    expect(server.calls[0]?.body).toEqual({ enCode: '86', phone: '13800138000', smsType: 'LOGIN', imgVerifyState: 1 })
  })

  it('userPermission sends appPermissionCode AI_TOOLS', async () => {
    server.routes['/api/v1/userPermission'] = () => ok({ bodyList: [] })
    await api.userPermission()
    expect(server.calls[0]?.body).toEqual({ appPermissionCode: 'AI_TOOLS' })
  })

  it('config files are GETs of /config/*.json', async () => {
    for (const path of ['/config/system.json', '/config/chatConfig.json', '/config/MJHelper.json']) {
      server.routes[path] = () => ({ body: { path } })
    }
    expect(await api.config.system()).toEqual({ path: '/config/system.json' })
    expect(await api.config.chat()).toEqual({ path: '/config/chatConfig.json' })
    expect(await api.config.mjHelper()).toEqual({ path: '/config/MJHelper.json' })
  })
})
