// Dev helper: chat and role screenshots at desktop and phone sizes into /tmp/shots.
// Usage: node scripts/dev/chat-screens.mjs <lingxi url> <server log file>
import { readFileSync, mkdirSync } from 'node:fs'
import { chromium } from 'playwright-core'
const [url, logFile] = process.argv.slice(2)
mkdirSync('/tmp/shots', { recursive: true })
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
for (const [name, viewport, phone] of [['desktop', { width: 1280, height: 800 }, '13900139001'], ['phone', { width: 390, height: 844 }, '13900139002']]) {
  const ctx = await b.newContext({ viewport, locale: 'zh-CN', isMobile: name === 'phone', hasTouch: name === 'phone' })
  const p = await ctx.newPage()
  p.on('pageerror', (e) => console.log('pageerror:', e.message))
  const snap = async (what) => { await p.waitForTimeout(500); await p.screenshot({ path: `/tmp/shots/${name}-${what}.png` }) }
  await p.goto(url + '/chat')
  await snap('chat-visitor')
  await p.getByRole('button', { name: '登录' }).first().click()
  const d = p.getByRole('dialog', { name: '手机号登录' })
  await d.getByLabel('手机号').fill(phone)
  await d.getByRole('checkbox').check()
  await d.getByRole('button', { name: '获取验证码' }).click()
  await p.waitForTimeout(600)
  const code = [...readFileSync(logFile, 'utf8').matchAll(new RegExp(`\\[sms\\] \\+86 ${phone} (\\d{4})`, 'g'))].pop()[1]
  await d.getByLabel('验证码').fill(code)
  await d.getByRole('button', { name: '登录', exact: true }).click()
  await p.waitForTimeout(800)
  await snap('chat-empty')
  const c = p.getByTestId('composer')
  await c.fill('用 Python 写一个快速排序，并解释 $O(n \\log n)$ 的复杂度')
  await c.press('Enter')
  await p.waitForTimeout(1200)
  await snap('chat-streaming')
  await p.locator('[data-testid=message][data-status=complete][data-role=assistant]').last().waitFor({ timeout: 30000 })
  await snap('chat-done')
  await p.goto(url + '/role')
  await p.getByTestId('role-card').first().waitFor()
  await snap('roles')
  await ctx.close()
}
await b.close()
