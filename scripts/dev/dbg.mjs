import { chromium } from 'playwright-core'
import { readFileSync } from 'node:fs'
const url = process.argv[2]
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu','--disable-background-networking'] })
const p = await b.newPage()
p.on('console', m => console.log('console:', m.type(), m.text()))
p.on('pageerror', e => console.log('pageerror:', e.message))
p.on('requestfailed', r => console.log('failed:', r.url(), r.failure()?.errorText))
p.on('response', r => console.log('resp:', r.status(), r.url()))
const html = readFileSync('/work/main/examples/login-widgets.html','utf8').replaceAll('LINGXI_ORIGIN', url)
await p.route('http://partner.test/**', r => r.fulfill({ contentType: 'text/html', body: html }))
await p.goto('http://partner.test/')
await p.waitForTimeout(2000)
await p.screenshot({ path: '/tmp/shots/partner.png' })
await b.close()
