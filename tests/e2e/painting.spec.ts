import { expect, test, type Locator, type Page, type TestInfo } from '@playwright/test'
import { loginAs, shot as attach } from './helpers'
import { startServer, type LingxiServer } from './server'

// AI painting on the host page with the offline demo painter: imagine → U2 → pan left, V3, reroll,
// describe → P1, blend, an SD image, publishing to the gallery and 做同款 back into /mj, the prompt
// helper; desktop and phone.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer({ PAINTING_DEMO_DELAY_MS: '1500' })
})
test.afterAll(async () => {
  await server?.stop()
})

/** Attaches a screenshot to the report and keeps it in the test's output folder. */
async function shot(page: Page, info: TestInfo, name: string) {
  await attach(page, info, name)
  await page.screenshot({ path: info.outputPath(`${name.replace(/\s+/g, '-')}.png`) })
}

const cards = (page: Page, action: string) => page.locator(`[data-testid=task-card][data-action=${action}]`)
const finished = async (card: Locator) => expect(card).toHaveAttribute('data-status', 'SUCCESS', { timeout: 30_000 })
const press = (card: Locator, label: string) => card.locator(`button[data-label="${label}"]`).click()

/** A real PNG made by the browser itself (a screenshot of part of the page), as an upload. */
async function png(page: Page, name: string, x: number) {
  return { name, mimeType: 'image/png', buffer: await page.screenshot({ clip: { x, y: 0, width: 256, height: 256 } }) }
}

