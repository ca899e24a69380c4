import { USER_CENTER_PATH } from '../core/menu'
import { matchRoute, routes } from './routes'

describe('matchRoute', () => {
  it('knows every route of the spec', () => {
    for (const path of [
      '/chat',
      '/mj',
      '/sd',
      '/mjHelper',
      '/hotNew',
      '/gallery',
      '/role',
      '/imgSee',
      '/music',
      '/orders',
      '/miracleOrders',
      '/usercenter',
      '/404'
    ])
      expect(matchRoute(path)?.path).toBe(path)
  })

  it('matches the two detail routes only with both ids', () => {
    expect(matchRoute('/orders/ordersDetail/a1/s2')?.path).toBe('/orders/ordersDetail')
    expect(matchRoute('/miracleOrders/ordersDetail/7/8')?.code).toBe('AI_TOOLS_ORDER_PLATFORM_QUALITY')
    expect(matchRoute('/orders/ordersDetail/a1')).toBeNull()
    expect(matchRoute('/orders/ordersDetail')).toBeNull()
    expect(matchRoute('/orders/ordersDetail/1/2/3')).toBeNull()
  })

  it('ignores a trailing slash and knows nothing else', () => {
    expect(matchRoute('/chat/')?.path).toBe('/chat')
    expect(matchRoute('/')?.kind).toBe('entry')
    expect(matchRoute('/nope')).toBeNull()
    expect(matchRoute('/chatx')).toBeNull()
  })

  it('shows chat and roles with their elements, and every element has a screen', async () => {
    expect(matchRoute('/chat')?.tool?.tag).toBe('lingxi-chat')
    expect(matchRoute('/role')?.tool?.tag).toBe('lingxi-roles')
    for (const r of routes.filter((r) => r.kind === 'tool')) {
      expect(r.tool?.screen, r.path).toBeDefined()
      const screen = await r.tool!.screen!()
      expect(typeof screen.default, r.path).toBe('function')
    }
  })

  it('gives every tool route a permission code (the user center needs none; the console is ADMIN), a title and a blurb', () => {
    expect(matchRoute(USER_CENTER_PATH)?.code).toBeUndefined()
    expect(matchRoute('/admin')?.code).toBe('ADMIN')
    for (const r of routes.filter((r) => r.kind === 'tool' && r.path !== USER_CENTER_PATH && r.path !== '/admin')) {
      expect(r.code).toMatch(/^AI_TOOLS_/)
      expect(r.title.length).toBeGreaterThan(1)
      expect(r.blurb.length).toBeGreaterThan(5)
    }
  })
})
