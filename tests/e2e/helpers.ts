import { expect, type Page, type TestInfo } from '@playwright/test'
import type { LingxiServer } from './server'

/** Attaches a screenshot of the viewport to the test report. */
export async function shot(page: Page, info: TestInfo, name: string) {
  await info.attach(name, { body: await page.screenshot({ fullPage: false }), contentType: 'image/png' })
}

/** Logs in through the dialog with the code the console SMS provider printed. */
export async function loginAs(page: Page, server: LingxiServer, phone: string, info?: TestInfo) {
  const dialog = page.getByRole('dialog', { name: '手机号登录' })
  if (!(await dialog.isVisible())) await page.getByRole('banner').getByRole('button', { name: '登录' }).click()
  await expect(dialog).toBeVisible()
  await dialog.getByLabel('手机号').fill(phone)
  await dialog.getByRole('checkbox').check()
  const mark = server.output().length
  await dialog.getByRole('button', { name: '获取验证码' }).click()
  await expect(dialog.getByTestId('masked-phone')).toHaveText(`+86 ${phone.slice(0, 3)}****${phone.slice(-4)}`)
  if (info) await shot(page, info, 'login step 2')
  const code = await server.smsCode(phone, mark)
  await dialog.getByLabel('验证码').fill(code)
  await dialog.getByRole('button', { name: '登录', exact: true }).click()
  await expect(page.getByText('登录成功！')).toBeVisible()
  await expect(dialog).toBeHidden()
}

/** A token for API calls made by the test itself (not through the page). */
export async function apiLogin(server: LingxiServer, phone: string): Promise<string> {
  const post = (path: string, body: object) =>
    fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json())
  const mark = server.output().length
  expect((await post('/api/v1/auth/send-sms-code', { enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 })).code).toBe(2000)
  const code = await server.smsCode(phone, mark)
  const res = await post('/api/v1/auth/login', { enCode: '86', phone, code, platform: 'PC' })
  return res.data.accessToken
}
