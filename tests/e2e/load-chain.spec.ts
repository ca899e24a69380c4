import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test'
import { addSession, apiLogin } from './helpers'
import { startServer, type LingxiServer } from './server'

// The signed-in first visit of /chat: the topics show after at most 4 requests in sequence (the
// page, the host's chunks, the route's chunks with the session and permission checks beside
// them, the topic list), and within 8 s on Chromium's slow-3G figures (400 kbps, 400 ms a round
// trip). And a chat reply is not followed by another `user/info`: the reply's `done` event says
// what it cost.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

const post = async (path: string, body: object, token: string) => {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body)
  })
  return (await res.json()).data
}

async function signedIn(context: BrowserContext, phone: string) {
  const token = await apiLogin(server, phone)
  await addSession(context, server, token)
  return token
}

interface Timed {
  url: string
  start: number
  end?: number
  depth?: number
  after?: Timed
}

/**
 * Every request of the page with its start and end (Chromium's own clock, through CDP), on a
 * network of `latency` ms a round trip and `bytesPerSecond` (-1: no limit).
 */
async function timeRequests(page: Page, latency: number, bytesPerSecond: number) {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency, downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond })
  const requests = new Map<string, Timed>()
  cdp.on('Network.requestWillBeSent', (e) => {
    if (!requests.has(e.requestId)) requests.set(e.requestId, { url: e.request.url, start: e.timestamp })
  })
  cdp.on('Network.loadingFinished', (e) => {
    const r = requests.get(e.requestId)
    if (r) r.end = e.timestamp
  })
  return requests
}

/**
 * A request's depth: one more than the deepest request that had finished before it started (the
 * page is 1). A request that merely ended earlier counts as a cause too, so this is an upper
 * bound; measured with a long round trip and no bandwidth limit, requests of one level end
 * together, after the next level's have started.
 */
function depths(requests: Timed[]): Timed[] {
  const list = [...requests].sort((a, b) => a.start - b.start)
  for (const r of list) {
    const before = list.filter((q) => q !== r && q.end !== undefined && q.end <= r.start)
    r.after = before.reduce<Timed | undefined>((deepest, q) => (!deepest || (q.depth ?? 0) > (deepest.depth ?? 0) ? q : deepest), undefined)
    r.depth = 1 + (r.after?.depth ?? 0)
  }
  return list
}

const path = (url: string) => new URL(url).pathname

/** A first visit of the signed-in /chat in a fresh context: its requests, and the seconds until the topics show. */
async function visitChat(browser: Browser, phone: string, latency: number, bytesPerSecond: number) {
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } })
  const token = await signedIn(context, phone)
  await post('/api/v1/ai-chat/topic/create', { name: '链路话题' }, token)
  const page = await context.newPage()
  const requests = await timeRequests(page, latency, bytesPerSecond)
  const started = Date.now()
  await page.goto(server.url + '/chat')
  await expect(page.getByTestId('topic-item').filter({ hasText: '链路话题' })).toBeVisible({ timeout: 30_000 })
  const seconds = (Date.now() - started) / 1000
  await context.close()
  return { requests: depths([...requests.values()]), seconds }
}

test('a signed-in /chat shows its topics after at most 4 requests in sequence, within 8 s on slow 3G', async ({ browser }, info) => {
  const { requests } = await visitChat(browser, '13800138301', 400, -1)
  const topics = requests.find((r) => path(r.url) === '/api/v1/ai-chat/topic/list')
  expect(topics, 'the topic list was asked for').toBeDefined()
  const chain: string[] = []
  for (let r: Timed | undefined = topics; r; r = r.after) chain.unshift(`${r.depth} ${path(r.url)}`)

  const slow = await visitChat(browser, '13800138303', 400, 50_000)
  const report = [
    `topics shown after ${slow.seconds.toFixed(1)} s on slow 3G (400 kbps, 400 ms)`,
    'the longest chain to the topic list (400 ms round trips, no bandwidth limit):',
    ...chain,
    'every request (depth, path):',
    ...requests.map((r) => `  ${r.depth} ${path(r.url)}`)
  ].join('\n')
  console.log(report)
  await info.attach('load chain', { body: report, contentType: 'text/plain' })
  expect(topics!.depth, report).toBeLessThanOrEqual(4)
  expect(slow.seconds, report).toBeLessThanOrEqual(8)
})

test('a chat reply is not followed by another user/info: the balance comes from its done event', async ({ browser }) => {
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } })
  const token = await signedIn(context, '13800138302')
  const page = await context.newPage()
  const asked: string[] = []
  page.on('request', (request) => {
    if (path(request.url()) === '/api/v1/user/info') asked.push(request.url())
  })
  await page.goto(server.url + '/chat')
  const composer = page.getByTestId('composer')
  await expect(composer).toBeVisible()
  await expect.poll(() => asked.length, 'the session check at start').toBe(1)
  const before = (await post('/api/v1/user/info', {}, token)).tokens as number

  await composer.fill('你好')
  await composer.press('Enter')
  const reply = page.locator('[data-testid=message][data-role=assistant]').last()
  await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await page.waitForTimeout(1000)
  expect(asked, 'user/info requests: only the one at start').toHaveLength(1)

  // The page's balance is the server's, which the reply lowered.
  const after = (await post('/api/v1/user/info', {}, token)).tokens as number
  expect(after).toBeLessThan(before)
  await expect.poll(() => page.evaluate(() => JSON.parse(localStorage.getItem('lingxi-user-info') ?? '{}').tokens)).toBe(after)
  await context.close()
})
