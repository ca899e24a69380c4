import { readFileSync } from 'node:fs'
import { expect, test } from '@playwright/test'
import { startPartner, startServer, type LingxiServer } from './server'

// The loader on a page of another origin: queued commands, lazy element chunks, one shared login.

let server: LingxiServer
let partner: Awaited<ReturnType<typeof startPartner>>
const partnerHtml = () => readFileSync(new URL('../../examples/login-widgets.html', import.meta.url), 'utf8').replaceAll('LINGXI_ORIGIN', server.url)

test.beforeAll(async () => {
  partner = await startPartner(partnerHtml)
  server = await startServer({ CORS_ORIGINS: partner.url })
})
test.afterAll(async () => {
  await server?.stop()
  await partner?.stop()
})

test('login widgets on a partner page share one session through the loader', async ({ page }, info) => {
  await page.goto(partner.url)

  await page.locator('lingxi-login').getByRole('button', { name: '登录' }).click()
  const dialog = page.getByRole('dialog', { name: '手机号登录' })
  await dialog.getByLabel('手机号').fill('13300133000')
  await dialog.getByRole('checkbox').check()
  const mark = server.output().length
  await dialog.getByRole('button', { name: '获取验证码' }).click()
  await dialog.getByLabel('验证码').fill(await server.smsCode('13300133000', mark))
  await dialog.getByRole('button', { name: '登录', exact: true }).click()

  // the command queued before the loader arrived heard the login; the profile element shows it
  await expect(page.locator('#status')).toHaveText('已登录：133****3000') // masked: an untrusted partner (ADR 0019)
  await expect(page.locator('lingxi-profile').getByTestId('header-phone')).toHaveText('133****3000')
  await expect(page.locator('lingxi-login').getByRole('button', { name: '登录' })).toHaveCount(0)
  // the partner's `* { box-sizing: content-box }` does not reach inside
  const sizing = await page
    .locator('lingxi-profile')
    .getByRole('button')
    .first()
    .evaluate((el) => getComputedStyle(el).boxSizing)
  expect(sizing).toBe('border-box')
  await info.attach('partner page', { body: await page.screenshot(), contentType: 'image/png' })

  await page.reload()
  await expect(page.locator('lingxi-profile').getByTestId('header-phone')).toHaveText('133****3000')
  // a restored session fires no lingxi-login: the page asked lingxi('session')
  await expect(page.locator('#status')).toHaveText('已登录：133****3000')
})
