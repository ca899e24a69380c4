import { mkdirSync } from 'node:fs'
import { expect, type Locator, type Page, test } from '@playwright/test'
import { completeLogin, loginDialog } from './embed-helpers'
import { startPartner, startServer, type LingxiServer } from './server'

// Issue 16 item 5: a widget lays out by the width the page gives it, not by the window's. The
// same desktop page (1280×800) holds the chat, painting (SD) and hot news in a 360px sidebar, then
// in a 1000px column: phone layout in the first, desktop layout in the second.

let server: LingxiServer
let partner: Awaited<ReturnType<typeof startPartner>>
let layout: 'sidebar' | 'column' = 'sidebar'

const widgets = `
  <lingxi-chat></lingxi-chat>
  <lingxi-painting view="sd"></lingxi-painting>
  <lingxi-hot-news></lingxi-hot-news>`
const article = '<h1>合作方文章</h1><p>正文段落：页面自己的内容占据主栏。</p>'

const html = () => `<!doctype html>
<html lang="zh-CN">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>容器布局 · 合作方页面</title>
    <script async src="${server.url}/cdn/loader.js" data-api="${server.url}"></script>
    <style>
      body { margin: 0; font-family: sans-serif; background: #f6f6f6; color: #222; }
      .page { display: flex; gap: 24px; padding: 24px; align-items: flex-start; }
      .main { flex: 1; min-width: 0; }
      .side { width: 360px; flex: none; }
      .column { width: 1000px; flex: none; }
      lingxi-chat { display: block; height: 520px; }
      lingxi-chat, lingxi-painting, lingxi-hot-news { margin-bottom: 24px; }
    </style>
  </head>
  <body>
    ${
      layout === 'sidebar'
        ? `<div class="page"><main class="main">${article}</main><aside class="side" id="box">${widgets}</aside></div>`
        : `<div class="page"><main class="column" id="box">${widgets}</main><aside class="main">${article}</aside></div>`
    }
  </body>
</html>`

test.beforeAll(async () => {
  partner = await startPartner(html)
  server = await startServer({ CORS_ORIGINS: partner.url })
})
test.afterAll(async () => {
  await server?.stop()
  await partner?.stop()
})

async function shot(p: Page, name: string) {
  mkdirSync('/tmp/shots-cq', { recursive: true })
  await p.waitForTimeout(400) // entrance animations end
  await p.screenshot({ path: `/tmp/shots-cq/embed-container-${name}.png`, fullPage: true })
}

/** Opens the page and logs in once (the session is shared by the three elements). */
async function open(p: Page, which: typeof layout, phone: string) {
  layout = which
  await p.setViewportSize({ width: 1280, height: 800 })
  await p.goto(partner.url)
  const chat = p.locator('lingxi-chat')
  const login = chat.getByRole('button', { name: '登录', exact: true })
  await expect(login.or(chat.getByTestId('composer'))).toBeVisible()
  if (await login.isVisible()) {
    await login.click()
    await completeLogin(p, server, phone)
    await expect(loginDialog(p)).toHaveCount(0)
  }
  await expect(chat.getByTestId('composer')).toBeVisible()
  const box = await p.locator('#box').boundingBox()
  expect(box?.width).toBe(which === 'sidebar' ? 360 : 1000)
}

/** The left padding of the chat's composer bar (12px on a phone, 16px wider). */
const composerPadding = (chat: Locator) =>
  chat.getByTestId('composer').evaluate((el) => {
    const bar = el.closest('[class~="cq-md:px-4"]')
    if (!bar) throw new Error('the composer bar is missing')
    return getComputedStyle(bar).paddingLeft
  })

/** The number of tracks of a grid's computed `grid-template-columns`. */
const tracks = (grid: Locator) => grid.evaluate((el) => getComputedStyle(el).gridTemplateColumns.split(' ').length)

