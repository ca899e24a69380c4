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
  server = await startServer({ CORS_ORIGINS: [strict.url, withSnippet.url].join(',') })
  strictHeaders['content-security-policy'] = policy()
  snippetHeaders['content-security-policy'] = policy(`'nonce-${NONCE}' `)
})
test.afterAll(async () => {
  await server?.stop()
  await Promise.all([strict?.stop(), withSnippet?.stop()])
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
