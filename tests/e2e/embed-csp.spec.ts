import { expect, test, type Page } from '@playwright/test'
import { ask, completeLogin, page as examplePage, snap } from './embed-helpers'
import { startPartner, startServer, type LingxiServer } from './server'

// The partner page under a strict Content-Security-Policy: no 'unsafe-inline', no 'unsafe-eval',
// script-src and connect-src naming only the Lingxi origin (the entries README lists). The page's
// own <style> carries a nonce; the widget needs no style-src at all (constructable stylesheets).

const NONCE = 'cGFydG5lci1ub25jZQ'
let server: LingxiServer
let strict: Awaited<ReturnType<typeof startPartner>>
let withSnippet: Awaited<ReturnType<typeof startPartner>>
let permissive: Awaited<ReturnType<typeof startPartner>>

function policy(scriptExtra = '') {
  const lingxi = server.url
  return [
    "default-src 'none'",
    `script-src ${scriptExtra}${lingxi}`,
    `connect-src ${lingxi}`,
    `img-src ${lingxi} data:`,
    `font-src ${lingxi}`,
    `style-src 'nonce-${NONCE}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join('; ')
}

/** The example without its inline snippet (no script may run inline here), its <style> with the nonce. */
const strictPage = () =>
  examplePage('partner-page.html', server)
    .replace(/<script>[\s\S]*?<\/script>/, '')
    .replace('<style>', `<style nonce="${NONCE}">`)
/** The example as README shows it for such pages: the queue snippet with the page's nonce. */
const noncePage = () =>
  examplePage('partner-page.html', server)
    .replace('<script>', `<script nonce="${NONCE}">`)
    .replace('<style>', `<style nonce="${NONCE}">`)
    .replace("lingxi('on', 'open'", "lingxi('open'); lingxi('on', 'open'")

// Read by the partner server on every request: filled once the Lingxi server's address is known.
const strictHeaders: Record<string, string> = {}
const snippetHeaders: Record<string, string> = {}

test.beforeAll(async () => {
  strict = await startPartner(strictPage, strictHeaders)
  withSnippet = await startPartner(noncePage, snippetHeaders)
  permissive = await startPartner(() => examplePage('partner-page.html', server))
  server = await startServer({ CORS_ORIGINS: [strict.url, withSnippet.url, permissive.url].join(',') })
  strictHeaders['content-security-policy'] = policy()
  snippetHeaders['content-security-policy'] = policy(`'nonce-${NONCE}' `)
})
test.afterAll(async () => {
  await server?.stop()
  await Promise.all([strict?.stop(), withSnippet?.stop(), permissive?.stop()])
})

/** Collects every violation of the page's policy. */
async function guard(page: Page) {
  const violations: string[] = []
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy/i.test(m.text())) violations.push(m.text())
  })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Content-Security-Policy violation: ${e.violatedDirective} ${e.blockedURI}`))
  })
  return violations
}

test('the whole flow works under a strict CSP, with no violation', async ({ page }, info) => {
  const violations = await guard(page)
  const response = await page.goto(strict.url)
  expect(response!.headers()['content-security-policy']).toContain(`script-src ${server.url}`)
  const launcher = page.getByRole('button', { name: '打开 AI 书童对话' })
  await launcher.click()
  const panel = page.getByRole('dialog', { name: '灵犀 AI' })
  await panel.getByRole('button', { name: '登录' }).click()
  await completeLogin(page, server, '13400134000')
  const reply = await ask(panel, '写一段 JavaScript')
  await expect(reply.locator('h2')).toHaveText('灵犀离线演示模型')
  await expect(reply.locator('table')).toBeVisible()
  // styles applied (constructable sheet): the launcher is round and primary-coloured
  expect(await launcher.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(251, 171, 0)')
  await page.keyboard.press('Escape')
  await expect(panel).toBeHidden()
  await expect(launcher).toBeFocused()
  await snap(page, info, 'csp')
  expect(violations).toEqual([])
})

test('the queue snippet runs under the same policy with the page nonce', async ({ page }) => {
  const violations = await guard(page)
  await page.goto(withSnippet.url)
  // lingxi('open') was queued by the inline snippet before the loader arrived
  await expect(page.getByRole('dialog', { name: '灵犀 AI' })).toBeVisible()
  await expect(page.locator('#panel-state')).toHaveText('对话已打开')
  expect(violations).toEqual([])
})

/**
 * Logs in inside the bubble, asks for maths and measures the typeset formulas of the reply: each
 * formula's height, and where each superscript sits on its line (what KaTeX's inline styles set).
 */
async function maths(page: Page, url: string, phone: string) {
  await page.goto(url)
  await page.getByRole('button', { name: '打开 AI 书童对话' }).click()
  const panel = page.getByRole('dialog', { name: '灵犀 AI' })
  await panel.getByRole('button', { name: '登录' }).click()
  await completeLogin(page, server, phone)
  const reply = await ask(panel, '写出勾股定理和质能方程的公式')
  await expect(reply.locator('.katex')).toHaveCount(2)
  await expect(reply.locator('.lx-math[data-done]')).toHaveCount(2)
  await page.evaluate(() => document.fonts.ready)
  return reply.evaluate((el) => {
    const round = (n: number) => Math.round(n * 2) / 2
    return [...el.querySelectorAll('.katex-html')].map((html) => {
      const box = html.getBoundingClientRect()
      const sups = [...html.querySelectorAll('.msupsub')].map((s) => {
        const r = s.getBoundingClientRect()
        return [round(r.top - box.top), round(r.height)]
      })
      const struts = [...html.querySelectorAll('.katex-strut, .strut')].map((s) => round(s.getBoundingClientRect().height))
      return { height: round(box.height), sups, struts }
    })
  })
}

test('maths render under style-src without unsafe-inline: no violation, laid out as without a policy', async ({ browser, page }, info) => {
  const violations = await guard(page)
  const strictMaths = await maths(page, strict.url, '13400134001')
  await snap(page, info, 'csp-maths')
  expect(violations.length, violations[0]).toBe(0)
  const other = await browser.newPage()
  const expected = await maths(other, permissive.url, '13400134002')
  await other.close()
  // a^2 + b^2 = c^2 (three superscripts) and E = mc^2 (one), each with its struts
  expect(expected.map((m) => m.sups.length)).toEqual([3, 1])
  expect(expected[0]!.sups[0]![0]).toBeLessThan(0.5 * expected[0]!.height)
  expect(strictMaths).toEqual(expected)
})
