import { expect, test } from '@playwright/test'
import { fileName as name, kb, recordTransfers, startBudgetSite, sum } from './embed-budget-harness'
import { ask } from './embed-helpers'
import { addSession, apiLogin, snap } from './helpers'

// Issue 16, size clause: "a reply with code and maths costs no more than deep-chat showing the
// same reply". Measured in Chromium on the partner page, logged in: the bytes actually transferred
// (gzip from the server's compression; woff2 as it is) for every script, stylesheet and font the
// page loads to show the bubble, open it and render one reply with a fenced code block, display
// maths and inline maths. Scripts + styles and fonts are reported apart; the ceiling is on their sum.

// deep-chat is not a dependency of Lingxi, so its figures are constants, measured by hand on
// 2026-11-29 in the same Chromium (/usr/bin/chromium, Playwright), the same way (transferred body
// bytes of scripts, stylesheets and fonts): deep-chat@2.4.2 from npm in a scratch folder, its
// dist/deepChat.bundle.js served by a tiny node http server with zlib gzip, a page with one
// <deep-chat> whose `history` holds QUESTION and REPLY. deep-chat bundles neither KaTeX nor a
// highlighter: maths needs `remarkable: { math: true }` and a global `window.katex` (it renders
// KaTeX's MathML output, so no KaTeX stylesheet or fonts), and with `remarkable` options set code is
// highlighted only through a `highlight` function (here highlight.js 11 core + its JavaScript
// grammar, esbuild-minified). Alone, deep-chat shows the maths as raw `$…$` source.
//   deep-chat alone (raw maths, plain code):            111,582 B scripts, 0 fonts  (109.0 KB)
//   + katex.min.js 0.19.1 (76,636 B) + highlight.js 11.12 (11,053 B): 199,271 B scripts, 0 fonts (194.6 KB)
// (deep-chat also links Google Fonts' Inter stylesheet, unreachable offline, so not counted.)
// The ceiling is deep-chat showing the same reply: maths rendered, code highlighted.
const DEEP_CHAT = { scriptsAndStyles: 199_271, fonts: 0 }
const CEILING = DEEP_CHAT.scriptsAndStyles + DEEP_CHAT.fonts

const QUESTION = '计算 x² 在 0 到 1 上的积分，并用 JavaScript 验证'

/** The assistant's reply: a fenced code block, display maths and inline maths. */
const REPLY = `## 定积分

$$
\\int_0^1 x^2\\,dx = \\frac{1}{3}
$$

顺便一提，质能方程是 $E=mc^2$。

\`\`\`js
const integrate = (f, n = 1000) => {
  let sum = 0
  for (let i = 0; i < n; i++) sum += f((i + 0.5) / n) / n
  return sum
}
console.log(integrate((x) => x * x)) // 0.3333…
\`\`\`

用中点法求和，结果接近 1/3。`

let site: Awaited<ReturnType<typeof startBudgetSite>>
let server: Awaited<ReturnType<typeof startBudgetSite>>['server']
let partner: Awaited<ReturnType<typeof startBudgetSite>>['partner']

test.beforeAll(async () => {
  // The fake upstream is the site's only model, so a new topic uses it.
  site = await startBudgetSite('lingxi-maths-budget-', () => REPLY)
  ;({ server, partner } = site)
})
test.afterAll(async () => {
  await site?.stop()
})

const exact = (n: number) => `${kb(n)} (${n.toLocaleString('en')} B)`

test('a reply with code and maths costs no more than deep-chat showing it', async ({ browser }, info) => {
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } })
  await addSession(context, server, await apiLogin(server, '13900139020'), partner.url)
  const page = await context.newPage()
  const transfers = recordTransfers(page, ['script', 'stylesheet', 'font'])
  await page.goto(partner.url)
  const launcher = page.getByRole('button', { name: '打开 AI 书童对话' })
  await expect(launcher).toBeVisible()
  await launcher.click()
  const panel = page.getByRole('dialog', { name: '灵犀 AI' })
  const reply = await ask(panel, QUESTION)
  // rendered: highlighted code, display maths and inline maths laid out by KaTeX
  await expect(reply.locator('pre code[data-highlighted] .lx-t-keyword').first()).toHaveText('const')
  await expect(reply.locator('.katex-display')).toHaveCount(1)
  await expect(reply.locator('.katex')).toHaveCount(2)
  await expect(reply.locator('.katex-display .katex-html')).toContainText('∫')
  await page.evaluate(() => document.fonts.ready)
  await page.waitForLoadState('networkidle')
  await snap(page, info, 'reply with code and maths', 'embed-maths-')
  const all = await transfers()
  await context.close()

  for (const t of all) if (t.type !== 'font' && t.bytes > 1024) expect(t.encoding, t.url).toBe('gzip')
  const code = all.filter((t) => t.type !== 'font')
  const fonts = all.filter((t) => t.type === 'font')
  const total = sum(code) + sum(fonts)
  const lines = [
    `scripts + styles   ${exact(sum(code))}  (deep-chat ${exact(DEEP_CHAT.scriptsAndStyles)})`,
    `fonts              ${exact(sum(fonts))}  (deep-chat ${exact(DEEP_CHAT.fonts)})`,
    `total              ${exact(total)}  (ceiling: deep-chat's ${exact(CEILING)})`,
    ...all.map((t) => `  ${t.type.padEnd(10)} ${name(t.url).padEnd(52)} ${kb(t.bytes)}`)
  ]
  console.log(lines.join('\n'))
  await info.attach('maths reply budget', { body: lines.join('\n'), contentType: 'text/plain' })
  expect(fonts.length, 'KaTeX fonts are loaded').toBeGreaterThan(0)
  expect(total, 'bubble + open + a reply with code and maths, logged in').toBeLessThanOrEqual(CEILING)
})
