import { mkdirSync, writeFileSync } from 'node:fs'
import { expect, test, type Browser, type Page } from '@playwright/test'
import { ask, completeLogin, page as examplePage } from './embed-helpers'
import { apiLogin } from './helpers'
import { startPartner, startServer, type LingxiServer } from './server'

// The embed budget, measured in Chromium: the bytes actually transferred (gzip, from the server's
// compression) for every script and stylesheet a partner page loads to show the chat bubble,
// open it and render a markdown reply. Budgets (DESIGN.md): loader ≤ 3 KB, all of it ≤ 45 KB.
// The figures are printed and written to dist/size-embed.json, which `npm run size` reports too.

const KB = 1024
const LOADER_BUDGET = 3 * KB
const EMBED_BUDGET = 45 * KB
// Not met yet (issue 4 stays open on it): until it is, these ceilings stop the embed path growing.
// Measured 2026-11-21: 54.2 KB logged in, 62.3 KB on a first visit (were 60.9 and 66.2 before the per-element sheets and Prism).
const EMBED_CEILING = 57 * KB
const FIRST_VISIT_CEILING = 64 * KB

let server: LingxiServer
let partner: Awaited<ReturnType<typeof startPartner>>

test.beforeAll(async () => {
  partner = await startPartner(() => examplePage('partner-page.html', server))
  server = await startServer({ CORS_ORIGINS: partner.url })
})
test.afterAll(async () => {
  await server?.stop()
  await partner?.stop()
})

interface Transfer {
  url: string
  bytes: number
  encoding: string
}

/** Records the transferred body size of every script and stylesheet the page loads. */
function record(page: Page) {
  const transfers: Promise<Transfer>[] = []
  page.on('response', (response) => {
    const type = response.request().resourceType()
    if (type !== 'script' && type !== 'stylesheet') return
    transfers.push(
      (async () => {
        await response.finished()
        const sizes = await response.request().sizes()
        return { url: response.url(), bytes: sizes.responseBodySize, encoding: (await response.allHeaders())['content-encoding'] ?? 'identity' }
      })(),
    )
  })
  return async () => Promise.all(transfers)
}

const sum = (list: Transfer[]) => list.reduce((n, t) => n + t.bytes, 0)
const kb = (n: number) => `${(n / KB).toFixed(1)} KB`
const name = (url: string) => new URL(url).pathname.replace('/cdn/', '')

async function visit(browser: Browser, loggedIn: boolean) {
  const context = await browser.newContext({ locale: 'zh-CN' })
  if (loggedIn) {
    const token = await apiLogin(server, '13900139000')
    await context.addCookies([{ name: 'lingxi_token', value: token, url: partner.url }])
  }
  const page = await context.newPage()
  const transfers = record(page)
  await page.goto(partner.url)
  const launcher = page.getByRole('button', { name: '打开 AI 书童对话' })
  await expect(launcher).toBeVisible()
  await page.waitForLoadState('networkidle')
  const shown = await transfers()
  await launcher.click()
  const panel = page.getByRole('dialog', { name: '灵犀 AI' })
  if (!loggedIn) {
    await panel.getByRole('button', { name: '登录' }).click()
    await completeLogin(page, server, '13900139001')
  }
  const reply = await ask(panel, '推荐一本科幻小说')
  await expect(reply.locator('h2')).toHaveText('灵犀离线演示模型')
  await page.waitForLoadState('networkidle')
  const all = await transfers()
  await context.close()
  return { shown, all }
}

test('what a partner page downloads for the chat bubble stays within budget', async ({ browser }, info) => {
  const returning = await visit(browser, true)
  const first = await visit(browser, false)

  for (const t of [...returning.all, ...first.all]) if (t.bytes > 1024) expect(t.encoding, t.url).toBe('gzip')
  const loader = returning.all.find((t) => name(t.url) === 'loader.js')!
  const report = {
    measuredIn: 'Chromium, transferred body bytes (gzip) of scripts and stylesheets',
    loader: loader.bytes,
    launcher: sum(returning.shown),
    returningVisitor: sum(returning.all),
    firstVisitWithLogin: sum(first.all),
    returningFiles: Object.fromEntries(returning.all.map((t) => [name(t.url), t.bytes])),
    firstVisitFiles: Object.fromEntries(first.all.map((t) => [name(t.url), t.bytes])),
    budgets: { loader: LOADER_BUDGET, embed: EMBED_CEILING, firstVisit: FIRST_VISIT_CEILING, embedTarget: EMBED_BUDGET },
  }
  const lines = [
    `loader                                   ${kb(report.loader)}  (budget ${kb(LOADER_BUDGET)})`,
    `bubble shown                             ${kb(report.launcher)}`,
    `bubble + open + markdown reply           ${kb(report.returningVisitor)}  (budget ${kb(EMBED_BUDGET)}; logged in)`,
    `the same for a first visit with login    ${kb(report.firstVisitWithLogin)}  (budget ${kb(EMBED_BUDGET)})`,
    'returning visitor:',
    ...returning.all.map((t) => `  ${name(t.url).padEnd(48)} ${kb(t.bytes)}`),
    'first visit (adds):',
    ...first.all.filter((t) => !returning.all.some((r) => name(r.url) === name(t.url))).map((t) => `  ${name(t.url).padEnd(48)} ${kb(t.bytes)}`),
  ]
  console.log(lines.join('\n'))
  await info.attach('embed budget', { body: lines.join('\n'), contentType: 'text/plain' })
  mkdirSync(new URL('../../dist', import.meta.url), { recursive: true })
  writeFileSync(new URL('../../dist/size-embed.json', import.meta.url), JSON.stringify(report, null, 2) + '\n')

  expect(report.loader).toBeLessThanOrEqual(LOADER_BUDGET)
  if (report.returningVisitor > EMBED_BUDGET || report.firstVisitWithLogin > EMBED_BUDGET) console.log(`embed budget of ${kb(EMBED_BUDGET)} NOT met yet`)
  expect.soft(report.returningVisitor, 'bubble + open + markdown reply, logged in').toBeLessThanOrEqual(EMBED_CEILING)
  expect.soft(report.firstVisitWithLogin, 'bubble + login + open + markdown reply').toBeLessThanOrEqual(FIRST_VISIT_CEILING)
})
