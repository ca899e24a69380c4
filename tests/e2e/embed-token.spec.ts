import { expect, test, type Page } from '@playwright/test'
import { completeLogin, openDialogs, page as examplePage } from './embed-helpers'
import { startPartner, startServer, type LingxiServer } from './server'

// Issue 16, item 2 (docs/decisions/0019-session-cookie.md): after a login inside a widget on a
// partner page of another site, no script of that page can read the session token by any path,
// nor the full phone number (the partner is not in TRUSTED_ORIGINS). Everything is looked at from
// the partner page's own context, as its scripts would.

let server: LingxiServer
let cms: Awaited<ReturnType<typeof startPartner>>

test.beforeAll(async () => {
  cms = await startPartner(() => examplePage('cms.html', server))
  server = await startServer({ CORS_ORIGINS: cms.url })
})
test.afterAll(async () => {
  await server?.stop()
  await cms?.stop()
})

const cellLogin = (p: Page) => p.locator('td lingxi-login')
const headerProfile = (p: Page) => p.locator('.masthead lingxi-profile')
const inlineChat = (p: Page) => p.locator('figure lingxi-chat')

/** Records the public events from the page's own scripts: on document, on window and on each lingxi-* element. */
function recordEvents(p: Page) {
  return p.addInitScript(() => {
    const seen: { where: string; type: string; detail: unknown }[] = []
    ;(window as unknown as { __seen: typeof seen }).__seen = seen
    const names = ['lingxi-ready', 'lingxi-login', 'lingxi-logout', 'lingxi-message', 'lingxi-error']
    const note = (where: string) => (e: Event) => seen.push({ where, type: e.type, detail: (e as CustomEvent).detail ?? null })
    for (const name of names) {
      window.addEventListener(name, note('window'))
      document.addEventListener(name, note('document'))
    }
    // Each element as it appears (a partner's script can listen on the tag it placed).
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('*')) {
        if (!el.localName.startsWith('lingxi-') || (el as { __heard?: boolean }).__heard) continue
        ;(el as { __heard?: boolean }).__heard = true
        for (const name of names) el.addEventListener(name, (e) => e.target === el && note(el.localName)(e))
      }
    }).observe(document, { childList: true, subtree: true })
  })
}

/** Everything a partner page's script can read without breaking into a shadow root. */
function readable(p: Page): Promise<string> {
  return p.evaluate(() => {
    const seenObjects = new WeakSet<object>()
    const dump = (value: unknown, depth: number): unknown => {
      if (depth > 6 || value === null || value === undefined) return value ?? null
      if (typeof value === 'function') return `fn ${value.name}`
      if (typeof value !== 'object') return value
      if (seenObjects.has(value)) return '[seen]'
      seenObjects.add(value)
      if (value instanceof Node) return `node ${value.nodeName}`
      const store = value as { get?: () => unknown }
      if (typeof store.get === 'function') {
        try {
          return { store: dump(store.get(), depth + 1) }
        } catch {
          return '[store]'
        }
      }
      const out: Record<string, unknown> = {}
      for (const key of Object.keys(value)) {
        try {
          out[key] = dump((value as Record<string, unknown>)[key], depth + 1)
        } catch {
          out[key] = '[throws]'
        }
      }
      return out
    }
    const storage = (s: Storage) => Object.fromEntries(Array.from({ length: s.length }, (_, i) => [s.key(i), s.getItem(s.key(i)!)]))
    const elements = [...document.querySelectorAll('*')]
      .filter((el) => el.localName.startsWith('lingxi-'))
      .map((el) => {
        const props: Record<string, unknown> = { session: (el as { session?: unknown }).session ?? null }
        for (let proto = Object.getPrototypeOf(el); proto && proto !== HTMLElement.prototype; proto = Object.getPrototypeOf(proto)) {
          for (const key of Object.getOwnPropertyNames(proto)) {
            if (key === 'constructor') continue
            try {
              props[key] = dump((el as unknown as Record<string, unknown>)[key], 0)
            } catch {
              props[key] = '[throws]'
            }
          }
        }
        for (const key of Object.keys(el)) props[key] = dump((el as unknown as Record<string, unknown>)[key], 0)
        return { tag: el.localName, attributes: el.getAttributeNames().map((a) => `${a}=${el.getAttribute(a)}`), props }
      })
    return JSON.stringify({
      cookie: document.cookie,
      local: storage(localStorage),
      session: storage(sessionStorage),
      anchor: dump((globalThis as unknown as Record<symbol, unknown>)[Symbol.for('lingxi.v1')], 0),
      lingxi: dump((window as unknown as { lingxi: unknown }).lingxi, 0),
      events: (window as unknown as { __seen: unknown }).__seen,
      elements,
      url: location.href
    })
  })
}

/** The session cookie as the browser holds it (Playwright sees HttpOnly cookies; the page never does). */
async function sessionCookie(p: Page) {
  const cookies = await p.context().cookies()
  return cookies.find((c) => c.name === 'lingxi_session' && c.domain === new URL(server.url).hostname)
}

