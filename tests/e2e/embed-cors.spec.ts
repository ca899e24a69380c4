import { expect, test, type Page } from '@playwright/test'
import { page as examplePage, snap } from './embed-helpers'
import { startPartner, startServer, type LingxiServer } from './server'

// CORS_ORIGINS lets a partner's origin in and keeps others out. The same page on a refused origin:
// the scripts load (the CDN is public), every API call is blocked by the browser, the widget says
// 系统异常，请稍后重试 and keeps working as an interface — no crash, no login.

let server: LingxiServer
let allowed: Awaited<ReturnType<typeof startPartner>>
let refused: Awaited<ReturnType<typeof startPartner>>

test.beforeAll(async () => {
  allowed = await startPartner(() => examplePage('partner-page.html', server))
  refused = await startPartner(() => examplePage('partner-page.html', server))
  server = await startServer({ CORS_ORIGINS: allowed.url })
})
test.afterAll(async () => {
  await server?.stop()
  await Promise.all([allowed?.stop(), refused?.stop()])
})

async function askForCode(page: Page, phone: string) {
  await page.getByRole('button', { name: '打开 AI 书童对话' }).click()
  await page.getByRole('dialog', { name: '灵犀 AI' }).getByRole('button', { name: '登录' }).click()
  const dialog = page.getByRole('dialog', { name: '手机号登录' })
  await dialog.getByLabel('手机号').fill(phone)
  await dialog.getByRole('checkbox').check()
  await dialog.getByRole('button', { name: '获取验证码' }).click()
  return dialog
}

test('an allowed origin gets answers', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(allowed.url)
  const dialog = await askForCode(page, '13300133001')
  await expect(dialog.getByTestId('masked-phone')).toHaveText('+86 133****3001')
  await expect(page.getByText('系统异常，请稍后重试')).toHaveCount(0)
  expect(errors).toEqual([])
})

test('a refused origin: the network error toast, nothing works, nothing crashes', async ({ page }, info) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  const answered: string[] = []
  page.on('requestfinished', (r) => {
    if (r.url().startsWith(`${server.url}/api/`)) answered.push(r.url())
  })
  await page.goto(refused.url)
  // the boot's config request failed: the toaster the loader added shows why
  await expect(page.getByText('系统异常，请稍后重试')).toBeVisible()
  expect(await page.locator('body > lingxi-toaster').count()).toBe(1)

  const dialog = await askForCode(page, '13300133002')
  await expect(page.getByText('系统异常，请稍后重试')).toBeVisible()
  await expect(dialog.getByLabel('手机号')).toBeVisible() // still on the phone step
  await expect(dialog.getByTestId('masked-phone')).toHaveCount(0)
  await snap(page, info, 'cors-refused')
  expect(server.output().filter((l) => l.includes('13300133002'))).toEqual([]) // no code was sent

  // the interface still works
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('dialog', { name: '灵犀 AI' })).toBeHidden()
  expect(answered).toEqual([])
  expect(errors).toEqual([])
})
