import { matchRoute, routes } from './routes'

describe('matchRoute', () => {
  it('knows every route of the spec', () => {
    for (const path of ['/chat', '/mj', '/sd', '/mjHelper', '/hotNew', '/gallery', '/role', '/imgSee', '/music', '/orders', '/miracleOrders', '/usercenter', '/404'])
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
    expect(matchRoute('/chat')?.widget).toBe('chat')
    expect(matchRoute('/role')?.widget).toBe('roles')
    const { widgetScreens } = await import('./screens/widgets')
    for (const r of routes) if (r.widget) expect(widgetScreens[r.widget], r.path).toBeDefined()
  })

  it('gives every tool route a permission code, a title and a blurb', () => {
    for (const r of routes.filter((r) => r.kind === 'tool')) {
      expect(r.code).toMatch(/^AI_TOOLS_/)
      expect(r.title.length).toBeGreaterThan(1)
      expect(r.blurb.length).toBeGreaterThan(5)
    }
  })
})
