import { createHmac, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test, type TestInfo } from '@playwright/test'
import { apiLogin, loginAs } from './helpers'
import { type LingxiServer, startServer } from './server'

// The operator console (/admin) as an operator uses it, at desktop and phone size: the operator is
// made by ADMIN_PHONES on their first visit; they find a user, adjust an allowance with a reason
// and see it in the user's balance log, create a card batch and download its CSV, create a
// package, and refund an order paid with 演示支付. A normal user opening /admin is refused.

/** One operator per size (a phone gets a few codes a minute). */
const OPERATORS = { desktop: '13900139000', phone: '13900139009', weight: '13900139008' }
// The partner test's own operators: one phone may ask for an SMS code once a minute, and the test before
// it has just logged OPERATORS[size] in.
const PARTNER_OPERATORS = { desktop: '13900139007', phone: '13900139006' }
let server: LingxiServer
/** A partner of single sign-on (issue 16 item 3): its users have no phone, the console names partner and sub. */
const PARTNER = { id: 'qinghe', name: '青禾书店', origins: ['https://shop.qinghe.example'], secret: 'qinghe-secret-0123456789-abcdefghijkl' }

test.beforeAll(async () => {
  server = await startServer({
    ADMIN_PHONES: [...Object.values(OPERATORS), ...Object.values(PARTNER_OPERATORS)].join(','),
    LINGXI_PARTNERS: JSON.stringify([PARTNER])
  })
})
test.afterAll(async () => {
  await server?.stop()
})

async function post(path: string, body: object, token?: string) {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body)
  })
  return (await res.json()) as { code: number; message: string; data: any }
}

/** A user who bought the first package with 演示支付 (through the provider's notify path); answers the order id. */
async function paidOrder(phone: string): Promise<string> {
  const token = await apiLogin(server, phone)
  const packages = await post('/api/v1/pay/packages', {})
  const made = await post(
    '/api/v1/pay/order/create',
    { packageId: packages.data[0].id, provider: 'demo', scene: 'page', idempotencyKey: `e2e-${phone}` },
    token
  )
  expect(made.code).toBe(2000)
  const confirm = await fetch(`${server.url}/api/v1/pay/demo/${made.data.orderId}/confirm`, { method: 'POST', redirect: 'manual' })
  expect(confirm.status).toBe(303)
  return made.data.orderId
}

/** A user of the partner's own login, identified through its signed assertion (as its page would). */
async function partnerUser(sub: string) {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const iat = Math.floor(Date.now() / 1000)
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: PARTNER.id, sub, aud: 'lingxi', iat, exp: iat + 120, jti: randomUUID() })}`
  const assertion = `${unsigned}.${createHmac('sha256', PARTNER.secret).update(unsigned).digest('base64url')}`
  const res = await fetch(`${server.url}/api/v1/auth/partner/identify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: PARTNER.origins[0]! },
    body: JSON.stringify({ assertion, platform: 'PC' })
  })
  expect(((await res.json()) as { code: number }).code).toBe(2000)
}

/** axe-core (WCAG 2.x A and AA) over the page as it is, a dialog included: no critical or serious violation. */
async function axe(page: Page, where: string) {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  const bad = violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  expect(bad, where).toEqual([])
}

/** A screenshot per theme; LX_SHOTS=<folder> keeps them there too, to look at. */
async function shots(page: Page, info: TestInfo, name: string) {
  for (const theme of ['dark', 'light']) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme)
    const body = await page.screenshot(
      process.env.LX_SHOTS ? { path: `${process.env.LX_SHOTS}/admin-${name}-${theme}.png`, fullPage: true } : { fullPage: true }
    )
    await info.attach(`${name} ${theme}`, { body, contentType: 'image/png' })
  }
  await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'))
}