test('imagine, U2, pan, V3, reroll, describe → P1, blend, SD, gallery and 做同款', async ({ page }, info) => {
  test.setTimeout(240_000)
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto(server.url + '/mj')
  await loginAs(page, server, '13800138501')
  await expect(page).toHaveURL(/\/mj$/)

  // options typed into the prompt show in the controls, and the controls write back
  const prompt = page.getByTestId('mj-prompt')
  await prompt.fill('雨中奔跑的橘猫，电影感 —ar 16:9 --s 250')
  await expect(page.getByTestId('opt-aspect')).toHaveValue('16:9')
  await expect(page.getByTestId('opt-stylize')).toHaveValue('250')
  await page.getByTestId('opt-aspect').selectOption('1:1')
  await expect(prompt).toHaveValue('雨中奔跑的橘猫，电影感 --ar 1:1 --s 250')
  await page.getByRole('button', { name: '生成', exact: true }).click()

  const imagine = cards(page, 'IMAGINE').first()
  await expect(imagine).toBeVisible()
  await expect(imagine.getByRole('progressbar')).toBeVisible()
  await shot(page, info, 'imagine in progress')
  await finished(imagine)
  await expect(imagine.locator('img')).toHaveAttribute('src', /\/files\//)
  await expect(imagine.getByText('演示')).toBeVisible()
  await shot(page, info, 'grid with buttons')

  // U2 → the pans
  await press(imagine, 'U2')
  const upscale = cards(page, 'UPSCALE').first()
  await finished(upscale)
  await expect(imagine.locator('button[data-label=U2]')).toBeDisabled()
  await press(upscale, '⬅️')
  const pan = cards(page, 'PAN').first()
  await finished(pan)
  await expect(pan.locator('button[data-label=U1]')).toBeVisible()

  // V3 and reroll on the first grid
  await press(imagine, 'V3')
  await finished(cards(page, 'VARIATION').first())
  await press(imagine, '🔄')
  await finished(cards(page, 'REROLL').first())
  await shot(page, info, 'actions done')

  // lightbox with download, then publish the variation to the gallery
  await cards(page, 'VARIATION').first().getByRole('button', { name: '查看大图' }).click()
  const lightbox = page.getByRole('dialog', { name: '查看大图' })
  await expect(lightbox).toBeVisible()
  await expect(lightbox.getByRole('link', { name: '下载原图' })).toHaveAttribute('download', /^lingxi-.+\.(png|jpe?g|webp)$/)
  await shot(page, info, 'lightbox')
  await lightbox.getByRole('button', { name: '发布到画廊' }).click()
  await expect(page.getByText('已发布到画廊')).toBeVisible()
  await expect(lightbox.getByRole('button', { name: '从画廊撤下' })).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(lightbox).toBeHidden()

  // describe an uploaded image → P1 starts an imagine with the first prompt
  await page.getByRole('tab', { name: '识图' }).click()
  await page
    .getByTestId('describe-picker')
    .locator('input[type=file]')
    .setInputFiles(await png(page, 'a.png', 0))
  await expect(page.getByTestId('describe-picker').getByRole('img')).toBeVisible()
  await page.getByRole('button', { name: '识图', exact: true }).click()
  const describe = cards(page, 'DESCRIBE').first()
  await finished(describe)
  await expect(describe.locator('ol li')).toHaveCount(4)
  const first = ((await describe.locator('ol li').first().locator('span').last().textContent()) ?? '').trim()
  await press(describe, 'P1')
  const fromPrompt = page.locator('[data-testid=work-list] [data-testid=task-card]').first()
  await expect(fromPrompt).toHaveAttribute('data-action', 'IMAGINE')
  await expect(fromPrompt).toContainText(first.slice(0, 20))
  await finished(fromPrompt)

  // blend two uploads, landscape
  await page.getByRole('tab', { name: '混图' }).click()
  await page
    .getByTestId('blend-picker')
    .locator('input[type=file]')
    .setInputFiles([await png(page, 'b.png', 300), await png(page, 'c.png', 600)])
  await expect(page.getByTestId('blend-picker').getByRole('img')).toHaveCount(2)
  await page.getByText('横图 3:2').click()
  await page.getByRole('button', { name: /^混图（2 张）$/ }).click()
  const blend = cards(page, 'BLEND').first()
  await finished(blend)
  await shot(page, info, 'describe and blend')

  // history lists the jobs
  await page.getByRole('button', { name: '刷新' }).first().click()
  await expect(page.getByTestId('history-mj').getByTestId('history-item')).not.toHaveCount(0)

  // an SD image
  await page.goto(server.url + '/sd')
  await expect(page.getByTestId('sd-prompt')).toBeVisible()
  await page.getByTestId('sd-prompt').fill('a lighthouse on a snowy cliff, soft light')
  await page.getByRole('button', { name: '生成', exact: true }).click()
  const sd = page.locator('[data-testid=sd-work-list] [data-testid=task-card]').first()
  await finished(sd)
  await expect(sd.locator('img')).toHaveAttribute('src', /\/files\//)
  await shot(page, info, 'sd')

  // the gallery shows the published work; 做同款 brings its prompt to /mj
  await page.goto(server.url + '/gallery')
  const work = page.getByTestId('gallery-item').first()
  await expect(work).toBeVisible()
  await expect(work).toContainText('雨中奔跑的橘猫')
  // the author's nickname, masked; never the phone number
  await expect(work).toContainText('***')
  await expect(work).not.toContainText('13800138501')
  await shot(page, info, 'gallery')
  await work.getByRole('button', { name: '做同款' }).click()
  await expect(page).toHaveURL(/\/mj\?prompt=/)
  await expect(page.getByTestId('mj-prompt')).toHaveValue(/^雨中奔跑的橘猫，电影感/)

  // the helper builds a prompt from words and sends it to /mj
  await page.goto(server.url + '/mjHelper')
  await expect(page.getByTestId('helper-category')).not.toHaveCount(0)
  expect(await page.getByTestId('helper-category').count()).toBeGreaterThanOrEqual(8)
  await page.getByTestId('helper-subject').fill('柴犬')
  await page.getByRole('button', { name: '赛博朋克' }).click()
  await page.getByRole('button', { name: '横图 16:9' }).click()
  await expect(page.getByTestId('helper-prompt')).toHaveValue('柴犬, cyberpunk --ar 16:9')
  await shot(page, info, 'helper')
  await page.getByRole('button', { name: '发送到 AI 绘画' }).click()
  await expect(page).toHaveURL(/\/mj\?prompt=/)
  await expect(page.getByTestId('mj-prompt')).toHaveValue('柴犬, cyberpunk --ar 16:9')
})

test('phone layout: composer above the jobs, buttons wrap, lightbox fits', async ({ page }, info) => {
  test.setTimeout(120_000)
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto(server.url + '/mj')
  await loginAs(page, server, '13800138502')
  await page.getByTestId('mj-prompt').fill('海边的灯塔 --ar 3:4')
  await page.getByRole('button', { name: '生成', exact: true }).click()
  const imagine = cards(page, 'IMAGINE').first()
  await finished(imagine)
  await imagine.scrollIntoViewIfNeeded()
  const box = await imagine.boundingBox()
  expect(box!.width).toBeLessThanOrEqual(390)
  // the buttons stay inside the card
  const last = await imagine.locator('button[data-label="🔄"]').boundingBox()
  expect(last!.x + last!.width).toBeLessThanOrEqual(box!.x + box!.width)
  await shot(page, info, 'phone grid')
  await imagine.getByRole('button', { name: '查看大图' }).click()
  await expect(page.getByRole('dialog', { name: '查看大图' })).toBeVisible()
  await shot(page, info, 'phone lightbox')
  await page.keyboard.press('Escape')
  await page.goto(server.url + '/gallery')
  await shot(page, info, 'phone gallery')
})

test.describe('phone (390×844, touch)', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('生成 keeps the prompt and brings the new task into view', async ({ page }, info) => {
    test.setTimeout(120_000)
    await page.goto(server.url + '/mj')
    await loginAs(page, server, '13800138503')
    const prompt = page.getByTestId('mj-prompt')
    await prompt.fill('雪山下的小木屋，清晨 --ar 3:4')
    // the button at the bottom of the screen, just above the bottom bar, as a thumb meets it
    const submit = page.getByRole('button', { name: '生成', exact: true })
    const b = (await submit.boundingBox())!
    await page.evaluate((dy) => window.scrollBy(0, dy), b.y + b.height - (844 - 51 - 16))
    await submit.tap()
    const card = cards(page, 'IMAGINE').first()
    await expect(card).toBeAttached()
    // the card's top shows between the header and the bottom bar
    await expect
      .poll(async () => {
        const box = await card.boundingBox()
        return box !== null && box.y >= 64 && box.y <= 844 - 51 - 40
      })
      .toBe(true)
    // the prompt stays, for a variant
    await expect(prompt).toHaveValue('雪山下的小木屋，清晨 --ar 3:4')
    await shot(page, info, 'phone after 生成')
  })
})
