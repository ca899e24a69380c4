// Dev helper: screenshots of the tool pages (painting, music, hot news, image host, user center,
// orders) at desktop and phone sizes into /tmp/shots. Usage: node scripts/dev/tool-screens.mjs <url> <server log>
import { readFileSync, mkdirSync } from 'node:fs'
import { chromium } from 'playwright-core'
const [url, logFile, only] = process.argv.slice(2)
mkdirSync('/tmp/shots', { recursive: true })
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
for (const [name, viewport, phone] of [['desktop', { width: 1280, height: 800 }, '13800138011'], ['phone', { width: 390, height: 844 }, '13800138012']]) {
  if (only && only !== name) continue
  const ctx = await b.newContext({ viewport, locale: 'zh-CN', isMobile: name === 'phone', hasTouch: name === 'phone' })
  const p = await ctx.newPage()
  p.on('pageerror', (e) => console.log(name, 'pageerror:', e.message))
  p.on('response', (r) => r.status() >= 400 && console.log(name, r.status(), r.url()))
  const snap = async (what, wait = 600) => { await p.waitForTimeout(wait); await p.screenshot({ path: `/tmp/shots/${name}-${what}.png` }) }
  await p.goto(url + '/')
  await p.getByRole('banner').getByRole('button', { name: '登录' }).click()
  const d = p.getByRole('dialog', { name: '手机号登录' })
  await d.getByLabel('手机号').fill(phone)
  await d.getByRole('checkbox').check()
  await d.getByRole('button', { name: '获取验证码' }).click()
  await p.waitForTimeout(800)
  const code = [...readFileSync(logFile, 'utf8').matchAll(new RegExp(`\\[sms\\] \\+86 ${phone} (\\d{4})`, 'g'))].pop()[1]
  await d.getByLabel('验证码').fill(code)
  await d.getByRole('button', { name: '登录', exact: true }).click()
  await p.waitForTimeout(800)
  for (const [path, what, wait] of [
    ['/mj', 'mj', 1500], ['/mjHelper', 'mjhelper', 1200], ['/sd', 'sd', 1200], ['/gallery', 'gallery', 1200],
    ['/music', 'music', 1500], ['/hotNew', 'hot', 1500], ['/imgSee', 'imgsee', 1200],
    ['/usercenter?id=general', 'uc-general', 1200], ['/usercenter?id=card', 'uc-card', 1000], ['/usercenter?id=setting', 'uc-setting', 1000],
    ['/orders', 'orders', 1500], ['/miracleOrders', 'miracle', 1200],
  ]) {
    await p.goto(url + path)
    await snap(what, wait)
  }
  await ctx.close()
}
await b.close()