for (const size of ['desktop', 'phone'] as const) {
  test.describe(size, () => {
    test.use(size === 'phone' ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } })
    const suffix = size === 'desktop' ? '1' : '2'
    const userPhone = `1370013700${suffix}`

    test('an operator runs the console', async ({ page }, info) => {
      // Every tab with its screenshots and axe checks in one walk: about 40 s on a quiet machine.
      test.setTimeout(180_000)
      const orderId = await paidOrder(userPhone)
      await page.goto(`${server.url}/admin`)
      await loginAs(page, server, OPERATORS[size])
      const tabs = page.getByRole('tablist', { name: '运营后台' })
      await expect(tabs.getByRole('tab', { name: '用户' })).toHaveAttribute('aria-selected', 'true')
      await expect(page.getByTestId('route-notice')).toHaveCount(0)

      // 用户: find the buyer, adjust an allowance with a reason, see it in the balance log.
      await page.getByLabel('搜索用户').fill(userPhone.slice(-6))
      await page.getByRole('button', { name: '搜索', exact: true }).click()
      const rows = page.getByRole('region', { name: '用户列表' }).getByTestId('admin-row')
      await expect(rows).toHaveCount(1)
      await shots(page, info, `${size}-users`)
      await axe(page, 'users')
      await rows.getByRole('button', { name: /^查看/ }).click()
      await expect(page.getByRole('heading', { name: new RegExp(userPhone) })).toBeVisible()
      await page.getByRole('button', { name: '调整额度' }).click()
      const adjust = page.getByRole('dialog', { name: '调整额度' })
      await adjust.getByLabel('数量').fill('1234')
      await adjust.getByRole('button', { name: '确认调整' }).click()
      await expect(adjust.getByRole('alert')).toHaveText('请填写调整原因')
      await axe(page, 'adjust dialog')
      await adjust.getByLabel('原因（必填）').fill('客服补偿')
      await adjust.getByRole('button', { name: '确认调整' }).click()
      await expect(adjust).toBeHidden()
      const log = page.getByRole('region', { name: '余额记录' }).getByTestId('admin-row')
      await expect(log.first()).toContainText('运营调整：客服补偿')
      await expect(log.first()).toContainText('+1,234')
      await shots(page, info, `${size}-user-detail`)
      await axe(page, 'user detail')

      // 充值卡: a batch of 3, its codes shown once, its CSV downloaded.
      await tabs.getByRole('tab', { name: '充值卡' }).click()
      await expect(page).toHaveURL(/\/admin\?tab=cards$/)
      await page.getByRole('button', { name: '创建批次' }).click()
      const create = page.getByRole('dialog', { name: '创建充值卡批次' })
      await create.getByLabel('每张对话额度').fill('5000')
      await create.getByLabel('张数').fill('3')
      await create.getByLabel('备注').fill(`活动${size}`)
      await create.getByRole('button', { name: '创建' }).click()
      const made = page.getByRole('dialog', { name: '充值卡已创建' })
      await expect(made.getByLabel('3 张卡密')).toHaveValue(/^\S+\n\S+\n\S+$/)
      await axe(page, 'card codes dialog')
      await made.getByRole('button', { name: '完成' }).click()
      const batch = page
        .getByRole('region', { name: '充值卡批次' })
        .getByTestId('admin-row')
        .filter({ hasText: `活动${size}` })
      await expect(batch).toContainText('对话额度 5,000')
      const download = page.waitForEvent('download')
      await batch.getByRole('button', { name: /的 CSV$/ }).click()
      const file = await download
      expect(file.suggestedFilename()).toMatch(/^cards-.+\.csv$/)
      const csv = readFileSync((await file.path())!, 'utf8')
      expect(csv.charCodeAt(0)).toBe(0xfeff)
      expect(csv.trim().split('\r\n')).toHaveLength(4)
      await shots(page, info, `${size}-cards`)
      await axe(page, 'cards')

      // 套餐: a new package, then off sale.
      await tabs.getByRole('tab', { name: '套餐' }).click()
      await page.getByRole('button', { name: '新建套餐' }).click()
      const pkg = page.getByRole('dialog', { name: '新建套餐' })
      await pkg.getByLabel('名称').fill(`季卡${size}`)
      await pkg.getByLabel('价格（元）').fill('59.90')
      await pkg.getByLabel('对话额度').fill('2000000')
      await pkg.getByLabel('角标').fill('超值')
      await axe(page, 'package dialog')
      await pkg.getByRole('button', { name: '保存' }).click()
      await expect(pkg).toBeHidden()
      const pkgRow = page
        .getByRole('region', { name: '充值套餐' })
        .getByTestId('admin-row')
        .filter({ hasText: `季卡${size}` })
      await expect(pkgRow).toContainText('¥59.90')
      await expect(pkgRow).toContainText('在售')
      await pkgRow.getByRole('button', { name: `下架 季卡${size}` }).click()
      await expect(pkgRow).toContainText('已下架')
      await shots(page, info, `${size}-packages`)
      await axe(page, 'packages')

      // 订单: the demo order found by the buyer's phone, refunded in full.
      await tabs.getByRole('tab', { name: '订单' }).click()
      await page.getByLabel('订单号 / 手机号 / 用户 ID').fill(userPhone)
      await page.getByRole('button', { name: '查询' }).click()
      await expect(page.getByText('共 1 笔订单')).toBeVisible()
      const order = page.getByRole('region', { name: '订单列表' }).getByTestId('admin-row')
      await expect(order).toContainText(orderId)
      await expect(order).toContainText('已支付')
      await shots(page, info, `${size}-orders`)
      await axe(page, 'orders')
      await order.getByRole('button', { name: `退款 ${orderId}` }).click()
      const refund = page.getByRole('dialog', { name: '订单退款' })
      await refund.getByLabel('退款原因（必填）').fill('用户申请')
      await shots(page, info, `${size}-refund`)
      await axe(page, 'refund dialog')
      await refund.getByRole('button', { name: '确认退款' }).click()
      await expect(refund).toBeHidden()
      await expect(order).toContainText('已退款')
      const orders = page.waitForEvent('download')
      await page.getByRole('button', { name: '导出 CSV' }).click()
      const ordersCsv = readFileSync((await (await orders).path())!, 'utf8')
      expect(ordersCsv).toContain(orderId)
      expect(ordersCsv.trim().split('\r\n')).toHaveLength(2)

      // 审计日志: what was done, newest first.
      await tabs.getByRole('tab', { name: '审计日志' }).click()
      const audit = page.getByRole('region', { name: '审计日志' }).getByTestId('admin-row')
      await expect(audit.first()).toContainText('订单退款')
      await expect(page.getByRole('region', { name: '审计日志' })).toContainText('调整额度')
      await shots(page, info, `${size}-audit`)
      await axe(page, 'audit')
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size === 'phone' ? 390 : 1280)

      // Keyboard: the arrows move between tabs.
      await tabs.getByRole('tab', { name: '审计日志' }).focus()
      await page.keyboard.press('Home')
      await expect(tabs.getByRole('tab', { name: '用户' })).toBeFocused()
      await expect(tabs.getByRole('tab', { name: '用户' })).toHaveAttribute('aria-selected', 'true')
    })

    test('partner users in the users tab, and the partners view', async ({ page }, info) => {
      const sub = `reader-${suffix}`
      await partnerUser(sub)
      await page.goto(`${server.url}/admin`)
      await loginAs(page, server, PARTNER_OPERATORS[size])
      const tabs = page.getByRole('tablist', { name: '运营后台' })
      const users = page.getByRole('region', { name: '用户列表' })
      await expect(users.getByTestId('admin-row').first()).toBeVisible()
      // The filter shows on a phone too (issue 17): the console's first calls race the menu's, and
      // /api/admin/partners once missed the ADMIN_PHONES bootstrap (refused, so no filter).
      const filter = page.getByLabel('按合作方筛选')
      await expect(filter).toBeVisible()
      await expect(filter.locator('option')).toHaveText(['全部用户', `合作方：${PARTNER.name}`])
      await filter.selectOption(PARTNER.id)
      const row = users.getByTestId('admin-row').filter({ hasText: sub })
      await expect(row).toContainText(`合作方 ${PARTNER.id}`)
      // Only the partner's users: no row with a phone.
      await expect(users).not.toContainText('+86')
      await shots(page, info, `${size}-partner-users`)
      await axe(page, 'partner users')
      await row.getByRole('button', { name: `查看 ${PARTNER.id} ${sub}` }).click()
      await expect(page.getByRole('heading', { name: new RegExp(sub) })).toContainText(`合作方 ${PARTNER.id}`)

      await tabs.getByRole('tab', { name: '合作方' }).click()
      const partners = page.getByRole('region', { name: '合作方' }).getByTestId('admin-row')
      await expect(partners).toHaveCount(1)
      await expect(partners).toContainText(PARTNER.name)
      await expect(partners).toContainText(PARTNER.origins[0]!)
      await expect(page.getByRole('region', { name: '合作方' })).not.toContainText(PARTNER.secret)
      await shots(page, info, `${size}-partners`)
      await axe(page, 'partners')
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size === 'phone' ? 390 : 1280)
    })

    test('a normal user is refused /admin', async ({ page }) => {
      await page.goto(server.url)
      await loginAs(page, server, `1360013600${suffix}`)
      await page.goto(`${server.url}/admin`)
      await expect(page.getByTestId('route-notice')).toContainText('没有「运营后台」的使用权限')
      await expect(page).not.toHaveURL(/\/admin/)
      await expect(page.getByRole('tablist', { name: '运营后台' })).toHaveCount(0)
    })
  })
}

