import AxeBuilder from '@axe-core/playwright'
import { expect, type Locator, type Page, test } from '@playwright/test'
import { completeLogin } from './embed-helpers'
import { loginAs, settled, shot } from './helpers'
import { type LingxiServer, startPartner, startServer } from './server'

// The light theme and "follow the system" (issue 19, docs/decisions/0018-themes.md): chosen in the
// profile panel and remembered on the host page; set by the partner with the `theme` attribute on
// an embedded element.

let server: LingxiServer
let partner: Awaited<ReturnType<typeof startPartner>>
let white: Awaited<ReturnType<typeof startPartner>>

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

/** The tools' elements, which draw headings and lines outside their cards. */
const TOOLS = ['painting', 'hot-news', 'roles', 'image-host', 'music', 'user-center', 'orders', 'admin']

/** A plain white partner page with every tool and the profile button, in the default (dark) theme. */
const whitePage = () => `<!doctype html>
<html lang="zh-CN">
  <head>
    <meta charset="utf-8" />
    <title>白色的合作方页面</title>
    <script async src="${server.url}/cdn/loader.js" data-api="${server.url}"></script>
    <style>html, body { background: #fff; color: #222; margin: 0 } main { padding: 16px }</style>
  </head>
  <body>
    <header><h1>合作方</h1><lingxi-profile></lingxi-profile></header>
    <main>${TOOLS.map((t) => `<lingxi-${t}></lingxi-${t}>`).join('')}</main>
  </body>
</html>`

test.beforeAll(async () => {
  partner = await startPartner(partnerPage)
  white = await startPartner(whitePage)
  server = await startServer({ CORS_ORIGINS: [partner.url, white.url].join(',') })
})
test.afterAll(async () => {
  await server?.stop()
  await partner?.stop()
  await white?.stop()
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

/**
 * WCAG contrast of a text's colour against what is actually behind it: its ancestors' backgrounds
 * (across shadow roots, to the page), composited from the first opaque one; the browser's white
 * canvas if none is.
 */
function contrastBehind(text: Locator): Promise<number> {
  return text.evaluate((el) => {
    const ctx = document.createElement('canvas').getContext('2d', { willReadFrequently: true })!
    const rgba = (css: string) => {
      ctx.clearRect(0, 0, 1, 1)
      ctx.fillStyle = css
      ctx.fillRect(0, 0, 1, 1)
      const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data
      return [r!, g!, b!, a! / 255] as const
    }
    const layers: (readonly [number, number, number, number])[] = []
    for (let node: Element | null = el; node; node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host || null)) {
      const bg = rgba(getComputedStyle(node).backgroundColor)
      if (bg[3] > 0) layers.push(bg)
      if (bg[3] === 1) break
    }
    let behind = [255, 255, 255]
    for (const [r, g, b, a] of layers.reverse()) behind = [r * a + behind[0]! * (1 - a), g * a + behind[1]! * (1 - a), b * a + behind[2]! * (1 - a)]
    const lum = ([r, g, b]: readonly number[]) => {
      const lin = (v: number) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4)
      return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!)
    }
    const [a, b] = [lum(rgba(getComputedStyle(el).color)), lum(behind)]
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
  })
}

/** Every visible heading the tools draw (h2/h3 in their shadow roots), and axe's colour contrast on the page. */
async function headingsReadable(page: Page, where: string) {
  await settled(page)
  const headings = page.locator(TOOLS.map((t) => `lingxi-${t} h2, lingxi-${t} h3`).join(', '))
  const texts: string[] = []
  for (const heading of await headings.all()) {
    if (!(await heading.isVisible())) continue
    const text = (await heading.textContent())?.trim() ?? ''
    texts.push(text)
    expect(await contrastBehind(heading), `${where}: heading 「${text}」`).toBeGreaterThanOrEqual(4.5)
  }
  const result = await new AxeBuilder({ page }).withRules(['color-contrast']).analyze()
  expect(
    result.violations.flatMap((v) => v.nodes.map((n) => `${where}: ${n.target.join(' >>> ')} ${n.any[0]?.message ?? ''}`)),
    'axe color-contrast'
  ).toEqual([])
  return texts
}

test('on a white partner page every tool in the default theme keeps its headings readable: it paints its own background', async ({ page }, info) => {
  test.setTimeout(120_000)
  await page.goto(white.url)
  for (const t of TOOLS) await expect(page.locator(`lingxi-${t}`).getByRole('heading', { level: 2 })).toBeVisible()
  // the page stays white: the elements paint their own dark background, the page is not restyled
  expect(await luminance(page.locator('body'))).toBeGreaterThan(0.95)
  expect(await luminance(page.locator('lingxi-painting [part=base]'))).toBeLessThan(DARK)
  const loggedOut = await headingsReadable(page, 'logged out')
  expect(loggedOut).toEqual(expect.arrayContaining(['登录后开始 AI 绘画', '登录后查看热点', '登录后浏览角色库', '运营后台']))
  await shot(page, info, 'white partner page, logged out')

  await page.locator('lingxi-painting').getByRole('button', { name: '登录' }).click()
  await completeLogin(page, server, '13800139103')
  const painting = page.locator('lingxi-painting')
  await expect(painting.getByRole('heading', { name: '本次创作' })).toBeVisible()
  await expect(painting.getByRole('heading', { name: '历史记录' })).toBeVisible()
  await expect(page.locator('lingxi-hot-news').getByRole('heading', { name: '热点资讯' })).toBeVisible()
  await expect(page.locator('lingxi-roles').getByRole('heading', { name: '角色库' })).toBeVisible()
  await expect(page.locator('lingxi-music').getByRole('heading', { name: 'AI 音乐' })).toBeVisible()
  // the profile's header button: the masked phone on a pill of its theme, not light text on the page
  expect(await contrastBehind(page.locator('lingxi-profile [data-testid=header-phone]'))).toBeGreaterThanOrEqual(4.5)
  const loggedIn = await headingsReadable(page, 'logged in')
  expect(loggedIn).toEqual(expect.arrayContaining(['本次创作', '历史记录', '热点资讯', '角色库', '图床', 'AI 音乐', '个人中心', '接单平台']))
  await shot(page, info, 'white partner page, logged in')

  // the documented opt-out: a transparent element shows the page, and the partner picks the theme that reads on it
  await painting.evaluate((el) => {
    el.style.setProperty('--lingxi-bg', 'transparent')
    el.setAttribute('theme', 'light')
  })
  expect(await painting.locator('[part=base]').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgba(0, 0, 0, 0)')
  expect(await contrastBehind(painting.getByRole('heading', { name: '本次创作' }))).toBeGreaterThanOrEqual(4.5)
})
