import { readFileSync } from 'node:fs'
import { type Browser, expect, type Page, test, type TestInfo } from '@playwright/test'
import { loginAs, snap } from './helpers'
import { type LingxiServer, startServer } from './server'

// A topic exported as Markdown and as a long PNG, shared by a link a logged-out visitor opens and
// the owner revokes, and a reply copied as plain text — on a desktop and on a phone.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

const QUESTION = '请展示数学公式和流程图 <img src=x onerror="window.pwned=1">'
const lastReply = (page: Page) => page.locator('[data-testid=message][data-role=assistant]').last()

/** Where a screenshot also goes for a look outside the report. */
/** PNG width and height from its IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

async function flow(page: Page, browser: Browser, info: TestInfo, phone: string, mobile: boolean) {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
  await page.goto(`${server.url}/chat`)
  await loginAs(page, server, phone)
  const composer = page.getByTestId('composer')
  await composer.fill(QUESTION)
  await composer.press('Enter')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(lastReply(page).locator('.katex').first()).toBeVisible()

  // Copy the reply: as Markdown (the source) and as plain text (what a reader sees).
  await lastReply(page).hover()
  await lastReply(page).getByRole('button', { name: '复制 Markdown' }).click()
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('```js')
  const markdownCopy = await page.evaluate(() => navigator.clipboard.readText())
  expect(markdownCopy).toContain('| 问题开头 |')
  await lastReply(page).getByRole('button', { name: '复制纯文本' }).click()
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).not.toContain('```')
  const plain = await page.evaluate(() => navigator.clipboard.readText())
  expect(plain).toContain('数学公式')
  expect(plain).toContain('console.log')
  expect(plain).not.toMatch(/^#{1,6} /m)
  expect(plain).not.toContain('| 问题开头 |')
  expect(plain).toContain('a^2 + b^2 = c^2')

  // The topic's menu: in the list beside the chat, or the header's drawer on a phone.
  if (mobile) await page.getByRole('banner').getByRole('button', { name: '话题列表' }).click()
  const item = page.getByTestId('topic-item').first()
  await item.hover()
  await item.getByRole('button', { name: '导出与分享' }).click()
  const dialog = page.getByRole('dialog', { name: '导出与分享' })
  await expect(dialog).toBeVisible()
  await snap(page, info, 'export and share dialog', 'chat-share-')

  // Markdown: the whole topic, question and reply, in a .md file.
  const mdDownload = page.waitForEvent('download')
  await dialog.getByRole('button', { name: '导出 Markdown' }).click()
  const md = await mdDownload
  expect(md.suggestedFilename()).toMatch(/\.md$/)
  const text = readFileSync((await md.path())!, 'utf8')
  expect(text).toMatch(/^# .+\n/)
  expect(text).toContain('## 我 · ')
  expect(text).toContain(QUESTION)
  expect(text).toContain('$$\nE = mc^2\n$$')
  expect(text).toContain('```mermaid')

  // PNG: a long image of the topic, drawn in the page.
  const pngDownload = page.waitForEvent('download', { timeout: 45_000 })
  await dialog.getByRole('button', { name: '导出图片（PNG）' }).click()
  const png = await pngDownload
  expect(png.suggestedFilename()).toMatch(/\.png$/)
  const bytes = readFileSync((await png.path())!)
  const size = pngSize(bytes)
  expect(size.width).toBe(1440)
  expect(size.height).toBeGreaterThan(1000)
  expect(bytes.length).toBeGreaterThan(40_000)
  await info.attach('exported topic', { body: bytes, contentType: 'image/png' })
  await png.saveAs(info.outputPath('exported-topic.png'))
  await expect(dialog.getByRole('status')).toHaveText('已导出图片')

  // Share: a link, opened by a visitor who is not logged in.
  await dialog.getByRole('button', { name: '创建分享链接' }).click()
  await expect(dialog.getByRole('status')).toHaveText('已创建分享链接')
  const field = dialog.getByTestId('share-link').getByRole('textbox')
  const link = await field.inputValue()
  expect(link).toMatch(new RegExp(`^${server.url}/share/[A-Za-z0-9_-]{24}$`))
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link)

  const visitor = await browser.newContext(
    mobile ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } }
  )
  // the visitor on a desktop has chosen the light theme
  if (!mobile) await visitor.addInitScript(() => localStorage.setItem('lingxi-theme', 'light'))
  const guest = await visitor.newPage()
  const errors: string[] = []
  guest.on('pageerror', (e) => errors.push(e.message))
  await guest.goto(link)
  const shared = guest.getByTestId('shared-message')
  await expect(shared).toHaveCount(2)
  await expect(shared.first()).toContainText(QUESTION)
  await expect(shared.last().locator('.katex').first()).toBeVisible()
  await expect(shared.last().locator('table')).toHaveCount(1)
  await expect(guest.getByRole('link', { name: '在灵犀中继续对话' })).toBeVisible()
  await expect(guest.getByTestId('composer')).toHaveCount(0)
  await expect(guest.getByRole('banner').getByRole('button', { name: '登录' })).toBeVisible()
  expect(await guest.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
  await snap(guest, info, 'shared topic', 'chat-share-')

  // Revoke from the topic's menu: the link is a 404 at once.
  await dialog.getByRole('button', { name: '撤销', exact: true }).click()
  await dialog.getByRole('button', { name: '确认撤销' }).click()
  await expect(dialog.getByRole('status')).toHaveText('已撤销分享，链接已失效')
  await expect(dialog.getByTestId('share-link')).toHaveCount(0)
  const id = link.split('/').pop()
  const api = await visitor.request.post(`${server.url}/api/v1/ai-chat/share/get`, { data: { shareId: id } })
  expect(api.status()).toBe(404)
  expect((await api.json()).code).toBe(40400001)
  await guest.reload()
  await expect(guest.getByTestId('share-gone')).toHaveText('分享不存在或已撤销')
  await expect(guest.getByTestId('shared-message')).toHaveCount(0)
  await snap(guest, info, 'revoked link', 'chat-share-')
  expect(errors).toEqual([])
  await visitor.close()

  // Esc closes the dialog, and only it: on a phone the topic drawer under it stays
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  if (mobile) await expect(page.getByRole('dialog', { name: '话题列表' })).toBeVisible()
}

test('desktop: export Markdown and PNG, share, open logged out, revoke, copy as plain text', async ({ page, browser }, info) => {
  test.setTimeout(120_000)
  await page.setViewportSize({ width: 1280, height: 800 })
  await flow(page, browser, info, '13800138501', false)
})

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
  test('export, share, revoke and copy on a phone', async ({ page, browser }, info) => {
    test.setTimeout(120_000)
    await flow(page, browser, info, '13800138502', true)
  })
})
