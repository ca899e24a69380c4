import { expect, test, type Page } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loginAs, pageUserInfo, shot } from './helpers'
import { makePng } from './png'
import { startServer, type LingxiServer } from './server'

// The user center on the host page against the real server: tabs in the address, allowances in
// the spec's w+ units, the balance log after a chat reply, redeeming recharge cards made with
// `lingxi-admin cards create` (one use only), nickname and avatar, change phone and log out;
// desktop and phone sizes.
//
// The embedded database serves one process at a time, so the cards are created in the data
// directory before the server starts on it.

let server: LingxiServer
let dataDir: string
let codes: string[] = []

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'lingxi-e2e-uc-'))
  const out = execFileSync(
    process.execPath,
    ['server/bin/lingxi-admin.mjs', 'cards', 'create', '--tokens', '100000', '--mj', '10', '--suno', '5', '--count', '2'],
    {
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe']
    }
  )
  codes = out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/.test(l))
  expect(codes).toHaveLength(2)
  server = await startServer({ DATA_DIR: dataDir })
})
test.afterAll(async () => {
  await server?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

/** formatCount of the spec: below 10000 as is, else tenths of ten thousands, truncated, + w+. */
const w = (n: number) => (n < 10000 ? String(n) : `${Math.floor(n / 10000)}.${Math.floor(n / 1000) % 10}w+`)

const tab = (page: Page, name: string) => page.getByRole('tab', { name })
const rows = (page: Page) => page.getByTestId('log-row')

test('balances, balance log after a chat, redeem a card once, nickname and avatar', async ({ page }, testInfo) => {
  await page.goto(server.url + '/usercenter?id=general')
  await loginAs(page, server, '13800138601')
  await expect(tab(page, '账户总览')).toHaveAttribute('aria-selected', 'true')
  const start = await pageUserInfo(page)
  await expect(page.getByTestId('allowance-tokens')).toHaveText(w(start.tokens))
  await expect(page.getByTestId('allowance-mj')).toHaveText(w(start.mjCount))
  await expect(page.getByTestId('allowance-suno')).toHaveText(w(start.sunoCount))
  await shot(page, testInfo, 'general')

  // a chat reply is charged and shows up in the balance log
  await page.goto(server.url + '/chat')
  await page.getByTestId('composer').fill('你好')
  await page.getByTestId('composer').press('Enter')
  await expect(page.locator('[data-testid=message][data-role=assistant]').last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await page.goto(server.url + '/usercenter?id=general')
  const after = await pageUserInfo(page)
  expect(after.tokens).toBeLessThan(start.tokens)
  await expect(page.getByTestId('allowance-tokens')).toHaveText(w(after.tokens))
  const charge = rows(page).filter({ hasText: '对话' }).first()
  await expect(charge).toContainText(`-${w(start.tokens - after.tokens)}`)
  await expect(charge).toContainText(`余 ${w(after.tokens)}`)

  // tabs put their id in the address; the keyboard moves between them
  await tab(page, '账户总览').focus()
  await page.keyboard.press('ArrowRight')
  await expect(page).toHaveURL(/\/usercenter\?id=card$/)
  await expect(tab(page, '卡密兑换')).toBeFocused()
  await expect(page.getByText('暂无兑换记录')).toBeVisible()

  // a wrong card: said next to the field, nothing changes
  const field = page.getByLabel('兑换卡密')
  await field.fill('AAAA-BBBB-CCCC-DDDD')
  await page.getByRole('button', { name: '立即兑换' }).click()
  await expect(page.locator('#lx-card-error')).toBeVisible()
  expect((await pageUserInfo(page)).tokens).toBe(after.tokens)

  // the real card, typed in lower case with spaces as people do
  await field.fill(codes[0]!.toLowerCase().replace(/-/g, ' '))
  await page.getByRole('button', { name: '立即兑换' }).click()
  await expect(page.getByText(/兑换成功/)).toBeVisible()
  await expect(rows(page)).toHaveCount(1)
  await expect(rows(page).first()).toContainText('对话 +10.0w+')
  await expect(rows(page).first()).toContainText('绘画 +10')
  await expect(rows(page).first()).not.toContainText(codes[0]!.slice(5, 9) + '-' + codes[0]!.slice(10, 14))
  const redeemed = await pageUserInfo(page)
  expect(redeemed).toMatchObject({ tokens: after.tokens + 100000, mjCount: after.mjCount + 10, sunoCount: after.sunoCount + 5 })
  await shot(page, testInfo, 'card redeemed')

  // the same card again is refused
  await field.fill(codes[0]!)
  await page.getByRole('button', { name: '立即兑换' }).click()
  await expect(page.locator('#lx-card-error')).toBeVisible()
  expect((await pageUserInfo(page)).tokens).toBe(redeemed.tokens)

  // the balance log shows the recharge too
  await tab(page, '账户总览').click()
  await expect(page).toHaveURL(/id=general$/)
  await expect(page.getByTestId('allowance-tokens')).toHaveText(w(redeemed.tokens))
  await expect(rows(page).first()).toContainText('+')

  // nickname
  await tab(page, '个人设置').click()
  const nick = page.getByLabel('昵称')
  await nick.fill('')
  await page.getByRole('button', { name: '保存' }).click()
  await expect(page.getByText('昵称不能为空')).toBeVisible()
  await nick.fill('灵犀测试员')
  await page.getByRole('button', { name: '保存' }).click()
  await expect(page.getByText('昵称已保存')).toBeVisible()
  await expect(page.getByTestId('uc-nickname')).toHaveText('灵犀测试员')

  // avatar through the image host's upload
  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: '更换头像' }).click()
  await (await chooser).setFiles({ name: 'me.png', mimeType: 'image/png', buffer: makePng(256, 256, { seed: 5 }) })
  await expect(page.getByText('头像已更新')).toBeVisible()
  const avatar = page.getByRole('img', { name: '我的头像' }).first()
  await expect(avatar).toHaveAttribute('src', /\/files\//)
  await expect.poll(() => avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(256)
  await shot(page, testInfo, 'setting')

  // both survive a reload
  await page.reload()
  await expect(page.getByTestId('uc-nickname')).toHaveText('灵犀测试员')
  expect((await pageUserInfo(page)).avatarUrl).toMatch(/\/files\//)

  // change phone opens the login widget's flow; log out asks first
  await page.getByRole('button', { name: '修改手机号' }).click()
  await expect(page.getByRole('dialog', { name: '请输入新手机号' })).toBeVisible()
  await page.keyboard.press('Escape')
  await page.getByRole('main').getByRole('button', { name: '退出登录' }).click()
  await page.getByRole('dialog', { name: '退出登录' }).getByRole('button', { name: '退出' }).click()
  await expect(page.getByText('已退出登录，期待您再次回来')).toBeVisible()
  await expect(page.getByRole('main').getByRole('button', { name: '登录' })).toBeVisible()
})

test.describe('phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('the center fits a phone and redeems the second card', async ({ page }, testInfo) => {
    await page.goto(server.url + '/usercenter?id=card')
    await loginAs(page, server, '13800138602')
    await expect(tab(page, '卡密兑换')).toHaveAttribute('aria-selected', 'true')
    await page.getByLabel('兑换卡密').fill(codes[1]!)
    await page.getByRole('button', { name: '立即兑换' }).click()
    await expect(rows(page)).toHaveCount(1)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await shot(page, testInfo, 'phone card')
    await tab(page, '账户总览').click()
    await expect(page.getByTestId('allowance-tokens')).toBeVisible()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await shot(page, testInfo, 'phone general')
  })
})
