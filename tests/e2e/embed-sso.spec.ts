import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { expect, type Page, test } from '@playwright/test'
import { ask, openDialogs, snap } from './embed-helpers'
import { type LingxiServer, startServer } from './server'

// Issue 16, item 3 (docs/decisions/0020-partner-sso.md): the partner site of
// examples/partner-backend (server.mjs + page.html), whose own login knows the user, signs an
// assertion with examples/partner-backend/sign.mjs; its page calls lingxi.identify() and the chat
// bubble is logged in as that user, without SMS. The page is on http://localhost:…, the API on
// http://127.0.0.1:…: another site, as in production.

const SECRET = 'yunqi-partner-secret-0123456789-abcdefghij'
let server: LingxiServer
let partner: ChildProcess
let partnerUrl = ''

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

test.beforeAll(async () => {
  const port = await freePort()
  partnerUrl = `http://localhost:${port}`
  server = await startServer({
    LINGXI_PARTNERS: JSON.stringify([{ id: 'yunqi', name: '云栖商城', origins: [partnerUrl], secret: SECRET, permissions: ['AI_TOOLS_CHAT'] }])
  })
  partner = spawn(process.execPath, ['examples/partner-backend/server.mjs'], {
    env: { ...process.env, PORT: String(port), LINGXI_ORIGIN: server.url, LINGXI_PARTNER_ID: 'yunqi', LINGXI_PARTNER_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the example partner server did not start')), 15_000)
    partner.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('partner site on')) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
})
test.afterAll(async () => {
  partner?.kill()
  await server?.stop()
})

const launcher = (p: Page) => p.getByRole('button', { name: '打开 AI 客服对话' })
const panel = (p: Page) => p.getByRole('dialog', { name: '灵犀 AI' })
const status = (p: Page) => p.locator('#lingxi-status')
const smsSent = () => server.output().filter((line) => line.startsWith('[sms]'))

test('the partner’s logged-in user is logged in to the chat bubble without SMS', async ({ page }, info) => {
  const identifies: number[] = []
  page.on('response', (r) => {
    if (r.url().endsWith('/api/v1/auth/partner/identify')) identifies.push(r.status())
  })
  // The partner's own login, then its page.
  await page.goto(`${partnerUrl}/login?user=42&name=${encodeURIComponent('张三')}`)
  await expect(page.locator('#shop-user')).toHaveText('张三（本站账号）')
  await expect(status(page)).toHaveText('灵犀已登录：张三')
  expect(identifies).toEqual([200])

  // The page's own scripts see who is logged in, with no phone (the partner's users have none).
  const session = await page.evaluate(() => (document.querySelector('lingxi-chat') as unknown as { session: unknown }).session)
  expect(session).toMatchObject({ nickName: '张三', phone: '' })
  // And no token anywhere the page can read.
  expect(await page.evaluate(() => document.cookie)).not.toContain('lingxi_session')

  await launcher(page).click()
  await expect(panel(page)).toBeVisible()
  const reply = await ask(panel(page), '我的订单什么时候发货？')
  await expect(reply).not.toBeEmpty()
  expect(await openDialogs(page)).not.toContain('手机号登录')
  expect(smsSent()).toEqual([])
  await snap(page, info, 'sso-desktop')

  // A reload restores the session: no second identify.
  await page.reload()
  await expect(status(page)).toHaveText('灵犀已登录：张三')
  expect(identifies).toEqual([200])
})

test('on a phone too; an assertion is good once, and a visitor the partner does not know stays logged out', async ({ browser }, info) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
  const page = await context.newPage()
  await page.goto(`${partnerUrl}/`)
  await expect(status(page)).toHaveText('灵犀未登录（请先登录本站）')

  await page.goto(`${partnerUrl}/login?user=77&name=${encodeURIComponent('李四')}`)
  await expect(status(page)).toHaveText('灵犀已登录：李四')
  // The same assertion handed over twice: the second is refused with the server's reason.
  const outcome = await page.evaluate(async () => {
    const { assertion } = await (await fetch('/lingxi/assertion')).json()
    type Identify = { identify(a: string): Promise<{ nickName: string } | null> }
    const lx = (window as unknown as { lingxi: Identify }).lingxi
    // The element's own identify(), then the loader's with the same assertion.
    const first = await (document.querySelector('lingxi-chat') as unknown as Identify).identify(assertion)
    const second = await lx.identify(assertion).then(
      () => 'accepted',
      (error: Error) => error.message
    )
    return { first: first?.nickName, second }
  })
  expect(outcome).toEqual({ first: '李四', second: '身份断言已被使用过（jti 重复），请让合作方后端重新签发' })
  await launcher(page).click()
  await expect(panel(page)).toBeVisible()
  await ask(panel(page), '退货要多久？')
  expect(await openDialogs(page)).not.toContain('手机号登录')
  expect(smsSent()).toEqual([])
  await snap(page, info, 'sso-phone')
  await context.close()
})
