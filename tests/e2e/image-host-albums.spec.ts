import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, type Page, type TestInfo, test } from '@playwright/test'
import { loginAs, shot as attach } from './helpers'
import { type LingxiServer, startServer } from './server'

// Albums of the image host, bulk upload with a progress bar per file (three at a time, a bad file
// failing alone), moving images, and deletion that removes the file and its thumbnail from disk.

let server: LingxiServer

/** Attaches a screenshot and keeps it as a file of the test's output, to look at. */
async function shot(page: Page, info: TestInfo, name: string) {
  await attach(page, info, name)
  await page.screenshot({ path: info.outputPath(`${name.replaceAll(' ', '-')}.png`) })
}
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

/** A small valid PNG of one colour (made in the page: no image library in the test). */
async function pngs(page: Page, n: number): Promise<{ name: string; mimeType: string; buffer: Buffer }[]> {
  const list = await page.evaluate(async (count) => {
    const out: string[] = []
    for (let i = 0; i < count; i++) {
      const canvas = document.createElement('canvas')
      canvas.width = 120 + i
      canvas.height = 80
      const g = canvas.getContext('2d')!
      g.fillStyle = `hsl(${(i * 47) % 360} 70% 55%)`
      g.fillRect(0, 0, canvas.width, canvas.height)
      out.push(canvas.toDataURL('image/png').split(',')[1]!)
    }
    return out
  }, n)
  return list.map((b64, i) => ({ name: `照片${i + 1}.png`, mimeType: 'image/png', buffer: Buffer.from(b64, 'base64') }))
}

const cards = (page: Page) => page.getByTestId('image-card')
const filesOnDisk = () => {
  try {
    return (readdirSync(join(server.dataDir, 'files'), { recursive: true }) as string[]).filter((f) => /\.[a-z0-9]+$/.test(f))
  } catch {
    return []
  }
}

async function flow(page: Page, phone: string, info: TestInfo) {
  await page.goto(`${server.url}/imgSee`)
  await loginAs(page, server, phone)
  await expect(page.getByRole('heading', { name: '图床' })).toBeVisible()

  // an album, shown at once
  await page.getByRole('button', { name: '＋ 新建相册' }).click()
  await page.getByRole('textbox', { name: '新相册名称' }).fill('旅行')
  await page.getByRole('button', { name: '创建' }).click()
  await expect(page.getByRole('button', { name: '旅行 (0)' })).toHaveAttribute('aria-pressed', 'true')

  // bulk upload into it: five images and one bad file; each its own progress bar; the bad one fails alone
  const files = [...(await pngs(page, 5)), { name: '坏文件.png', mimeType: 'image/png', buffer: Buffer.from('not an image at all') }]
  let running = 0
  let most = 0
  page.on('request', (r) => {
    if (r.method() === 'PUT' && r.url().includes('/oss/upload/put/')) most = Math.max(most, ++running)
  })
  page.on('requestfinished', (r) => {
    if (r.method() === 'PUT' && r.url().includes('/oss/upload/put/')) running--
  })
  await page.locator('input[type=file]').setInputFiles(files)
  await expect(page.getByTestId('upload-job')).toHaveCount(6)
  await expect(page.getByRole('progressbar', { name: '上传 照片1.png' })).toHaveAttribute('aria-valuemax', '100')
  await shot(page, info, 'bulk upload')
  await expect(page.getByTestId('upload-job').filter({ hasText: '坏文件.png' }).getByRole('alert')).toBeVisible()
  await expect(cards(page)).toHaveCount(5, { timeout: 30_000 })
  expect(most).toBeLessThanOrEqual(3)
  await expect(page.getByRole('button', { name: '旅行 (5)' })).toBeVisible()

  // another album; move one image there: it leaves 旅行
  await page.getByRole('button', { name: '＋ 新建相册' }).click()
  await page.getByRole('textbox', { name: '新相册名称' }).fill('宠物')
  await page.getByRole('button', { name: '创建' }).click()
  await expect(page.getByRole('button', { name: '宠物 (0)' })).toHaveAttribute('aria-pressed', 'true')
  await page.getByRole('button', { name: '旅行 (5)' }).click()
  await expect(cards(page)).toHaveCount(5)
  await cards(page).first().getByRole('combobox').selectOption({ label: '宠物' })
  await expect(cards(page)).toHaveCount(4)
  await expect(page.getByRole('button', { name: '宠物 (1)' })).toBeVisible()
  await page.getByRole('button', { name: '全部' }).click()
  await expect(cards(page)).toHaveCount(5)
  await shot(page, info, 'albums')

  // rename, then delete the album: its image stays, outside any album
  await page.getByRole('button', { name: '宠物 (1)' }).click()
  await page.getByRole('button', { name: '重命名' }).click()
  await page.getByRole('textbox', { name: '相册的新名称' }).fill('猫咪')
  await page.getByRole('button', { name: '保存' }).click()
  await expect(page.getByRole('button', { name: '猫咪 (1)' })).toBeVisible()
  await page.getByRole('button', { name: '删除相册' }).click()
  await page.getByRole('dialog', { name: '删除相册' }).getByRole('button', { name: '删除' }).click()
  await expect(page.getByRole('button', { name: /^猫咪/ })).toHaveCount(0)
  await page.getByRole('button', { name: '未分组' }).click()
  await expect(cards(page)).toHaveCount(1)

  // delete it: the file and its thumbnail leave the disk, the link answers 404
  const url = await cards(page).first().locator('img').getAttribute('src')
  const onDisk = filesOnDisk().length
  await cards(page)
    .first()
    .getByRole('button', { name: /^删除 / })
    .click()
  await page.getByRole('dialog', { name: '删除图片' }).getByRole('button', { name: '删除' }).click()
  await expect(cards(page)).toHaveCount(0)
  await expect.poll(() => filesOnDisk().length).toBe(onDisk - 2)
  expect((await page.request.get(new URL(url!, server.url).href)).status()).toBe(404)
}

test('albums, bulk upload with progress, move, rename, delete; deletion removes the bytes (desktop)', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await flow(page, '13800138320', info)
})

test.describe('phone (390×844, touch)', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
  test('the same on a phone', async ({ page }, info) => {
    await flow(page, '13800138321', info)
  })
})