test('after a login inside a widget, the partner page can read neither the token nor the full phone', async ({ page }) => {
  const phone = '13700137001'
  const masked = '137****7001'
  const answers: string[] = []
  page.on('response', async (response) => {
    if (response.url().includes('/api/v1/auth/')) answers.push(await response.text().catch(() => ''))
  })
  await recordEvents(page)
  await page.goto(cms.url)
  await cellLogin(page).getByRole('button', { name: '登录', exact: true }).click()
  await completeLogin(page, server, phone)
  await expect(headerProfile(page).getByTestId('header-phone')).toHaveText(masked)
  await expect(inlineChat(page).getByTestId('composer')).toBeVisible()

  // The session is the API origin's HttpOnly, Secure, SameSite=None, partitioned cookie.
  const cookie = await sessionCookie(page)
  expect(cookie, 'the session cookie is stored for the API origin').toBeTruthy()
  // Partitioned (CHIPS): kept for this top-level site only, even where third-party cookies are blocked.
  expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'None', path: '/api/', partitionKey: 'http://localhost' })
  const token = cookie!.value
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
  // The login answer the page's scripts could intercept carries no token and the masked phone.
  const login = answers.find((a) => a.includes('"accountId"'))!
  expect(JSON.parse(login).data).toMatchObject({ accessToken: '', phone: masked })

  const seen = await readable(page)
  expect(seen).not.toContain(token)
  expect(seen).not.toContain(phone)
  for (const a of answers) expect(a).not.toContain(token)
  const parsed = JSON.parse(seen)
  expect(parsed.cookie).toBe('')
  expect(parsed.local['lingxi-user-info']).toContain(masked)
  // The element and the document heard lingxi-login (and window still does), with the masked phone.
  const logins = (parsed.events as { where: string; type: string; detail: { phone: string } }[]).filter((e) => e.type === 'lingxi-login')
  expect(logins.map((e) => e.where)).toEqual(expect.arrayContaining(['lingxi-chat', 'lingxi-login', 'lingxi-profile', 'document', 'window']))
  expect(logins.filter((e) => e.where === 'document')).toHaveLength(1)
  for (const e of logins) expect(e.detail.phone).toBe(masked)
  // element.session and lingxi.session() say who is logged in.
  expect(await headerProfile(page).evaluate((el) => (el as unknown as { session: unknown }).session)).toMatchObject({ phone: masked })
  expect(await page.evaluate(() => (window as unknown as { lingxi: { session(): Promise<unknown> } }).lingxi.session())).toMatchObject({ phone: masked })

  // A partner script replaying the cookie with another page's form cannot, and the CSRF guard holds.
  const forged = await page.evaluate(
    (api) =>
      fetch(`${api}/api/v1/user/info`, { method: 'POST', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{}' }).then((r) => r.json()),
    server.url
  )
  expect(forged.code).toBe(40300001)
})

test('a reload restores the session; the events and element.session tell the page', async ({ page }) => {
  const phone = '13700137002'
  const masked = '137****7002'
  await recordEvents(page)
  await page.goto(cms.url)
  await cellLogin(page).getByRole('button', { name: '登录', exact: true }).click()
  await completeLogin(page, server, phone)
  await expect(headerProfile(page).getByTestId('header-phone')).toHaveText(masked)

  const infos: number[] = []
  page.on('response', async (response) => {
    if (response.url().endsWith('/api/v1/user/info')) infos.push((await response.json()).code)
  })
  await page.reload()
  await expect(headerProfile(page).getByTestId('header-phone')).toHaveText(masked)
  await expect(inlineChat(page).getByTestId('composer')).toBeVisible()
  await expect.poll(() => infos).toContain(2000)
  // After a restored login: no lingxi-login (nobody logged in just now), but the session is readable.
  expect(await page.evaluate(() => (window as unknown as { lingxi: { session(): Promise<unknown> } }).lingxi.session())).toMatchObject({ phone: masked })
  expect(await inlineChat(page).evaluate((el) => (el as unknown as { session: unknown }).session)).toMatchObject({ phone: masked })
  const seen = JSON.parse(await readable(page))
  const ready = (seen.events as { where: string; type: string }[]).filter((e) => e.type === 'lingxi-ready').map((e) => e.where)
  expect(ready).toEqual(expect.arrayContaining(['document', 'window', 'lingxi-chat']))
  expect(JSON.stringify(seen)).not.toContain(phone)
  expect(JSON.stringify(seen)).not.toContain((await sessionCookie(page))!.value)
})

test('a logout in one tab logs out every widget, in that tab and in the other', async ({ context }) => {
  const first = await context.newPage()
  await recordEvents(first)
  await first.goto(cms.url)
  await cellLogin(first).getByRole('button', { name: '登录', exact: true }).click()
  await completeLogin(first, server, '13700137003')
  await expect(headerProfile(first).getByTestId('header-phone')).toHaveText('137****7003')

  const second = await context.newPage()
  await recordEvents(second)
  await second.goto(cms.url)
  await expect(headerProfile(second).getByTestId('header-phone')).toHaveText('137****7003')
  await expect(inlineChat(second).getByTestId('composer')).toBeVisible()

  await first.evaluate(() => (window as unknown as { lingxi: (cmd: string) => Promise<unknown> }).lingxi('logout'))
  for (const p of [first, second]) {
    await expect(inlineChat(p).getByRole('heading', { name: '登录后开始对话' })).toBeVisible()
    await expect(cellLogin(p).getByRole('button', { name: '登录', exact: true })).toBeVisible()
    await expect(headerProfile(p).getByTestId('header-phone')).toHaveCount(0)
    expect(await p.evaluate(() => (window as unknown as { lingxi: { session(): Promise<unknown> } }).lingxi.session())).toBeNull()
    const events = JSON.parse(await readable(p)).events as { where: string; type: string }[]
    expect(events.filter((e) => e.type === 'lingxi-logout').map((e) => e.where)).toEqual(expect.arrayContaining(['document', 'window', 'lingxi-chat']))
  }
  // The server ended the session: its cookie is gone, and the second tab opened no login dialog.
  expect(await sessionCookie(first)).toBeUndefined()
  expect(await openDialogs(second)).toEqual([])
})