test('in a 360px sidebar of a desktop page, chat, painting and hot news use their phone layout', async ({ page }) => {
  await open(page, 'sidebar', '13500135001')

  // chat: no topic list beside the conversation; 话题列表 opens it as a drawer
  const chat = page.locator('lingxi-chat')
  await expect(chat.getByRole('complementary', { name: '话题' })).toHaveCount(0)
  await chat.getByRole('button', { name: '话题列表' }).click()
  const drawer = chat.getByRole('dialog', { name: '话题列表' })
  await expect(drawer).toBeVisible()
  await expect(drawer.getByRole('button', { name: '新建对话' })).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(drawer).toBeHidden()
  expect(await composerPadding(chat)).toBe('12px')

  // painting: the SD form and its results in one column, one above the other
  const painting = page.locator('lingxi-painting')
  const form = painting.getByRole('form', { name: 'SD 绘画' })
  await expect(form).toBeVisible()
  const grid = form.locator('xpath=..')
  expect(await tracks(grid)).toBe(1)
  const formBox = (await form.boundingBox())!
  expect(formBox.width).toBeGreaterThan(340)

  // hot news: the source tabs scroll in one row instead of wrapping; the rows keep the phone padding
  const hot = page.locator('lingxi-hot-news')
  const tabs = hot.getByRole('tablist', { name: '热榜来源' })
  await expect(tabs).toBeVisible()
  expect(await tabs.evaluate((el) => getComputedStyle(el).flexWrap)).toBe('nowrap')
  const row = hot.getByTestId('hot-item').first()
  await expect(row).toBeVisible()
  expect(await row.evaluate((el) => getComputedStyle(el).paddingLeft)).toBe('12px')

  await shot(page, 'sidebar-1280')
  await page.setViewportSize({ width: 390, height: 844 })
  await shot(page, 'sidebar-390')
})

test('in a 1000px column of the same page, they use their desktop layout', async ({ page }) => {
  await open(page, 'column', '13500135002')

  // chat: the topic list beside the conversation, no drawer button
  const chat = page.locator('lingxi-chat')
  const aside = chat.getByRole('complementary', { name: '话题' })
  await expect(aside).toBeVisible()
  await expect(aside.getByRole('button', { name: '新建对话' })).toBeVisible()
  await expect(chat.getByRole('button', { name: '话题列表' })).toHaveCount(0)
  expect(await composerPadding(chat)).toBe('16px')

  // painting: the SD form on the left, its results beside it
  const painting = page.locator('lingxi-painting')
  const form = painting.getByRole('form', { name: 'SD 绘画' })
  await expect(form).toBeVisible()
  expect(await tracks(form.locator('xpath=..'))).toBe(2)
  const formBox = (await form.boundingBox())!
  expect(formBox.width).toBeLessThanOrEqual(380)

  // hot news: the source tabs wrap; the rows get the roomier padding
  const hot = page.locator('lingxi-hot-news')
  const tabs = hot.getByRole('tablist', { name: '热榜来源' })
  await expect(tabs).toBeVisible()
  expect(await tabs.evaluate((el) => getComputedStyle(el).flexWrap)).toBe('wrap')
  const row = hot.getByTestId('hot-item').first()
  await expect(row).toBeVisible()
  expect(await row.evaluate((el) => getComputedStyle(el).paddingLeft)).toBe('16px')

  await shot(page, 'column-1280')

  // The same column on a phone's window is narrower than the column: the page scrolls sideways,
  // and the widgets keep their desktop layout, for they still have 1000px.
  await page.setViewportSize({ width: 390, height: 844 })
  await expect(aside).toBeVisible()
  await shot(page, 'column-390')
})

test('a widget follows its container when it is resized, with no reload', async ({ page }) => {
  await open(page, 'column', '13500135003')
  const chat = page.locator('lingxi-chat')
  await expect(chat.getByRole('complementary', { name: '话题' })).toBeVisible()
  await page.locator('#box').evaluate((el) => {
    ;(el as HTMLElement).style.width = '360px'
  })
  await expect(chat.getByRole('complementary', { name: '话题' })).toHaveCount(0)
  await expect(chat.getByRole('button', { name: '话题列表' })).toBeVisible()
  const form = page.locator('lingxi-painting').getByRole('form', { name: 'SD 绘画' })
  expect(await tracks(form.locator('xpath=..'))).toBe(1)
  expect(
    await page
      .locator('lingxi-hot-news')
      .getByRole('tablist', { name: '热榜来源' })
      .evaluate((el) => getComputedStyle(el).flexWrap)
  ).toBe('nowrap')
})
