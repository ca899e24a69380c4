import { expect, test, type Page } from '@playwright/test'
import { startFakeWechatOAuth, type FakeWechatOAuth } from '../../server/test/fakes/wechat-oauth'
import { snap } from './helpers'
import { startServer, type LingxiServer } from './server'

// WeChat login through a fake WeChat Open Platform on loopback (qrconnect page, then
// sns/oauth2/access_token and sns/userinfo): a popup on desktop that logs the page in and closes,
// the 绑定手机号 step for a new WeChat identity, the whole-page redirect on phones, and no WeChat
// option when the server has no WeChat app configured.

let wechat: FakeWechatOAuth
let server: LingxiServer
test.beforeAll(async () => {
  wechat = await startFakeWechatOAuth()
  wechat.autoConfirm = false // a page stands for the QR code: the test "scans" it
  server = await startServer({ WECHAT_APP_ID: wechat.appId, WECHAT_APP_SECRET: wechat.appSecret, WECHAT_OPEN_URL: wechat.url, WECHAT_API_URL: wechat.url })
})
test.afterAll(async () => {
  await server?.stop()
  await wechat?.close()
})

async function openWechatOption(page: Page) {
  await page.getByRole('banner').getByRole('button', { name: '登录' }).click()
  const dialog = page.getByRole('dialog', { name: '手机号登录' })
  await expect(dialog).toBeVisible()
  // the terms come first, as for the phone login
  await dialog.getByRole('button', { name: '微信登录' }).click()
  await expect(dialog.getByText('请勾选同意后再登录')).toBeVisible()
  await dialog.getByRole('checkbox').check()
  return dialog
}

test('desktop: the popup logs the page in, then a new WeChat account binds a phone', async ({ page }, info) => {
  await page.goto(server.url + '/chat')
  const dialog = await openWechatOption(page)
  await snap(page, info, 'login dialog with WeChat', 'wechat-')
  const popupPromise = page.waitForEvent('popup')
  await dialog.getByRole('button', { name: '微信登录' }).click()
  const popup = await popupPromise
  await expect(popup.getByText('请使用微信扫描二维码登录')).toBeVisible()
  expect(new URL(popup.url()).searchParams.get('appid')).toBe(wechat.appId)
  const closed = popup.waitForEvent('close')
  await popup.getByRole('link', { name: '模拟扫码确认' }).click()
  await closed // the answer page told this page and closed itself

  await expect(page.getByText('登录成功！')).toBeVisible()
  expect(wechat.hits['/sns/oauth2/access_token']).toBe(1)
  expect(wechat.hits['/sns/userinfo']).toBe(1)
  // a new WeChat identity has no phone yet: 绑定手机号
  const bind = page.getByRole('dialog', { name: '绑定手机号' })
  await expect(bind).toBeVisible()
  await snap(page, info, 'bind phone', 'wechat-')
  await bind.getByLabel('手机号').fill('13800138700')
  const mark = server.output().length
  await bind.getByRole('button', { name: '获取验证码' }).click()
  const code = await server.smsCode('13800138700', mark)
  await bind.getByLabel('验证码').fill(code)
  await bind.getByRole('button', { name: '确认修改' }).click()
  await expect(page.getByText('修改成功！')).toBeVisible()
  await expect(bind).toBeHidden()
  await expect(page.getByRole('banner')).toContainText('138****8700')
  // the session is the page's own: it survives a reload
  await page.reload()
  await expect(page.getByRole('banner')).toContainText('138****8700')
})

test.describe('phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('the same WeChat logs in again by a whole-page redirect, straight into its account', async ({ page }) => {
    await page.goto(server.url + '/hotNew')
    const dialog = await openWechatOption(page)
    await dialog.getByRole('button', { name: '微信登录' }).click()
    await expect(page).toHaveURL(new RegExp(`^${wechat.url}/connect/qrconnect`))
    await page.getByRole('link', { name: '模拟扫码确认' }).click()
    await expect(page).toHaveURL(new RegExp(`^${server.url}/hotNew$`)) // ?login= consumed
    await expect(page.getByText('登录成功！')).toBeVisible()
    await expect(page.getByRole('dialog', { name: '绑定手机号' })).toHaveCount(0)
    await page.goto(server.url + '/usercenter?id=general')
    await expect(page.getByText('138****8700').first()).toBeVisible()
  })
})

test.describe('phone, a new WeChat', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('a new WeChat identity coming back by redirect is asked to bind a phone', async ({ page }, info) => {
    wechat.user = { openid: 'oNEWuser_phone_redirect_0001', nickname: '微信用户乙' }
    await page.goto(server.url + '/chat')
    const dialog = await openWechatOption(page)
    await dialog.getByRole('button', { name: '微信登录' }).click()
    await page.getByRole('link', { name: '模拟扫码确认' }).click()
    await expect(page).toHaveURL(new RegExp(`^${server.url}/chat$`))
    await expect(page.getByText('登录成功！')).toBeVisible()
    const bind = page.getByRole('dialog', { name: '绑定手机号' })
    await expect(bind).toBeVisible()
    await expect(bind.getByLabel('手机号')).toHaveAttribute('placeholder', '请输入手机号')
    await snap(page, info, 'bind phone on a phone', 'wechat-')
  })
})

test('without a WeChat app the login dialog offers no WeChat option', async ({ page }) => {
  const plain = await startServer()
  try {
    await page.goto(plain.url + '/chat')
    await page.getByRole('banner').getByRole('button', { name: '登录' }).click()
    const dialog = page.getByRole('dialog', { name: '手机号登录' })
    await expect(dialog.getByRole('button', { name: '获取验证码' })).toBeVisible()
    await expect(dialog.getByRole('button', { name: '微信登录' })).toHaveCount(0)
    const answer = await page.request.get(plain.url + '/api/v1/auth/wechat/authorize?redirect=/chat&popup=1', { maxRedirects: 0 })
    expect((await answer.json()).message).toBe('微信登录未配置')
  } finally {
    await plain.stop()
  }
})
