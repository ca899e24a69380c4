import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { edge, type EdgeStep } from '../src/http/edge.js'

/** A step that records its before and after in `log`; `answer` or `refuse` makes its before do so. */
function step(name: string, log: string[], options: { under?: string; answer?: boolean; refuse?: boolean; later?: boolean } = {}): EdgeStep {
  return {
    ...(options.under !== undefined ? { under: options.under } : {}),
    before(c) {
      log.push(`${name} before`)
      c.header(`X-${name}`, 'set before')
      if (options.refuse) throw new Error(`${name} refused`)
      const answer = options.answer ? new Response(`${name} answered`, { status: 299 }) : undefined
      return options.later ? Promise.resolve(answer) : answer
    },
    after(c) {
      log.push(`${name} after (${c.res.status})`)
    }
  }
}

function appWith(steps: EdgeStep[], log: string[]) {
  const app = new Hono()
  app.onError((error, c) => c.text(error.message, 418))
  app.use(edge(steps))
  app.all('*', (c) => {
    log.push('route')
    return c.text('route answered')
  })
  return app
}

describe('edge: several middleware concerns as one layer of the chain', () => {
  it('runs every before in order, the route, then every after innermost first', async () => {
    const log: string[] = []
    const res = await appWith([step('A', log), step('B', log, { later: true }), step('C', log)], log).request('/api/x')
    expect(await res.text()).toBe('route answered')
    expect(log).toEqual(['A before', 'B before', 'C before', 'route', 'C after (200)', 'B after (200)', 'A after (200)'])
    // Headers set before the route are on the route's answer.
    expect([res.headers.get('X-A'), res.headers.get('X-B'), res.headers.get('X-C')]).toEqual(['set before', 'set before', 'set before'])
  })

  it("a step's answer skips the later steps and the route; the earlier steps still run their after, the answering one does not", async () => {
    const log: string[] = []
    for (const later of [false, true]) {
      log.length = 0
      const res = await appWith([step('A', log), step('B', log, { answer: true, later }), step('C', log)], log).request('/api/x')
      expect(res.status).toBe(299)
      expect(await res.text()).toBe('B answered')
      expect(log).toEqual(['A before', 'B before', 'A after (299)'])
    }
  })

  it("a step's refusal goes to the app's error handler, with the headers set before it; nothing after it runs", async () => {
    const log: string[] = []
    const res = await appWith([step('A', log), step('B', log, { refuse: true }), step('C', log)], log).request('/api/x')
    expect(res.status).toBe(418)
    expect(await res.text()).toBe('B refused')
    expect(res.headers.get('X-A')).toBe('set before')
    expect(log).toEqual(['A before', 'B before'])
  })

  it('a step under a prefix runs on the prefix itself and below it, not on a path that only starts with it', async () => {
    const log: string[] = []
    const app = appWith([step('Api', log, { under: '/api' }), step('All', log)], log)
    const seen: Record<string, string[]> = {}
    for (const path of ['/api', '/api/v1/user/info', '/apis', '/', '/config/api']) {
      log.length = 0
      await app.request(path)
      seen[path] = log.filter((line) => line.endsWith('before'))
    }
    expect(seen).toEqual({
      '/api': ['Api before', 'All before'],
      '/api/v1/user/info': ['Api before', 'All before'],
      '/apis': ['All before'],
      '/': ['All before'],
      '/config/api': ['All before']
    })
  })
})
