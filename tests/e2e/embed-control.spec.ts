import { expect, type Page, type Request, test } from '@playwright/test'
import { completeLogin, snap } from './embed-helpers'
import { type LingxiServer, startPartner, startServer } from './server'

// Issue 16 item 4: a partner page drives the chat bubble — configured from the loader's script tag
// (data-chat="bubble" and the element's attributes as data-*), then lingxi.chat.open/close/send/
// prefill/context/destroy, the page context sent with questions, the unread badge, locale en.

let server: LingxiServer
let partner: Awaited<ReturnType<typeof startPartner>>
let english: Awaited<ReturnType<typeof startPartner>>

const STARTERS = JSON.stringify(['有什么新书？', '推荐一本科幻小说'])
const html = (extra = '') => `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>青禾书店 · 新书推荐</title>
<style>body { margin: 0; font: 16px/1.6 Georgia, serif; background: #fbf6ee; } .corner { position: fixed; right: 0; bottom: 0; padding: 12px 20px; background: #7a3e1d; color: #fff; }</style>
<script async src="${server.url}/cdn/loader.js" data-api="${server.url}" data-chat="bubble" data-position="left" data-offset="32 48"
  data-label="问问 AI 书童" data-welcome="欢迎来到青禾书店，想找什么书？" data-starters='${STARTERS}' ${extra}></script>
</head><body><main style="padding: 24px"><h1>青禾书店</h1><p>本周新书……</p></main><div class="corner">购物车（2）</div></body></html>`

test.beforeAll(async () => {
  partner = await startPartner(() => html())
  english = await startPartner(() => html('data-locale="en"'))
  server = await startServer({ CORS_ORIGINS: [partner.url, english.url].join(',') })
})
test.afterAll(async () => {
  await server?.stop()
  await Promise.all([partner?.stop(), english?.stop()])
})

const launcher = (p: Page) => p.locator('lingxi-chat').locator('[part=launcher]')
const panel = (p: Page) => p.getByRole('dialog', { name: '灵犀 AI' })
type Sdk = { chat: Record<string, (arg?: unknown) => Promise<void>>; ready: Promise<void> }
const sdk = (p: Page, name: string, arg?: unknown) =>
  p.evaluate(([n, a]) => (window as unknown as { lingxi: Sdk }).lingxi.chat[n as string]!(a), [name, arg] as const)

/** The bodies of the topic/message/send requests the page makes from now on. */
function sends(p: Page): Array<Record<string, unknown>> {
  const bodies: Array<Record<string, unknown>> = []
  p.on('request', (r: Request) => {
    if (r.url().endsWith('/topic/message/send')) bodies.push(r.postDataJSON())
  })
  return bodies
}

async function login(p: Page, phone: string) {
  await launcher(p).click()
  await panel(p).getByRole('button', { name: '登录' }).click()
  await completeLogin(p, server, phone)
}

test('the script tag alone adds the bubble: left corner, offset, label, welcome text and starters', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto(partner.url)
  await expect(launcher(page)).toHaveAccessibleName('问问 AI 书童')
  const box = (await launcher(page).boundingBox())!
  expect(Math.round(box.x)).toBe(32)
  expect(Math.round(800 - box.y - box.height)).toBe(48)
  // The partner's own bottom-right corner stays clear.
  const corner = (await page.locator('.corner').boundingBox())!
  expect(box.x + box.width).toBeLessThan(corner.x)

  await login(page, '13700137100')
  const p = panel(page)
  const frame = (await p.boundingBox())!
  expect(Math.round(frame.x)).toBe(32)
  expect(Math.round(800 - frame.y - frame.height)).toBe(48 + 76)
  await expect(p.getByText('欢迎来到青禾书店，想找什么书？')).toBeVisible()
  await expect(p.getByRole('button', { name: '有什么新书？' })).toBeVisible()
  await expect(p.getByRole('button', { name: '推荐一本科幻小说' })).toBeVisible()
  await snap(page, info, 'control-desktop-welcome')

  // A starter sends itself, with the page's title and URL along.
  const bodies = sends(page)
  await p.getByRole('button', { name: '有什么新书？' }).click()
  await expect(p.locator('[data-testid=message][data-role=assistant]').last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  expect(bodies.at(-1)).toMatchObject({ content: '有什么新书？', page: { title: '青禾书店 · 新书推荐', url: `${partner.url}/` } })
})

