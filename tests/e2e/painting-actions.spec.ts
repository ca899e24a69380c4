import { expect, test, type Locator, type Page, type TestInfo } from '@playwright/test'
import { loginAs, shot as attach } from './helpers'
import { startServer, type LingxiServer } from './server'

// The Midjourney actions beyond U/V on the offline demo painter (zoom 2x / custom, vary, upscale
// creative, vary region with the mask editor, shorten, the English prompt preview) and SD inpaint;
// the mask editor is drawn with a mouse on desktop and with a finger (touch events) on a phone, and
// its code is fetched only when it is opened.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer({ PAINTING_DEMO_DELAY_MS: '300' })
})
test.afterAll(async () => {
  await server?.stop()
})

async function shot(page: Page, info: TestInfo, name: string) {
  await attach(page, info, name)
  await page.screenshot({ path: info.outputPath(`${name.replace(/\s+/g, '-')}.png`) })
}

const cards = (page: Page, action: string) => page.locator(`[data-testid=task-card][data-action=${action}]`)
const finished = async (card: Locator) => expect(card).toHaveAttribute('data-status', 'SUCCESS', { timeout: 30_000 })
const press = (card: Locator, label: string) => card.locator(`button[data-label="${label}"]`).click()

/** Scripts fetched so far whose URL names the mask editor's chunk. */
function maskChunks(page: Page) {
  const seen: string[] = []
  page.on('request', (req) => {
    if (req.resourceType() === 'script' && /mask-editor/.test(req.url())) seen.push(req.url())
  })
  return seen
}

/** Imagine, then U1: the upscaled card with the edit buttons. */
async function upscaled(page: Page, text: string) {
  await page.getByTestId('mj-prompt').fill(text)
  await page.getByRole('button', { name: '生成', exact: true }).click()
  const grid = cards(page, 'IMAGINE').first()
  await finished(grid)
  await press(grid, 'U1')
  const up = cards(page, 'UPSCALE').first()
  await finished(up)
  return up
}

/** A stroke across the middle of the canvas with the mouse. */
async function mouseStroke(page: Page, canvas: Locator, from = 0.3, to = 0.7) {
  const box = (await canvas.boundingBox())!
  await page.mouse.move(box.x + box.width * from, box.y + box.height * 0.5)
  await page.mouse.down()
  for (let i = 1; i <= 8; i++) await page.mouse.move(box.x + box.width * (from + ((to - from) * i) / 8), box.y + box.height * (0.5 + i / 40))
  await page.mouse.up()
}

