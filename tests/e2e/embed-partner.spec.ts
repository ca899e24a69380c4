import { expect, test, type Page } from '@playwright/test'
import { ask, completeLogin, page as examplePage, snap } from './embed-helpers'
import { startPartner, startServer, type LingxiServer } from './server'

// examples/partner-page.html on a partner's origin: one loader tag and <lingxi-chat mode="bubble">,
// with the partner's rude CSS (a Bootstrap-like reset, `* { box-sizing: content-box }`).

let server: LingxiServer
let partner: Awaited<ReturnType<typeof startPartner>>
let clean: Awaited<ReturnType<typeof startPartner>>
let bare: Awaited<ReturnType<typeof startPartner>>

const rude = () => examplePage('partner-page.html', server)
/** The same page without the partner's CSS. */
const withoutCss = () => rude().replace(/<!-- partner-css -->[\s\S]*<!-- \/partner-css -->/, '')
/** The same page without the loader (what the page is before Lingxi). */
const withoutLoader = () => rude().replace(/<script async src="[^"]*loader\.js"[^>]*><\/script>/, '')

test.beforeAll(async () => {
  partner = await startPartner(rude)
  clean = await startPartner(withoutCss)
  bare = await startPartner(withoutLoader)
  server = await startServer({ CORS_ORIGINS: [partner.url, clean.url].join(',') })
})
test.afterAll(async () => {
  await server?.stop()
  await Promise.all([partner?.stop(), clean?.stop(), bare?.stop()])
})

const launcher = (p: Page) => p.getByRole('button', { name: '打开 AI 书童对话' })
const panel = (p: Page) => p.getByRole('dialog', { name: '灵犀 AI' })

test('calls queued before the loader arrives run in order once it has', async ({ page }) => {
  // The loader arrives late: a click on the page's own button before that is queued.
  let release!: () => void
  const held = new Promise<void>((r) => (release = r))
  await page.route('**/cdn/loader.js', async (route) => {
    await held
    await route.continue()
  })
  await page.goto(partner.url, { waitUntil: 'domcontentloaded' })
  expect(await page.evaluate(() => Array.isArray((window as unknown as { lingxi: { q?: unknown[] } }).lingxi.q))).toBe(true)
  await page.getByRole('button', { name: '问问 AI 书童' }).click()
  release()
  await expect(panel(page)).toBeVisible()
  await expect(page.locator('#panel-state')).toHaveText('对话已打开')
  await page.evaluate(() => (window as unknown as { lingxi: { ready: Promise<void> } }).lingxi.ready)
  // the promise the snippet made before the loader arrived resolved too
  await expect(page.locator('html')).toHaveAttribute('data-lingxi', 'ready')
  await expect(page.locator('lingxi-chat')).toHaveAttribute('open', '')
  await page.getByRole('button', { name: '关闭对话' }).first().click()
  await expect(panel(page)).toBeHidden()
  await expect(page.locator('#panel-state')).toHaveText('对话已关闭')
})

test('the bubble opens and closes; Esc closes and focus returns to the launcher', async ({ page }, info) => {
  await page.goto(partner.url)
  await expect(launcher(page)).toBeVisible()
  const greeting = page.locator('lingxi-chat').locator('[part=greeting]')
  await expect(greeting).toContainText('你好，想找什么书？问问我吧')
  await snap(page, info, 'desktop-closed')

  await launcher(page).click()
  await expect(panel(page)).toBeVisible()
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'true')
  await expect(panel(page).getByRole('heading', { name: '登录后开始对话' })).toBeVisible()
  await expect(greeting).toHaveCount(0)
  await snap(page, info, 'desktop-open-logged-out')

  await page.keyboard.press('Escape')
  await expect(panel(page)).toBeHidden()
  await expect(launcher(page)).toBeFocused()
  await expect(page.locator('lingxi-chat')).not.toHaveAttribute('open')

  // methods and the property
  await page.evaluate(() => document.querySelector('lingxi-chat')!.show())
  await expect(panel(page)).toBeVisible()
  expect(await page.evaluate(() => document.querySelector('lingxi-chat')!.open)).toBe(true)
  await page.evaluate(() => document.querySelector('lingxi-chat')!.toggle())
  await expect(panel(page)).toBeHidden()
  await page.evaluate(() => (document.querySelector('lingxi-chat')!.open = true))
  await expect(panel(page)).toBeVisible()
  await panel(page).getByRole('button', { name: '关闭对话' }).click()
  await expect(panel(page)).toBeHidden()
  await expect(launcher(page)).toBeFocused()

  // the greeting was seen: it does not come back
  await page.reload()
  await expect(launcher(page)).toBeVisible()
  await expect(greeting).toHaveCount(0)
})

test('log in inside the widget, chat, and keep the session over a reload', async ({ page }, info) => {
  await page.goto(partner.url)
  await launcher(page).click()
  await panel(page).getByRole('button', { name: '登录' }).click()
  await completeLogin(page, server, '13700137000')
  await expect(page.locator('#status')).toHaveText('已登录：137****7000') // masked: an untrusted partner (ADR 0019)

  const reply = await ask(panel(page), '推荐一本科幻小说')
  await expect(reply).toContainText('灵犀离线演示模型')
  await expect(reply.locator('h2')).toHaveText('灵犀离线演示模型')
  await expect(page.locator('#last-reply')).toContainText('灵犀离线演示模型')
  await snap(page, info, 'desktop-reply')

  await page.reload()
  await launcher(page).click()
  await expect(panel(page).locator('[data-testid=message][data-role=user]').last()).toContainText('推荐一本科幻小说')
  await expect(panel(page).getByRole('button', { name: '登录' })).toHaveCount(0)
})

