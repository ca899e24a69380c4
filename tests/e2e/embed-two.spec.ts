import { expect, test, type Page } from '@playwright/test'
import { ask, completeLogin, openDialogs, snap } from './embed-helpers'
import { startPartner, startServer, type LingxiServer } from './server'

// Two <lingxi-chat> bubbles on one page: each opens, closes and announces on its own; they share
// one login (and one login dialog).

let server: LingxiServer
let partner: Awaited<ReturnType<typeof startPartner>>

const html = () => `<!doctype html>
<html lang="zh-CN">
  <head>
    <meta charset="utf-8" />
    <title>两个对话</title>
    <script async src="${server.url}/cdn/loader.js" data-api="${server.url}"></script>
  </head>
  <body>
    <h1>售前与售后</h1>
    <lingxi-chat id="sales" mode="bubble" position="bottom-left" label="售前咨询" color="#16a34a"></lingxi-chat>
    <lingxi-chat id="support" mode="bubble" label="售后服务"></lingxi-chat>
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

const launcher = (p: Page, name: string) => p.getByRole('button', { name })
const panelOf = (p: Page, id: string) => p.locator(`#${id}`).getByRole('dialog', { name: '灵犀 AI' })

test('two bubbles open, close and report independently, and share one login', async ({ page }, info) => {
  await page.goto(partner.url)
  const events: string[] = []
  await page.exposeFunction('record', (e: string) => events.push(e))
  await page.evaluate(() => {
    for (const el of document.querySelectorAll('lingxi-chat'))
      for (const type of ['lingxi-open', 'lingxi-close', 'lingxi-message'])
        el.addEventListener(type, (e) => (window as unknown as { record(s: string): void }).record(`${el.id}:${e.type}`))
  })

  await launcher(page, '售前咨询').click()
  await expect(panelOf(page, 'sales')).toBeVisible()
  await expect(panelOf(page, 'support')).toBeHidden()
  await launcher(page, '售后服务').click()
  await expect(panelOf(page, 'support')).toBeVisible()
  await expect(panelOf(page, 'sales')).toBeVisible()
  // Esc closes the one that has the focus
  await page.keyboard.press('Escape')
  await expect(panelOf(page, 'support')).toBeHidden()
  await expect(panelOf(page, 'sales')).toBeVisible()
  await expect(launcher(page, '售后服务')).toBeFocused()
  expect(events).toEqual(['sales:lingxi-open', 'support:lingxi-open', 'support:lingxi-close'])

  // one login dialog, whichever asks
  await launcher(page, '售后服务').click()
  await panelOf(page, 'sales').getByRole('button', { name: '登录' }).click()
  await expect.poll(() => openDialogs(page)).toEqual(['手机号登录'])
  await page.keyboard.press('Escape')
  await expect.poll(() => openDialogs(page)).toEqual([])
  await panelOf(page, 'support').getByRole('button', { name: '登录' }).click()
  await expect.poll(() => openDialogs(page)).toEqual(['手机号登录'])
  await completeLogin(page, server, '13200132000')
  await expect(panelOf(page, 'sales').getByTestId('composer')).toBeVisible()
  await expect(panelOf(page, 'support').getByTestId('composer')).toBeVisible()

  // each has its own composer; a reply is announced by the element that asked
  await panelOf(page, 'sales').getByTestId('composer').fill('草稿不会跑到另一边')
  await ask(panelOf(page, 'support'), '怎么退货')
  await expect(panelOf(page, 'sales').getByTestId('composer')).toHaveValue('草稿不会跑到另一边')
  await expect.poll(() => events.filter((e) => e.endsWith('lingxi-message'))).toEqual(['support:lingxi-message'])
  await snap(page, info, 'two-bubbles')

  // lingxi('close') closes both
  await page.evaluate(() => (window as unknown as { lingxi(c: string): Promise<void> }).lingxi('close'))
  await expect(panelOf(page, 'sales')).toBeHidden()
  await expect(panelOf(page, 'support')).toBeHidden()
})