test('desktop: prompt preview, zoom 2x and custom, vary, upscale creative, vary region with the mouse, shorten, SD inpaint', async ({ page }, info) => {
  test.setTimeout(240_000)
  await page.setViewportSize({ width: 1280, height: 800 })
  const chunks = maskChunks(page)
  await page.goto(server.url + '/mj')
  await loginAs(page, server, '13800138601')
  await expect(page).toHaveURL(/\/mj$/)

  // The English of a Chinese prompt, shown and edited before imagine.
  const prompt = page.getByTestId('mj-prompt')
  await prompt.fill('一只可爱的猫，赛博朋克 --ar 1:1')
  await page.getByTestId('prompt-preview').click()
  const english = page.getByTestId('prompt-english').locator('textarea')
  await expect(english).toHaveValue('cute cat, cyberpunk --ar 1:1')
  await english.fill('a cute cat, cyberpunk, neon --ar 1:1')
  await shot(page, info, 'prompt preview')
  await page.getByRole('button', { name: '使用英文' }).click()
  await expect(prompt).toHaveValue('a cute cat, cyberpunk, neon --ar 1:1')

  const up = await upscaled(page, 'a cute cat, cyberpunk, neon --ar 1:1')
  await expect(up.locator('button[data-label="局部重绘"]')).toBeVisible()
  await shot(page, info, 'upscaled with edit buttons')

  await press(up, '缩小 2x')
  await finished(cards(page, 'ZOOM').first())
  await press(up, '微变')
  await finished(cards(page, 'VARY').first())
  await press(up, '高清 创意')
  const hd = cards(page, 'UPSCALE_HD').first()
  await finished(hd)

  await press(up, '自定义缩放')
  const zoomForm = up.getByTestId('custom-zoom')
  await expect(zoomForm).toBeVisible()
  await zoomForm.locator('input[type=range]').fill('1.3')
  await zoomForm.getByRole('button', { name: '缩放' }).click()
  await expect(zoomForm).toBeHidden()
  await expect(cards(page, 'ZOOM')).toHaveCount(2)
  await finished(cards(page, 'ZOOM').first())
  await shot(page, info, 'zoom vary upscale done')

  // Vary region: the editor's code arrives only now.
  expect(chunks).toEqual([])
  await press(up, '局部重绘')
  const editor = page.getByTestId('mask-editor')
  await expect(editor).toBeVisible()
  expect(chunks.length).toBeGreaterThan(0)
  const canvas = editor.getByTestId('mask-canvas')
  await mouseStroke(page, canvas)
  await expect(canvas).toHaveAttribute('data-strokes', '1')
  await editor.getByRole('button', { name: '撤销' }).click()
  await expect(canvas).toHaveAttribute('data-strokes', '0')
  await expect(editor.getByRole('button', { name: '重绘涂抹区域' })).toBeDisabled()
  await editor.getByLabel('笔刷大小').fill('14')
  await mouseStroke(page, canvas, 0.2, 0.6)
  await mouseStroke(page, canvas, 0.4, 0.8)
  await expect(canvas).toHaveAttribute('data-strokes', '2')
  await editor.locator('textarea').fill('a red lantern')
  await shot(page, info, 'mask editor desktop')
  await editor.getByRole('button', { name: '重绘涂抹区域' }).click()
  await expect(editor).toBeHidden()
  const region = cards(page, 'VARY_REGION').first()
  await finished(region)
  await expect(region).toContainText('a red lantern')

  // Shorten → P1 imagines the first shorter prompt.
  await page.getByRole('tab', { name: '精简' }).click()
  await page.getByTestId('shorten-prompt').fill('a very beautiful red fox, sitting in the snow, highly detailed, cinematic light')
  await page.getByRole('button', { name: '精简', exact: true }).click()
  const short = cards(page, 'SHORTEN').first()
  await finished(short)
  await expect(short.locator('ol li').first()).toContainText('red fox')
  await press(short, 'P1')
  await expect(page.locator('[data-testid=work-list] [data-testid=task-card]').first()).toHaveAttribute('data-action', 'IMAGINE')
  await shot(page, info, 'shorten')

  // SD inpaint: upload, paint the mask, draw.
  await page.goto(server.url + '/sd')
  await page.getByText('局部重绘', { exact: true }).click()
  await page
    .getByTestId('sd-image-picker')
    .locator('input[type=file]')
    .setInputFiles({ name: 'p.png', mimeType: 'image/png', buffer: await page.screenshot({ clip: { x: 0, y: 0, width: 320, height: 240 } }) })
  await expect(page.getByTestId('sd-image-picker').getByRole('img')).toBeVisible()
  await page.getByTestId('sd-mask-open').click()
  const sdEditor = page.getByTestId('mask-editor')
  await mouseStroke(page, sdEditor.getByTestId('mask-canvas'))
  await sdEditor.getByRole('button', { name: '使用这个蒙版' }).click()
  await expect(page.getByTestId('sd-mask-state')).toHaveText('已涂抹，只重绘涂抹区域')
  await page.getByTestId('sd-prompt').fill('a castle, watercolor')
  await page.getByRole('button', { name: '生成', exact: true }).click()
  const inpaint = cards(page, 'INPAINT').first()
  await finished(inpaint)
  await shot(page, info, 'sd inpaint')
})

test.describe('phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('the mask editor is drawn with a finger; zoom and vary on the demo painter', async ({ page }, info) => {
    test.setTimeout(180_000)
    await page.goto(server.url + '/mj')
    await loginAs(page, server, '13800138602')
    const up = await upscaled(page, 'a lighthouse on a rocky shore --ar 3:4')
    await up.locator('button[data-label="缩小 1.5x"]').tap()
    await finished(cards(page, 'ZOOM').first())
    await up.locator('button[data-label="强变"]').tap()
    await finished(cards(page, 'VARY').first())
    await shot(page, info, 'phone actions')

    await up.locator('button[data-label="局部重绘"]').tap()
    const editor = page.getByTestId('mask-editor')
    await expect(editor).toBeVisible()
    const canvas = editor.getByTestId('mask-canvas')
    const box = (await canvas.boundingBox())!
    expect(box.width).toBeLessThanOrEqual(390)
    // A finger drags across the picture: touchstart, touchmoves, touchend where it lifts (as a phone sends them).
    const cdp = await page.context().newCDPSession(page)
    const at = (i: number) => ({ x: box.x + box.width * (0.25 + i * 0.05), y: box.y + box.height * (0.4 + i * 0.02), id: 1 })
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at(0)] })
    for (let i = 1; i <= 10; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at(i)] })
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [at(10)] })
    await expect(canvas).toHaveAttribute('data-strokes', '1')
    await shot(page, info, 'mask editor phone')
    // Submitted with a click: a tap synthesised right after CDP touches is at times swallowed by
    // Chromium's gesture state here (a test artefact, noted in the report); the drawing above is the finger's.
    await editor.getByRole('button', { name: '重绘涂抹区域' }).click()
    await expect(editor).toBeHidden()
    await finished(cards(page, 'VARY_REGION').first())
    await shot(page, info, 'phone vary region done')
  })
})
