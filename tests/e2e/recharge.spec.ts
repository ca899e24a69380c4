import { expect, type Page, test, type TestInfo } from '@playwright/test'
import { loginAs, pageUserInfo } from './helpers'
import { type LingxiServer, startServer } from './server'

// 在线充值 against the real server with its offline provider (演示支付): buy a seeded package,
// pay it with the 演示支付 button, see the allowance grow and the order listed as 已支付 — at
// desktop size (the pay page's QR code drawn locally) and phone size (no QR code), in both themes.

let server: LingxiServer

test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

/** A screenshot in each theme (the host page's <html data-theme>), attached and kept in the output folder. */
async function shots(page: Page, info: TestInfo, name: string) {
  for (const theme of ['dark', 'light']) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme)
    // LX_SHOTS=<folder> keeps them there too, to look at.
    const body = await page.screenshot(process.env.LX_SHOTS ? { path: `${process.env.LX_SHOTS}/${name}-${theme}.png` } : {})
    await info.attach(`${name} ${theme}`, { body, contentType: 'image/png' })
  }
  await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'))
}

async function buyAndPay(page: Page, info: TestInfo, phone: string, size: 'desktop' | 'phone') {
  await page.goto(`${server.url}/usercenter?id=recharge`)
  await loginAs(page, server, phone)
  await expect(page.getByRole('tab', { name: '在线充值' })).toHaveAttribute('aria-selected', 'true')
  const packages = page.getByRole('group', { name: '充值套餐' }).getByRole('radio')
  await expect(packages).toHaveCount(3)
  await expect(packages.nth(1)).toHaveAccessibleName(/推荐.*标准包|标准包.*推荐/)
  await expect(packages.nth(1)).toBeChecked()
  await expect(page.getByText('暂无充值订单')).toBeVisible()
  const before = (await pageUserInfo(page)).tokens
  await shots(page, info, `${size}-packages`)

  await page.getByTestId('pay-package').filter({ hasText: '体验包' }).click()
  await expect(packages.nth(0)).toBeChecked()
  await page.getByRole('button', { name: '立即支付 ¥9.90' }).click()
  const checkout = page.getByTestId('checkout')
  await expect(checkout).toHaveAttribute('data-status', 'pending')
  await expect(checkout.getByTestId('pay-amount')).toHaveText('¥9.90')
  await expect(checkout.getByTestId('pay-countdown')).toHaveText(/^1[45]:\d\d$/)
  await expect(checkout).toContainText('演示支付 · 不会扣款')
  if (size === 'desktop') await expect(checkout.getByTestId('pay-qr')).toBeVisible()
  else await expect(checkout.getByTestId('pay-qr')).toHaveCount(0)
  await expect(page.getByTestId('order-status').first()).toHaveText('待支付 · 去支付')
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size === 'phone' ? 390 : 1280)
  await shots(page, info, `${size}-checkout`)

  await checkout.getByRole('button', { name: '演示支付 ¥9.90' }).click()
  await expect(checkout).toHaveAttribute('data-status', 'paid')
  await expect(checkout).toContainText('支付成功，额度已到账')
  await expect.poll(async () => (await pageUserInfo(page)).tokens).toBe(before + 200_000)
  await expect(page.getByTestId('order-status').first()).toHaveText('已支付')
  await expect(page.getByTestId('log-row').first()).toContainText('体验包')
  await shots(page, info, `${size}-paid`)

  // The allowance on 账户总览 has grown, with the order in the balance log.
  await page.getByRole('tab', { name: '账户总览' }).click()
  await expect(page.getByTestId('log-row').first()).toContainText('充值：体验包（订单 LX')
}

test('desktop: buys a package with 演示支付 and sees the allowance and the order', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await buyAndPay(page, info, '13800138701', 'desktop')
})

test.describe('phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('buys a package with 演示支付 (no QR code) and sees the allowance and the order', async ({ page }, info) => {
    await buyAndPay(page, info, '13800138702', 'phone')
  })
})
