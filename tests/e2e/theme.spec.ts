import { expect, type Locator, type Page, test } from '@playwright/test'
import { loginAs, shot } from './helpers'
import { type LingxiServer, startPartner, startServer } from './server'

// The light theme and "follow the system" (issue 19, docs/decisions/0018-themes.md): chosen in the
// profile panel and remembered on the host page; set by the partner with the `theme` attribute on
// an embedded element.

let server: LingxiServer
let partner: Awaited<ReturnType<typeof startPartner>>

/** A partner's page with two inline chats: one the partner made light, one following the system. */
const partnerPage = () => `<!doctype html>
<html lang="zh-CN">
  <head>
    <meta charset="utf-8" />
    <title>合作方页面</title>
    <script async src="${server.url}/cdn/loader.js" data-api="${server.url}"></script>
    <style>body { background: #fff; margin: 0 } lingxi-chat { display: block; height: 360px }</style>
  </head>
  <body>
    <lingxi-chat id="light" theme="light"></lingxi-chat>
    <lingxi-chat id="auto" theme="auto"></lingxi-chat>
    <lingxi-chat id="plain"></lingxi-chat>
  </body>
</html>`

test.beforeAll(async () => {
  partner = await startPartner(partnerPage)
  server = await startServer({ CORS_ORIGINS: partner.url })
})
test.afterAll(async () => {
  await server?.stop()
  await partner?.stop()
})

/** Relative luminance (0 black … 1 white) of an element's computed colour, whatever notation the browser computes. */
function luminance(target: Locator, property: 'backgroundColor' | 'color' = 'backgroundColor'): Promise<number> {
  return target.evaluate((el, prop) => {
    const ctx = document.createElement('canvas').getContext('2d')!
    ctx.fillStyle = getComputedStyle(el)[prop]
    ctx.fillRect(0, 0, 1, 1)
    const [r, g, b] = [...ctx.getImageData(0, 0, 1, 1).data].map((v) => {
      const c = v / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
  }, property)
}

const LIGHT = 0.8
const DARK = 0.05

async function openProfilePanel(page: Page): Promise<Locator> {
  await page.getByRole('banner').getByTestId('header-phone').click()
  await page.getByRole('menuitem', { name: '个人信息' }).click()
  const panel = page.getByRole('dialog', { name: '个人信息' })
  await expect(panel).toBeVisible()
  return panel
}

/** The host page's background, the shell's header (lingxi-app's shadow root) and a tool's own surface (lingxi-chat's). */
const surfaces = (page: Page) => [page.locator('body'), page.getByRole('banner'), page.locator('lingxi-chat [part=base]')]

test('the site is dark by default; light chosen in the profile panel is remembered', async ({ page }, info) => {
  await page.emulateMedia({ colorScheme: 'light' }) // the system's light does not change the site's default
  await page.goto(`${server.url}/chat`)
  await loginAs(page, server, '13800139101')
  for (const surface of surfaces(page)) expect(await luminance(surface)).toBeLessThan(DARK)

  const panel = await openProfilePanel(page)
  const themes = panel.getByRole('group', { name: '外观' })
  await expect(themes.getByRole('radio', { name: '深色' })).toBeChecked()
  // a radio group: the arrow keys move the choice
  await themes.getByRole('radio', { name: '深色' }).focus()
  await page.keyboard.press('ArrowRight')
  await expect(themes.getByRole('radio', { name: '浅色' })).toBeChecked()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light')
  expect(await luminance(panel)).toBeGreaterThan(LIGHT)
  expect(await luminance(panel.getByText('外观'), 'color')).toBeLessThan(0.25)
  await shot(page, info, 'light profile panel')
  await page.keyboard.press('Escape')

  await page.reload()
  await expect(page.getByRole('banner').getByTestId('header-phone')).toBeVisible()
  await expect(page.locator('lingxi-chat [part=base]')).toBeVisible()
  for (const surface of surfaces(page)) expect(await luminance(surface)).toBeGreaterThan(LIGHT)
  // text stays readable: dark ink on the light surfaces
  expect(await luminance(page.getByRole('banner').getByText('灵犀', { exact: true }), 'color')).toBeLessThan(0.05)
  await shot(page, info, 'light after reload')
  const again = await openProfilePanel(page)
  await expect(again.getByRole('radio', { name: '浅色' })).toBeChecked()
})

test('the stored theme is on the page before its first paint, ahead of any widget code', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('lingxi-theme', 'light'))
  // no Lingxi code arrives: what shows is the boot screen of the page itself
  await page.route('**/cdn/**', (route) => route.abort())
  await page.goto(`${server.url}/`)
  await expect(page.getByRole('status')).toContainText('灵犀加载中')
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light')
  expect(await luminance(page.locator('body'))).toBeGreaterThan(LIGHT)
})

test('跟随系统 follows the system as it changes', async ({ page }, info) => {
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.goto(`${server.url}/chat`)
  await loginAs(page, server, '13800139102')
  const panel = await openProfilePanel(page)
  await panel.getByRole('radio', { name: '跟随系统' }).check()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'auto')
  expect(await luminance(panel)).toBeLessThan(DARK + 0.05)
  await page.keyboard.press('Escape')
  for (const surface of surfaces(page)) expect(await luminance(surface)).toBeLessThan(DARK)

  await page.emulateMedia({ colorScheme: 'light' })
  for (const surface of surfaces(page)) expect(await luminance(surface)).toBeGreaterThan(LIGHT)
  await shot(page, info, 'auto, system light')

  await page.reload()
  await expect(page.locator('lingxi-chat [part=base]')).toBeVisible()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'auto')
  expect(await luminance(page.getByRole('banner'))).toBeGreaterThan(LIGHT)
})

test('an embedded widget takes the theme its partner sets with the theme attribute', async ({ page }, info) => {
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.goto(partner.url)
  const chat = (id: string) => page.locator(`lingxi-chat#${id} [part=base]`)
  await expect(chat('light')).toBeVisible()
  await expect(chat('auto')).toBeVisible()
  expect(await luminance(chat('light'))).toBeGreaterThan(LIGHT)
  expect(await chat('light').evaluate((el) => getComputedStyle(el).colorScheme)).toBe('light')
  expect(await luminance(chat('light').getByRole('button', { name: '登录' }), 'color')).toBeGreaterThan(LIGHT) // white on the primary
  expect(await luminance(chat('auto'))).toBeLessThan(DARK)
  expect(await luminance(chat('plain'))).toBeLessThan(DARK)
  await shot(page, info, 'partner, system dark')

  await page.emulateMedia({ colorScheme: 'light' })
  expect(await luminance(chat('light'))).toBeGreaterThan(LIGHT)
  expect(await luminance(chat('auto'))).toBeGreaterThan(LIGHT)
  // without the attribute the widget keeps Lingxi's default
  expect(await luminance(chat('plain'))).toBeLessThan(DARK)
  await shot(page, info, 'partner, system light')

  // the attribute can change at any time
  await page.locator('lingxi-chat#light').evaluate((el) => el.setAttribute('theme', 'dark'))
  expect(await luminance(chat('light'))).toBeLessThan(DARK)
})