test('a first visit of /admin, signed in, fetches at most 60 KB gzip of scripts and styles', async ({ page, browser }) => {
  await page.goto(server.url)
  await loginAs(page, server, OPERATORS.weight)
  // A fresh browser with the same session: nothing cached.
  const context = await browser.newContext({ storageState: await page.context().storageState(), viewport: { width: 1280, height: 800 } })
  const fresh = await context.newPage()
  const transfers: Promise<number>[] = []
  fresh.on('response', (response) => {
    const type = response.request().resourceType()
    if (type === 'script' || type === 'stylesheet')
      transfers.push(
        response
          .finished()
          .then(() => response.request().sizes())
          .then((s) => s.responseBodySize)
      )
  })
  await fresh.goto(`${server.url}/admin`)
  await expect(fresh.getByRole('region', { name: '用户列表' }).getByTestId('admin-row').first()).toBeVisible()
  let seen = -1
  while (seen !== transfers.length) {
    seen = transfers.length
    await fresh.waitForTimeout(1000)
  }
  const bytes = (await Promise.all(transfers)).reduce((a, b) => a + b, 0)
  console.log(`/admin first visit (signed in): ${(bytes / 1024).toFixed(1)} KB gzip`)
  expect(bytes).toBeLessThanOrEqual(60 * 1024)
  await context.close()
})