test('on a phone the panel is full screen', async ({ browser }, info) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, locale: 'zh-CN' })
  const page = await context.newPage()
  await page.goto(partner.url)
  await expect(launcher(page)).toBeVisible()
  await snap(page, info, 'phone-closed')
  await launcher(page).tap()
  await expect(panel(page)).toBeVisible()
  await page.waitForTimeout(300) // the panel rises into place
  const box = (await panel(page).boundingBox())!
  expect([box.x, box.y, box.width, box.height].map(Math.round)).toEqual([0, 0, 390, 844])
  await snap(page, info, 'phone-open')
  await panel(page).getByRole('button', { name: '登录' }).tap()
  await completeLogin(page, server, '13700137001')
  await ask(panel(page), '有什么好看的历史书')
  await snap(page, info, 'phone-reply')
  await panel(page).getByRole('button', { name: '话题列表' }).tap()
  await expect(panel(page).getByRole('dialog', { name: '话题列表' })).toBeVisible()
  await snap(page, info, 'phone-topics')
  await context.close()
})

/** Computed styles of the widget's key parts, open, with the login dialog showing. */
async function widgetStyles(p: Page) {
  await p.goto(p.url())
  await launcher(p).click()
  await panel(p).getByRole('button', { name: '登录' }).click()
  await expect(p.getByRole('dialog', { name: '手机号登录' })).toBeVisible()
  await p.waitForTimeout(400)
  const props = [
    'font-family',
    'font-size',
    'line-height',
    'color',
    'background-color',
    'box-sizing',
    'width',
    'height',
    'padding',
    'border-top-width',
    'border-top-style',
    'border-radius',
    'letter-spacing',
    'text-transform',
    'text-align',
    'outline-style',
    'margin'
  ]
  const targets = {
    launcher: launcher(p),
    panel: panel(p),
    title: panel(p).getByRole('heading', { name: '灵犀 AI' }),
    close: panel(p).getByRole('button', { name: '关闭对话' }),
    prompt: panel(p).getByRole('heading', { name: '登录后开始对话' }),
    loginButton: panel(p).getByRole('button', { name: '登录', exact: true }),
    dialog: p.getByRole('dialog', { name: '手机号登录' }),
    phone: p.getByRole('textbox', { name: '手机号' }),
    getCode: p.getByRole('button', { name: '获取验证码' }),
    icon: launcher(p).locator('svg')
  }
  const out: Record<string, Record<string, string>> = {}
  for (const [name, locator] of Object.entries(targets)) {
    out[name] = await locator.evaluate((el, list) => {
      const s = getComputedStyle(el)
      return Object.fromEntries(list.map((k) => [k, s.getPropertyValue(k)]))
    }, props)
  }
  return out
}

test("the partner's CSS changes nothing inside the widget", async ({ browser }) => {
  const context = await browser.newContext({ locale: 'zh-CN' })
  const rudePage = await context.newPage()
  await rudePage.goto(partner.url)
  const cleanPage = await context.newPage()
  await cleanPage.goto(clean.url)
  // the partner's reset is really there, outside
  expect(await rudePage.evaluate(() => getComputedStyle(document.body).fontFamily)).toContain('Georgia')
  const [withCss, withoutCss] = [await widgetStyles(rudePage), await widgetStyles(cleanPage)]
  expect(withCss).toEqual(withoutCss)
  expect(withCss.launcher!['box-sizing']).toBe('border-box')
  expect(withCss.getCode!['text-transform']).toBe('none')
  await context.close()
})

test('Lingxi adds no globals but window.lingxi, and no styles to the partner document', async ({ browser }) => {
  const context = await browser.newContext({ locale: 'zh-CN' })
  const snapshot = (p: Page) =>
    p.evaluate(() => ({
      globals: Object.keys(window).sort(),
      styles: document.querySelectorAll('style, link[rel=stylesheet]').length,
      adopted: document.adoptedStyleSheets.length,
      head: [...document.head.children].map((el) => el.outerHTML.slice(0, 80)),
      htmlStyle: document.documentElement.getAttribute('style'),
      bodyStyle: document.body.getAttribute('style')
    }))
  const before = await context.newPage()
  await before.goto(bare.url)
  const pageBefore = await snapshot(before)

  const page = await context.newPage()
  await page.goto(partner.url)
  await page.evaluate(() => (window as unknown as { lingxi: { ready: Promise<void> } }).lingxi.ready)
  await launcher(page).click()
  await panel(page).getByRole('button', { name: '登录' }).click()
  await expect(page.getByRole('dialog', { name: '手机号登录' })).toBeVisible()
  await page.keyboard.press('Escape')
  const pageAfter = await snapshot(page)
  // nanostores keeps its change counter on globalThis so that separately built copies (the CDN
  // chunks and the npm package on one page) agree; it is the one name besides lingxi.
  expect(pageAfter.globals.filter((k) => !pageBefore.globals.includes(k))).toEqual(['nanostoresGlobal'])
  expect(pageAfter.globals).toContain('lingxi')
  expect(pageAfter.styles).toBe(pageBefore.styles)
  expect(pageAfter.adopted).toBe(0)
  expect(pageAfter.head.filter((h) => !h.includes('loader.js'))).toEqual(pageBefore.head)
  expect([pageAfter.htmlStyle, pageAfter.bodyStyle]).toEqual([null, null])
  // what Lingxi put in the document: its elements, nothing else
  const added = await page.evaluate(() => [...document.body.children].filter((el) => el.localName.startsWith('lingxi-')).map((el) => el.localName))
  expect(added).toEqual(['lingxi-chat'])
  await context.close()
})
