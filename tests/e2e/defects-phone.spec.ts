import { expect, type Locator, type Page, test } from '@playwright/test'
import { loginAs, shot } from './helpers'
import { makePng } from './png'
import { type LingxiServer, startServer } from './server'

// Issue 19, defect 3, at the size where it happened (a phone, 390×844): the bottom bar clipped the
// longer menu titles, the image host's HTML copy button overflowed its card, and the chat did not
// say which model answers.

let server: LingxiServer

test.beforeAll(async () => {
  server = await startServer({
    DEFAULT_PERMISSIONS:
      'AI_TOOLS_CHAT,AI_TOOLS_ROLE,AI_TOOLS_PAINTING,AI_TOOLS_MUSIC,AI_TOOLS_HOT,AI_TOOLS_IMAGE,AI_TOOLS_ORDER_PLATFORM,AI_TOOLS_ORDER_PLATFORM_QUALITY'
  })
})
test.afterAll(async () => {
  await server?.stop()
})

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

/** Whether `inner` lies inside `outer` and shows all its text (nothing cut off or spilling out). */
async function fits(inner: Locator, outer: Locator): Promise<boolean> {
  const [a, b] = [await inner.boundingBox(), await outer.boundingBox()]
  const whole = await inner.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)
  return Boolean(a && b && a.x >= b.x - 0.5 && a.x + a.width <= b.x + b.width + 0.5 && whole)
}

async function signIn(page: Page, path: string, phone: string) {
  await page.goto(server.url + path)
  await loginAs(page, server, phone)
}

test('the bottom bar shows each menu title whole', async ({ page }, info) => {
  await signIn(page, '/chat', '13800139301')
  const bar = page.getByTestId('bottom-bar')
  await expect(bar.getByRole('link', { name: '优质接单平台' })).toHaveCount(1)
  for (const link of await bar.getByRole('link').all()) {
    const label = link.locator('span')
    const name = await label.textContent()
    // the label's text is as wide as the link allows: not cut off at the link's edges
    const [text, box] = await label.evaluate((el) => {
      const range = document.createRange()
      range.selectNodeContents(el)
      const r = range.getBoundingClientRect()
      const l = el.parentElement!.getBoundingClientRect()
      return [
        { x: r.x, w: r.width },
        { x: l.x, w: l.width }
      ]
    })
    expect(text.x, `${name} starts inside its link`).toBeGreaterThanOrEqual(box.x - 0.5)
    expect(text.x + text.w, `${name} ends inside its link`).toBeLessThanOrEqual(box.x + box.w + 0.5)
  }
  await bar.getByRole('link', { name: '优质接单平台' }).scrollIntoViewIfNeeded()
  await shot(page, info, 'bottom bar')
})

test('the image host card keeps its copy buttons inside it', async ({ page }, info) => {
  await signIn(page, '/imgSee', '13800139302')
  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: '选择图片', exact: true }).click()
  await (await chooser).setFiles([{ name: '一张图.png', mimeType: 'image/png', buffer: makePng(200, 160, { seed: 5 }) }])
  const card = page.getByTestId('image-card').first()
  await expect(card).toContainText('一张图.png')
  for (const name of ['复制 URL 链接', '复制 Markdown 链接', '复制 HTML 链接']) {
    const button = card.getByRole('button', { name })
    expect(await fits(button, card), `${name} fits its card`).toBe(true)
    // what the button shows is part of its name (WCAG 2.5.3: say what you see)
    expect(name).toContain((await button.textContent())!.trim())
  }
  await shot(page, info, 'image card')
})

test('the chat says which model answers', async ({ page }, info) => {
  await signIn(page, '/chat', '13800139303')
  const composer = page.getByTestId('composer')
  await composer.fill('你好')
  await composer.press('Enter')
  await expect(page.locator('[data-testid=message][data-status=complete][data-role=assistant]')).toHaveCount(1, { timeout: 30_000 })
  // the model of the topic, as the settings name it
  await page.getByRole('banner').getByRole('button', { name: '对话设置' }).click()
  const settings = page.getByRole('dialog', { name: '对话设置' })
  const model = (await settings.getByRole('combobox').locator('option:checked').textContent())!.trim()
  expect(model).not.toBe('')
  await page.keyboard.press('Escape')
  await expect(settings).toBeHidden()
  const shown = page.getByTestId('chat-model')
  await expect(shown).toContainText(model)
  await expect(shown).toBeInViewport()
  await shot(page, info, 'chat model')
})
