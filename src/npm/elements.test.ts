import type { SessionInfo } from '../core/stores'
import { $token, $user } from '../core/stores'
import type { LoginUser } from '../core/types'
import { defineElement, type LingxiElement } from '../ui/define'
import '../widgets/painting/painting.element'
import '../widgets/toaster/toaster.element'
import type {} from './elements'

// Every `lingxi-*` tag has the read-only `session` (issue 16): in its HTMLElementTagNameMap entry
// (checked by tsc, which compiles the tests) and on the element itself (defineElement).

type Tag = Extract<keyof HTMLElementTagNameMap, `lingxi-${string}`>

// compile-time: these lines fail `tsc` when a tag's entry lacks `session` or types it otherwise
const painting = () => document.querySelector('lingxi-painting')!.session
const login = () => document.createElement('lingxi-login').identify('jwt')
expectTypeOf(painting).returns.toEqualTypeOf<SessionInfo | null>()
expectTypeOf(login).returns.toEqualTypeOf<Promise<SessionInfo | null>>()
expectTypeOf<HTMLElementTagNameMap[Tag]['session']>().toEqualTypeOf<SessionInfo | null>()
expectTypeOf<HTMLElementTagNameMap[Tag]>().toExtend<LingxiElement>()
// the chat keeps its own members beside the shared ones
expectTypeOf<HTMLElementTagNameMap['lingxi-chat']['send']>().toEqualTypeOf<(text: string) => void>()
// @ts-expect-error read-only
const assign = () => (document.createElement('lingxi-toaster').session = null)

const user = { accountId: 'acc-7', phone: '138****5678', nickName: '小灵', avatarUrl: '' } as LoginUser

afterEach(() => {
  $token.set(null)
  $user.set(null)
})

describe('session on every element', () => {
  it('reads the current session on each lingxi-* element, null when logged out', () => {
    defineElement('lingxi-test-session', () => null)
    const tags = ['lingxi-painting', 'lingxi-toaster', 'lingxi-test-session']
    const els = tags.map((tag) => document.createElement(tag) as LingxiElement)
    expect(els.map((el) => el.session)).toEqual([null, null, null])
    $token.set('session:1')
    $user.set(user)
    const session = { accountId: 'acc-7', phone: '138****5678', nickName: '小灵', avatarUrl: '' }
    expect(els.map((el) => el.session)).toEqual([session, session, session])
    $token.set(null)
    expect(els.map((el) => el.session)).toEqual([null, null, null])
  })

  it('is a getter of the prototype, not a property a page could overwrite', () => {
    const el = document.createElement('lingxi-painting')
    expect(() => assign()).toThrow(TypeError)
    expect(Object.hasOwn(el, 'session')).toBe(false)
    expect(typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'session')?.get).toBe('function')
    expect(typeof el.identify).toBe('function')
  })
})
