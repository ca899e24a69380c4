// Dev helper: screenshots of the host pages at desktop and phone sizes into /tmp/shots.
// Usage: node scripts/dev/screens.mjs <lingxi url> <server log file>
import { readFileSync, mkdirSync } from 'node:fs'
import { chromium } from 'playwright-core'
const [url, logFile] = process.argv.slice(2)
mkdirSync('/tmp/shots', { recursive: true })
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
for (const [name, viewport, phone] of [['desktop', { width: 1280, height: 800 }, '13800138001'], ['phone', { width: 390, height: 844 }, '13800138002']]) {
  const ctx = await b.newContext({ viewport, locale: 'zh-CN', isMobile: name === 'phone', hasTouch: name === 'phone' })
  const p = await ctx.newPage()
  p.on('pageerror', (e) => console.log('pageerror:', e.message))
  const snap = async (what) => { await p.waitForTimeout(400); await p.screenshot({ path: `/tmp/shots/${name}-${what}.png` }) }
  await p.goto(url + '/')
  await snap('entry')
  await p.getByRole('banner').getByRole('button', { name: '登录' }).click()
  await snap('login1')
  const d = p.getByRole('dialog', { name: '手机号登录' })
  await d.getByRole('button', { name: /国家或地区区号/ }).click()
  await snap('country')
  await d.getByRole('button', { name: /国家或地区区号/ }).click()
  await d.getByLabel('手机号').fill(phone)
  await d.getByRole('checkbox').check()
  await d.getByRole('button', { name: '获取验证码' }).click()
  await p.waitForTimeout(600)
  await snap('login2')
  const code = [...readFileSync(logFile, 'utf8').matchAll(new RegExp(`\\[sms\\] \\+86 ${phone} (\\d{4})`, 'g'))].pop()[1]
  await d.getByLabel('验证码').fill(code)
  await d.getByRole('button', { name: '登录', exact: true }).click()
  await p.waitForTimeout(300)
  await snap('chat')
  await p.getByRole('banner').getByTestId('header-phone').click()
  await snap('menu')
  await p.getByRole('menuitem', { name: '个人信息' }).click()
  await snap('profile')
  await p.keyboard.press('Escape')
  await p.goto(url + '/usercenter?id=general')
  await snap('usercenter')
  await p.goto(url + '/404')
  await snap('404')
  await ctx.close()
}
await b.close()
