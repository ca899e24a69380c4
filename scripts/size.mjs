// `npm run size`: what a browser really downloads, measured in Chromium against the built site
// (`npm run build` first), checked against the budgets of DESIGN.md (gzip, as transferred):
// - the loader ≤ 3 KB;
// - the host's first screen ≤ 60 KB on every route, signed in too: `/` and `/chat` logged out,
//   `/chat` signed in with a topic whose reply is markdown (its topics, its messages and every
//   script or stylesheet the page loads on its own until it is quiet);
// - a partner page's chat bubble (`<lingxi-chat mode="bubble">`) ≤ 45 KB: shown, opened and a
//   markdown reply rendered, signed in (tests/e2e/embed-budget.spec.ts also checks the first
//   visit with the login and a reply with code, against ceilings of their own).
// It starts the built server on a free port with an empty data directory, a fake OpenAI-compatible
// upstream as the only model (the offline demo model always answers with code, which loads the
// highlighter) and the console SMS provider, whose codes it reads to sign in. It exits non-zero
// when a figure is over its budget. (How many requests deep the signed-in /chat is before its
// topics show, and how long it takes on slow 3G: tests/e2e/load-chain.spec.ts.)
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from '@playwright/test'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
if (!existsSync(join(root, 'dist/cdn/loader.js')) || !existsSync(join(root, 'server/dist/main.js'))) {
  console.error('size: dist/cdn or server/dist is missing — run `npm run build` first')
  process.exit(1)
}

const KB = 1024
const BUDGET = { loader: 3 * KB, host: 60 * KB, embed: 45 * KB }
const MODEL = 'size-model'
const QUESTION = '推荐一本科幻小说'
/** A model's markdown answer (headings, a list, bold, a quote; no code), streamed in small pieces. */
const REPLY = `## 推荐：《三体》

**刘慈欣**的《三体》三部曲是中国科幻的代表作，第一部获得了**雨果奖**。

### 为什么值得读

- **宏大的设定**：从一个物理学家的遭遇，一路写到宇宙尺度的文明博弈
- **硬核的想象**：三体问题、智子、*黑暗森林*法则

> 给岁月以文明，而不是给文明以岁月。

祝你阅读愉快！`

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

/** A fake OpenAI-compatible upstream: every completion streams REPLY (upstreams.md's protocol). */
async function startUpstream() {
  const srv = createHttpServer((req, res) => {
    req.resume()
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
    const chunk = (delta, finish = null) => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 0,
      model: MODEL,
      choices: [{ index: 0, delta, finish_reason: finish }]
    })
    const events = [...REPLY.match(/[\s\S]{1,8}/g).map((content) => chunk({ content })), chunk({}, 'stop')]
    events.push({ ...chunk({}), choices: [], usage: { prompt_tokens: 12, completion_tokens: 80, total_tokens: 92 } })
    for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`)
    res.end('data: [DONE]\n\n')
  })
  await new Promise((r) => srv.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${srv.address().port}`, close: () => new Promise((r) => srv.close(r)) }
}

/** The built server, as `npm start` runs it, on a free port with an empty data directory. */
async function startLingxi(env) {
  const port = await freePort()
  const lines = []
  const child = spawn(process.execPath, [join(root, 'server/dist/main.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', STATIC_ROOT: join(root, 'dist'), SMS_PROVIDER: 'console', ...env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  let buffer = ''
  child.stdout.on('data', (chunk) => {
    const parts = (buffer + chunk).split('\n')
    buffer = parts.pop()
    lines.push(...parts)
  })
  const url = await new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const line = lines.find((l) => l.startsWith('Lingxi is running at '))
      if (line) {
        clearInterval(timer)
        resolve(line.slice('Lingxi is running at '.length).trim())
      }
    }, 50)
    child.on('exit', (code) => {
      clearInterval(timer)
      reject(new Error(`size: the server exited with ${code}:\n${lines.join('\n')}`))
    })
  })
  const post = async (path, body, token) => {
    const res = await fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body)
    })
    const json = await res.json()
    if (json.code !== 2000) throw new Error(`size: ${path} answered ${JSON.stringify(json)}`)
    return json.data
  }
  /** Signs in through the API with the code the console SMS provider printed. */
  async function signIn(phone) {
    const mark = lines.length
    await post('/api/v1/auth/send-sms-code', { enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 })
    let code
    for (let i = 0; i < 100 && !code; i++) {
      code = lines
        .slice(mark)
        .map((l) => /^\[sms\] \+\d+ (\d+) (\d{4})$/.exec(l))
        .find((m) => m && m[1] === phone)?.[2]
      if (!code) await new Promise((r) => setTimeout(r, 100))
    }
    if (!code) throw new Error(`size: no SMS code printed for ${phone}`)
    return (await post('/api/v1/auth/login', { enCode: '86', phone, code, platform: 'PC' })).accessToken
  }
  const stop = async () => {
    child.removeAllListeners('exit')
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
    if (child.exitCode === null) child.kill('SIGKILL')
  }
  return { url, post, signIn, stop }
}

