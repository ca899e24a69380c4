import { expect, type Locator, test } from '@playwright/test'
import { snap } from './helpers'
import { type LingxiServer, startServer } from './server'

// Issue 19, defect 6, at the phone size (390×844, touch, a keyboard attached): the login dialog
// opens with the focus on the phone field, not on 关闭, and the calling code is picked by keys
// alone — Shift+Tab to the picker, Enter, type to search, Tab to an option, Enter.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})
test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

const focused = (target: Locator) => target.evaluate((el) => el.matches(':focus'))

test('login dialog on a phone: the phone field has the focus, the country picker works by keyboard', async ({ page }, info) => {
  await page.goto(server.url + '/chat')
  await page.getByRole('banner').getByRole('button', { name: '登录' }).tap()
  const dialog = page.getByRole('dialog', { name: '手机号登录' })
  await expect(dialog.getByRole('textbox', { name: '手机号' })).toBeFocused()
  await expect(dialog.getByRole('button', { name: '关闭' })).not.toBeFocused()
  const code = dialog.getByRole('button', { name: /国家或地区区号/ })
  await page.keyboard.press('Shift+Tab')
  await expect(code).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(dialog.getByRole('searchbox', { name: '搜索国家或地区' })).toBeFocused()
  await page.keyboard.type('xianggang')
  const option = dialog.getByRole('button', { name: /中国香港/ })
  for (let i = 0; i < 10 && !(await focused(option)); i++) await page.keyboard.press('Tab')
  await expect(option).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(code).toBeFocused()
  await expect(code).toContainText('+852')
  await snap(page, info, 'login: +852 picked by keyboard (phone)', 'login-phone-keys-')
})
