import { expect, type Locator, type Page, test } from '@playwright/test'
import { addSession, apiLogin } from './helpers'
import { type LingxiServer, startPartner, startServer } from './server'

// Issue 17: an announcement marked "also in embeds" shows in the chat bubble of a partner page, once
// per browser: a polite notice under the panel's header, above the messages (never a dialog, the
// focus left alone), dismissed for good; a site-only one never shows there. The notice's code loads only when the
// server lists one (widgets/chat/announcement.tsx).

const OPERATOR = '13900139077'
let server: LingxiServer
let partner: Awaited<ReturnType<typeof startPartner>>
/** The operator's token, once (a phone gets a few codes a minute). */
let token = ''

const html = () => `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>青禾书店</title>
<script async src="${server.url}/cdn/loader.js" data-api="${server.url}" data-chat="bubble"></script>
</head><body><main style="padding: 24px"><h1>青禾书店</h1><p>本周新书……</p></main></body></html>`

test.beforeAll(async () => {
  partner = await startPartner(html)
  server = await startServer({ CORS_ORIGINS: partner.url, ADMIN_PHONES: OPERATOR })
  token = await apiLogin(server, OPERATOR)
})
test.afterAll(async () => {
  await server?.stop()
  await partner?.stop()
})

async function announce(title: string, embeds: boolean) {
  const res = await fetch(`${server.url}/api/admin/announcements/save`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ title, body: `${title}的内容：本周六系统维护一小时。`, startTime: Date.now() - 60_000, endTime: Date.now() + 3_600_000, embeds })
  })
  expect(((await res.json()) as { code: number }).code).toBe(2000)
}

const launcher = (p: Page) => p.locator('lingxi-chat').locator('[part=launcher]')
const panel = (p: Page) => p.getByRole('dialog', { name: '灵犀 AI' })
const notice = (p: Page) => p.locator('lingxi-chat').locator('[part=announcement]')

/**
 * The notice is inside the panel, between its header and what follows it (the messages, or the
 * login prompt of a visitor): top to bottom, none overlapping, as wide as the panel.
 */
async function underHeader(p: Page, shown: Locator, next: Locator) {
  const at = async (l: Locator) => (await l.boundingBox())!
  const [box, header, below, frame] = [await at(shown), await at(panel(p).locator('[part=panel-header]')), await at(next), await at(panel(p))]
  expect(box.height).toBeGreaterThan(0)
  expect(header.y).toBeGreaterThanOrEqual(frame.y)
  expect(box.y).toBeGreaterThanOrEqual(header.y + header.height - 0.5)
  expect(below.y).toBeGreaterThanOrEqual(box.y + box.height - 0.5)
  expect(Math.abs(box.x - frame.x)).toBeLessThanOrEqual(1.5)
  expect(Math.abs(box.width - frame.width)).toBeLessThanOrEqual(3)
}

/** Opens the bubble and waits until it has asked for the announcements (and shown what it got). */
async function openBubble(p: Page) {
  await p.goto(partner.url)
  const asked = p.waitForResponse((r) => r.url().endsWith('/api/v1/announcements'))
  await launcher(p).click()
  await expect(panel(p)).toBeVisible()
  await asked
  await p.waitForTimeout(500)
}

for (const size of ['desktop', 'phone'] as const) {
  test(`an embed announcement shows once in the bubble, a site-only one never (${size})`, async ({ page, browser }) => {
    const viewport = size === 'phone' ? { width: 390, height: 844 } : { width: 1280, height: 800 }
    await page.setViewportSize(viewport)
    const site = `仅站内公告${size}`
    const embed = `嵌入公告${size}`
    await announce(site, false)
    // The scripts the page loads: the notice's chunk is the one with its part name.
    const scripts: Promise<string>[] = []
    page.on('response', (r) => {
      if (r.request().resourceType() === 'script') scripts.push(r.text().catch(() => ''))
    })
    const noticeCode = async () => (await Promise.all(scripts)).some((body) => /part:\s*"announcement"/.test(body))
    await openBubble(page)
    await expect(panel(page)).not.toContainText(site)
    // The first run: no embed announcement runs yet, so the notice's code is not loaded either.
    if (size === 'desktop') expect(await noticeCode()).toBe(false)

    await announce(embed, true)
    await openBubble(page)
    const shown = notice(page).filter({ hasText: embed })
    await expect(shown).toBeVisible()
    await expect(shown).toHaveAttribute('role', 'status')
    await expect(shown).toContainText(`${embed}的内容`)
    await expect(panel(page)).not.toContainText(site)
    // The notice does not take the focus.
    expect(await shown.evaluate((el) => el.contains(el.getRootNode() instanceof ShadowRoot ? (el.getRootNode() as ShadowRoot).activeElement : null))).toBe(
      false
    )
    // A visitor: under the panel's header, above the login prompt.
    await underHeader(page, shown, panel(page).getByRole('heading', { name: '登录后开始对话' }))
    await page.screenshot({ path: `/tmp/shots-ops/bubble-announcement-${size}.png` })
    expect(await noticeCode()).toBe(true)

    // Signed in (as a login on this page leaves it; another browser, so not dismissed there): under
    // the conversation's header, above its messages and the composer.
    const context = await browser.newContext({ locale: 'zh-CN', viewport })
    await addSession(context, server, token, partner.url)
    const signed = await context.newPage()
    await openBubble(signed)
    const there = notice(signed).filter({ hasText: embed })
    await expect(there).toBeVisible()
    await expect(panel(signed).getByRole('textbox')).toBeVisible()
    await underHeader(signed, there, panel(signed).getByRole('log', { name: '对话消息' }))
    await signed.screenshot({ path: `/tmp/shots-ops/bubble-announcement-signed-in-${size}.png` })
    await context.close()

    await shown.getByRole('button', { name: `关闭提示：${embed}` }).click()
    await expect(notice(page).filter({ hasText: embed })).toHaveCount(0)
    await page.reload()
    await openBubble(page)
    await expect(notice(page).filter({ hasText: embed })).toHaveCount(0)
    await expect(panel(page)).not.toContainText(embed)
  })
}