/** Records every script and stylesheet a page loads, with its transferred body bytes. */
function record(page) {
  const transfers = []
  page.on('response', (response) => {
    const type = response.request().resourceType()
    if (type !== 'script' && type !== 'stylesheet') return
    transfers.push(
      (async () => {
        await response.finished()
        const sizes = await response.request().sizes()
        return { url: response.url(), bytes: sizes.responseBodySize, encoding: (await response.allHeaders())['content-encoding'] ?? 'identity' }
      })()
    )
  })
  /** The page is quiet: no script or stylesheet started for `ms`. */
  const quiet = async (ms = 1000) => {
    let seen = -1
    while (seen !== transfers.length) {
      seen = transfers.length
      await page.waitForTimeout(ms)
    }
    return Promise.all(transfers)
  }
  return quiet
}

const kb = (n) => `${(n / KB).toFixed(1)} KB`
const fileName = (url) => new URL(url).pathname.replace(/^\/cdn\//, '')
const sum = (list) => list.reduce((n, t) => n + t.bytes, 0)

const upstream = await startUpstream()
const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-size-'))
mkdirSync(join(dataDir, 'config'))
writeFileSync(
  join(dataDir, 'config', 'chatConfig.json'),
  JSON.stringify({ models: [{ id: MODEL, name: '上游模型', provider: 'openai' }], defaultModel: MODEL })
)
// The partner page of examples/, on another origin (browsers refuse public pages loading loopback scripts, so both are loopback).
const partnerPort = await freePort()
const partnerUrl = `http://localhost:${partnerPort}`
const lingxi = await startLingxi({
  DATA_DIR: dataDir,
  CORS_ORIGINS: partnerUrl,
  OPENAI_BASE_URL: upstream.url,
  OPENAI_API_KEY: 'sk-size',
  OPENAI_MODELS: MODEL
})
const partnerHtml = readFileSync(join(root, 'examples/partner-page.html'), 'utf8').replaceAll('LINGXI_ORIGIN', lingxi.url)
const partner = createHttpServer((_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(partnerHtml))
await new Promise((r) => partner.listen(partnerPort, '127.0.0.1', r))

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
})

/**
 * Signs a fresh context in as a login inside `pageUrl` would have (docs/decisions/0019-session-cookie.md):
 * the API's HttpOnly session cookie (partitioned by the page's site when it is another site) and
 * the stored user info on the page's origin, which makes the page look for its session.
 */
async function addSession(context, token, pageUrl) {
  const page = new URL(pageUrl)
  const api = new URL(lingxi.url)
  const crossSite = page.hostname !== api.hostname
  const cookie = { name: 'lingxi_session', value: token, domain: api.hostname, path: '/api/', httpOnly: true, secure: true, sameSite: 'None' }
  await context.addCookies([crossSite ? { ...cookie, partitionKey: `${page.protocol}//${page.hostname}` } : cookie])
  const info = await lingxi.post('/api/v1/user/info', {}, token)
  await context.addInitScript(
    ([origin, value]) => {
      if (location.origin === origin) localStorage.setItem('lingxi-user-info', value)
    },
    [page.origin, JSON.stringify(info)]
  )
}

/** A first visit of `url` in a fresh browser context: what it loads until `ready` holds and the page is quiet. */
async function visit(url, { token, cookieUrl = lingxi.url, ready, after }) {
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } })
  if (token) await addSession(context, token, cookieUrl)
  const page = await context.newPage()
  const quiet = record(page)
  try {
    await page.goto(url)
    await ready(page)
    if (after) await after(page)
    return { transfers: await quiet() }
  } catch (error) {
    // What the page showed when it did not get ready, for whoever reads the failure.
    await page.screenshot({ path: join(root, 'dist/size-failure.png') }).catch(() => {})
    throw error
  } finally {
    await context.close()
  }
}

