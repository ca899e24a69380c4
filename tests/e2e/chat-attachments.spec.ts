import { expect, type Page, test, type TestInfo } from '@playwright/test'
import { axe, loginAs, snap } from './helpers'
import { makePng } from './png'
import { type LingxiServer, startServer } from './server'

// Images and files in a message (issue 20, item 1) on the offline demo model: pick an image and a
// text file, see them upload, send, and find a thumbnail and a chip on the question and a reply
// that names the files — on a desktop (light theme too) and on a phone.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

const question = (page: Page) => page.locator('[data-testid=message][data-role=user]').last()
const lastReply = (page: Page) => page.locator('[data-testid=message][data-role=assistant]').last()

async function flow(page: Page, info: TestInfo, phone: string, tag: string, mobile: boolean) {
  await page.goto(`${server.url}/chat`)
  await loginAs(page, server, phone)
  const composer = page.getByTestId('composer')
  await expect(composer).toBeVisible()

  // The pick button: an image, through the system's file chooser.
  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: '添加附件' }).click()
  await (await chooser).setFiles([{ name: 'cat.png', mimeType: 'image/png', buffer: makePng(320, 200, { noise: true }) }])
  // A text file: dropped on the field (on a phone, picked as well).
  const text = Buffer.from('购物清单：苹果、香蕉\n牛奶\n')
  if (mobile) {
    const second = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: '添加附件' }).click()
    await (await second).setFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: text }])
  } else {
    const transfer = await page.evaluateHandle((content) => {
      const dt = new DataTransfer()
      dt.items.add(new File([content], 'notes.txt', { type: 'text/plain' }))
      return dt
    }, text.toString())
    await composer.dispatchEvent('drop', { dataTransfer: transfer })
  }
  const chips = page.locator('[data-testid=attachment]')
  await expect(chips).toHaveCount(2)
  await expect(page.locator('[data-testid=attachment][data-state=done]')).toHaveCount(2, { timeout: 20_000 })
  await expect(page.getByRole('button', { name: '移除「cat.png」' })).toBeVisible()
  await snap(page, info, `${tag} tray`, 'chat-attachments-')
  await axe(page, 'the composer with files')

  await composer.fill('帮我看看这两个附件')
  await composer.press('Enter')
  await expect(chips).toHaveCount(0)
  await expect(question(page).getByTestId('attachment-image')).toBeVisible()
  await expect(question(page).getByTestId('attachment-document')).toContainText('notes.txt')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(lastReply(page)).toContainText('图片「cat.png」')
  await expect(lastReply(page)).toContainText('320×200 像素')
  await expect(lastReply(page)).toContainText('文档「notes.txt」')
  await expect(lastReply(page)).toContainText('第一行是：「购物清单：苹果、香蕉」')
  // The thumbnail is the file, fetched with the login (the server serves it to its owner only).
  await expect(question(page).locator('[data-testid=attachment-image] img')).toHaveJSProperty('complete', true)
  expect(
    await question(page)
      .locator('[data-testid=attachment-image] img')
      .evaluate((img: HTMLImageElement) => img.naturalWidth)
  ).toBeGreaterThan(0)
  await question(page).scrollIntoViewIfNeeded()
  await snap(page, info, `${tag} sent`, 'chat-attachments-')
  await axe(page, 'a question with files')

  // Click to enlarge; Escape closes.
  await question(page).getByRole('button', { name: '查看图片「cat.png」' }).click()
  const dialog = page.getByRole('dialog', { name: 'cat.png' })
  await expect(dialog.locator('img')).toBeVisible()
  expect(await dialog.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(320)
  await snap(page, info, `${tag} enlarged`, 'chat-attachments-')
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()

  // Kept with the topic: a reload shows them again.
  await page.reload()
  await expect(question(page).getByTestId('attachment-image')).toBeVisible({ timeout: 20_000 })
  await expect(question(page).getByTestId('attachment-document')).toContainText('notes.txt')
}

test('desktop: pick an image, drop a text file, send, see the thumbnail, the chip and the demo answer', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await flow(page, info, '13800138601', 'desktop', false)
})

test('desktop, light theme', async ({ page }, info) => {
  await page.addInitScript(() => localStorage.setItem('lingxi-theme', 'light'))
  await page.setViewportSize({ width: 1280, height: 800 })
  await flow(page, info, '13800138602', 'desktop-light', false)
})

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
  test('attach, send and see the files on a phone', async ({ page }, info) => {
    await flow(page, info, '13800138603', 'phone', true)
  })
})
