import { expect, test, type Page } from '@playwright/test'
import { loginAs, shot } from './helpers'
import { makePng } from './png'
import { startServer, type LingxiServer } from './server'

// The image host on the host page against the real server (local storage under DATA_DIR): upload
// by the file chooser and by paste with progress, a refused file, copy links, preview, delete;
// desktop and phone sizes.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

const cards = (page: Page) => page.getByTestId('image-card')

async function choose(page: Page, files: { name: string; mimeType: string; buffer: Buffer }[]) {
  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: '选择图片', exact: true }).click()
  await (await chooser).setFiles(files)
}

test('upload by chooser, paste and drop, copy links, preview with the keyboard, delete', async ({ page, context }, info) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
  await page.goto(server.url + '/imgSee')
  await loginAs(page, server, '13800138501')
  await expect(page.getByRole('heading', { name: '图床' })).toBeVisible()
  await expect(page.getByText('还没有图片，上传第一张吧。')).toBeVisible()

  // A slow network (about 1 MB/s up) so that the progress bar is seen moving.
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 1024 * 1024 })
  const big = makePng(1000, 1000, { noise: true, seed: 7 }) // ~3 MB
  await choose(page, [
    { name: '噪点.png', mimeType: 'image/png', buffer: big },
    { name: '改名的程序.png', mimeType: 'image/png', buffer: Buffer.from('MZ\x90\x00\x03\x00\x00\x00 this is not an image') }
  ])
  const job = page.getByTestId('upload-job').filter({ hasText: '噪点.png' })
  const bar = job.getByRole('progressbar')
  await expect(bar).toBeVisible()
  // progress is reported while the bytes go out
  await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 20_000 }).toBeGreaterThan(0)
  const midway = Number(await bar.getAttribute('aria-valuenow'))
  await shot(page, info, 'uploading')
  expect(midway).toBeLessThan(100)
  // the renamed program is refused before anything is sent, next to its name
  await expect(page.getByTestId('upload-job').filter({ hasText: '改名的程序.png' }).getByRole('alert')).toHaveText('只能上传 PNG、JPEG、WebP 或 GIF 图片')
  await expect(cards(page)).toHaveCount(1, { timeout: 30_000 })
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
  await expect(cards(page).first()).toContainText('噪点.png')
  await expect(cards(page).first()).toContainText('1000×1000')

  // paste an image anywhere on the page
  const pasted = makePng(320, 200, { seed: 3 }).toString('base64')
  await page.evaluate((b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
    const data = new DataTransfer()
    data.items.add(new File([bytes], '粘贴.png', { type: 'image/png' }))
    document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
  }, pasted)
  await expect(cards(page)).toHaveCount(2)
  await expect(cards(page).first()).toContainText('粘贴.png')
  await expect(cards(page).first()).toContainText('320×200')
  // the thumbnail is a real image served by the server
  const thumb = cards(page).first().locator('img')
  await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0)
  await shot(page, info, 'grid')

  // copy the link in the three formats
  const first = cards(page).first()
  await first.getByRole('button', { name: '复制 URL 链接' }).click()
  await expect(page.getByText('已复制到剪切板！')).toBeVisible()
  const url = await page.evaluate(() => navigator.clipboard.readText())
  expect(url).toMatch(new RegExp(`^${server.url.replace(/[.]/g, '\\.')}/files/.+\\.png$`))
  expect((await page.request.get(url)).headers()['content-type']).toBe('image/png')
  await first.getByRole('button', { name: '复制 Markdown 链接' }).click()
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`![粘贴](${url})`)
  await first.getByRole('button', { name: '复制 HTML 链接' }).click()
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`<img src="${url}" alt="粘贴">`)

  // preview: arrows move, Esc closes and gives focus back
  await first.getByRole('button', { name: '预览 粘贴.png' }).click()
  const preview = page.getByRole('dialog', { name: '预览：粘贴.png' })
  await expect(preview).toBeVisible()
  await expect(preview.getByText('第 1 / 2 张')).toBeVisible()
  await shot(page, info, 'preview')
  await page.keyboard.press('ArrowRight')
  await expect(page.getByRole('dialog', { name: '预览：噪点.png' })).toBeVisible()
  await page.keyboard.press('ArrowRight')
  await expect(preview).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(preview).toBeHidden()
  await expect(first.getByRole('button', { name: '预览 粘贴.png' })).toBeFocused()

  // delete after confirming: the card and the file are gone
  await first.getByRole('button', { name: '删除 粘贴.png' }).click()
  const ask = page.getByRole('dialog', { name: '删除图片' })
  await expect(ask).toContainText('粘贴.png')
  await ask.getByRole('button', { name: '删除' }).click()
  await expect(cards(page)).toHaveCount(1)
  expect((await page.request.get(url)).status()).toBe(404)

  // everything survives a reload (it is the server's list, not the page's)
  await page.reload()
  await expect(cards(page)).toHaveCount(1)
  await expect(cards(page).first()).toContainText('噪点.png')

  // drag and drop onto the upload area
  const dropped = makePng(200, 120, { seed: 9 }).toString('base64')
  const dataTransfer = await page.evaluateHandle((b64) => {
    const data = new DataTransfer()
    data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], '拖入.png', { type: 'image/png' }))
    return data
  }, dropped)
  const zone = page.getByTestId('dropzone')
  await zone.dispatchEvent('dragover', { dataTransfer })
  await zone.dispatchEvent('drop', { dataTransfer })
  await expect(cards(page)).toHaveCount(2)
  await expect(cards(page).first()).toContainText('拖入.png')
  await expect(cards(page).first()).toContainText('200×120')
})

test.describe('phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('upload from the picker and preview on a phone', async ({ page }, info) => {
    await page.goto(server.url + '/imgSee')
    await loginAs(page, server, '13800138502')
    await expect(page.getByText('选择图片上传')).toBeVisible()
    await choose(page, [
      { name: 'a.png', mimeType: 'image/png', buffer: makePng(300, 400, { seed: 1 }) },
      { name: 'b.png', mimeType: 'image/png', buffer: makePng(400, 300, { seed: 2 }) }
    ])
    await expect(cards(page)).toHaveCount(2)
    // two columns, nothing wider than the screen
    const boxes = await cards(page).evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: Math.round(r.x), w: r.width })))
    expect(boxes[0]!.x).toBeLessThan(boxes[1]!.x)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await shot(page, info, 'phone grid')
    await cards(page).first().getByRole('button', { name: /^预览/ }).click()
    await expect(page.getByTestId('lightbox')).toBeVisible()
    await shot(page, info, 'phone preview')
  })
})