const rows = []
let failed = false
function row(name, transfers, budget) {
  const bytes = sum(transfers)
  const ok = bytes <= budget
  if (!ok) failed = true
  for (const t of transfers) if (t.bytes > 1024 && t.encoding !== 'gzip') console.warn(`size: ${fileName(t.url)} was sent without gzip (${t.encoding})`)
  rows.push({ name, bytes, budget, ok, transfers })
}

try {
  const visible = (locator) => locator.first().waitFor({ state: 'visible', timeout: 30_000 })
  // The signed-in person has one topic, with a markdown reply: the chat's first screen renders it.
  const token = await lingxi.signIn('13900139000')
  const topic = await lingxi.post('/api/v1/ai-chat/topic/create', { name: '科幻书单' }, token)
  const sent = await lingxi.post('/api/v1/ai-chat/topic/message/send', { topicId: topic.topicId, content: QUESTION }, token)
  for (let i = 0; i < 100; i++) {
    const reply = await lingxi.post('/api/v1/ai-chat/topic/message/get', { messageId: sent.replyId }, token)
    if (reply.status === 'complete') break
    await new Promise((r) => setTimeout(r, 100))
  }

  const home = await visit(`${lingxi.url}/`, { ready: (p) => visible(p.getByRole('heading', { level: 1 })) })
  row('host / (logged out)', home.transfers, BUDGET.host)
  const loader = home.transfers.filter((t) => fileName(t.url) === 'loader.js')
  row('loader', loader, BUDGET.loader)
  const chatOut = await visit(`${lingxi.url}/chat`, { ready: (p) => visible(p.getByText('登录后开始对话')) })
  row('host /chat (logged out)', chatOut.transfers, BUDGET.host)
  const chatIn = await visit(`${lingxi.url}/chat`, {
    token,
    ready: (p) => visible(p.getByTestId('topic-item').filter({ hasText: '科幻书单' })),
    after: (p) => visible(p.locator('[data-testid=message][data-role=assistant] h2'))
  })
  row('host /chat (signed in)', chatIn.transfers, BUDGET.host)
  const embed = await visit(partnerUrl, {
    token,
    cookieUrl: partnerUrl,
    ready: (p) => visible(p.getByRole('button', { name: '打开 AI 书童对话' })),
    async after(p) {
      await p.getByRole('button', { name: '打开 AI 书童对话' }).click()
      const panel = p.getByRole('dialog', { name: '灵犀 AI' })
      // The new reply, whether the panel opened on the earlier topic (its reply already shown) or,
      // when opened before the topics arrived, on a new one: the first complete reply after the ones there now.
      const replies = panel.locator('[data-testid=message][data-role=assistant][data-status=complete]')
      const before = await replies.count()
      await panel.getByTestId('composer').fill('再推荐一本')
      await panel.getByTestId('composer').press('Enter')
      await visible(replies.nth(before).locator('h2'))
    }
  })
  row('<lingxi-chat mode="bubble">: shown, opened, a markdown reply (signed in)', embed.transfers, BUDGET.embed)
} finally {
  await browser.close()
  await new Promise((r) => partner.close(r))
  await lingxi.stop()
  await upstream.close()
  rmSync(dataDir, { recursive: true, force: true })
}

const width = Math.max(...rows.map((r) => r.name.length))
console.log('gzip bytes of the scripts and stylesheets Chromium fetched (transferred), against the budgets:')
for (const r of rows) {
  // The bytes too: budgets are tight enough that a tenth of a KB hides whether a change fits.
  console.log(`${r.name.padEnd(width)}  ${kb(r.bytes).padStart(8)}  budget ${kb(r.budget).padStart(7)}  ${r.ok ? 'ok' : 'OVER'}  (${r.bytes} of ${r.budget} B)`)
  if (process.argv.includes('--files') || !r.ok) for (const t of r.transfers) console.log(`    ${fileName(t.url).padEnd(44)} ${kb(t.bytes).padStart(8)}`)
}
if (failed) {
  console.error('size: over budget')
  process.exit(1)
}
