// Dev helper: open a page and report console errors / CSP violations, then screenshot the login dialog.
import { chromium } from 'playwright-core'
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
const p = await b.newPage()
p.on('console', (m) => console.log('console:', m.type(), m.text()))
p.on('pageerror', (e) => console.log('pageerror:', e.message))
await p.goto(process.argv[2])
await p.waitForTimeout(1500)
await p.locator('lingxi-login').getByRole('button', { name: '登录' }).click()
await p.waitForTimeout(500)
await p.screenshot({ path: '/tmp/shots/csp.png' })
await b.close()