test('lingxi.chat: prefill, send with page context, context off, unread badge, close, destroy', async ({ page }, info) => {
  await page.goto(partner.url)
  await login(page, '13700137101')
  const p = panel(page)
  await sdk(page, 'close')
  await expect(p).toBeHidden()

  // prefill opens the panel and fills the field without sending.
  const bodies = sends(page)
  await sdk(page, 'prefill', '我想找一本历史书')
  await expect(p).toBeVisible()
  await expect(p.getByTestId('composer')).toHaveValue('我想找一本历史书')
  expect(bodies).toEqual([])

  // send goes with a context the page chose; then, switched off, with none.
  await sdk(page, 'context', { title: '《长安的荔枝》详情', url: 'https://books.example.com/item/7' })
  await sdk(page, 'send', '这本书讲什么？')
  await expect(p.locator('[data-testid=message][data-role=user]').last()).toContainText('这本书讲什么？')
  expect(bodies.at(-1)).toMatchObject({ content: '这本书讲什么？', page: { title: '《长安的荔枝》详情', url: 'https://books.example.com/item/7' } })
  await expect(p.locator('[data-testid=message][data-role=assistant]').last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })

  await sdk(page, 'context', false)
  // A reply that finishes while the panel is closed puts a badge on the launcher: its stream is
  // held until the panel has closed.
  let release!: () => void
  const held = new Promise<void>((r) => (release = r))
  await page.route('**/ai-chat/sse/subscribe/*', async (route) => {
    await held
    await route.continue()
  })
  await sdk(page, 'send', '作者是谁？')
  await expect(p.locator('[data-testid=message][data-role=user]').last()).toContainText('作者是谁？')
  expect(bodies.at(-1)).not.toHaveProperty('page')
  await sdk(page, 'close')
  await expect(p).toBeHidden()
  release()
  const badge = page.locator('lingxi-chat').locator('[part=badge]')
  await expect(badge).toHaveText('1', { timeout: 30_000 })
  await expect(launcher(page)).toHaveAccessibleName('问问 AI 书童 · 1 条新回复')
  await snap(page, info, 'control-desktop-badge')
  await sdk(page, 'toggle')
  await expect(p).toBeVisible()
  await expect(badge).toHaveCount(0)
  await expect(launcher(page)).toHaveAccessibleName('问问 AI 书童')

  // The element's own methods do the same.
  await page.evaluate(() => document.querySelector('lingxi-chat')!.prefill('元素方法'))
  await expect(p.getByTestId('composer')).toHaveValue('元素方法')

  await sdk(page, 'destroy')
  await expect(page.locator('lingxi-chat')).toHaveCount(0)
  await expect(p).toHaveCount(0)
})

test('a visitor: send() waits for the login, then goes', async ({ page }) => {
  await page.goto(partner.url)
  const bodies = sends(page)
  await sdk(page, 'send', '登录后再问')
  await expect(panel(page)).toBeVisible()
  await panel(page).getByRole('button', { name: '登录' }).click()
  await completeLogin(page, server, '13700137102')
  await expect(panel(page).locator('[data-testid=message][data-role=user]').last()).toContainText('登录后再问')
  expect(bodies.map((b) => b.content)).toEqual(['登录后再问'])
})

test('locale en: the chat chrome in English, on a phone', async ({ page }, info) => {
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto(english.url)
  await launcher(page).click()
  const p = page.getByRole('dialog', { name: 'Lingxi AI' })
  await expect(p).toBeVisible()
  await expect(p.getByRole('heading', { name: 'Sign in to start chatting' })).toBeVisible()
  await expect(p.getByRole('button', { name: 'Close chat' })).toBeVisible()
  await p.getByRole('button', { name: 'Sign in' }).click()
  // the login dialog speaks English too (tests/e2e/embed-locale.spec.ts)
  const dialog = page.getByRole('dialog', { name: 'Sign in with your phone' })
  await dialog.getByLabel('Phone number').fill('13700137103')
  await dialog.getByRole('checkbox').check()
  const mark = server.output().length
  await dialog.getByRole('button', { name: 'Get code' }).click()
  await dialog.getByLabel('Verification code').fill(await server.smsCode('13700137103', mark))
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(dialog).toBeHidden()
  await expect(p.getByTestId('composer')).toHaveAttribute('placeholder', 'Message (Enter to send)')
  await expect(p.getByRole('button', { name: 'Send' })).toBeVisible()
  await expect(p.getByRole('button', { name: 'New chat' })).toBeVisible()
  await snap(page, info, 'control-phone-en')
})
