// `npm run screens`: screenshots of the site as a person sees it, at desktop and phone sizes, for
// reviewing UI changes (the browser suite checks behaviour; this shows the pixels). Starts the
// built server (`npm run build` first) on a free port with an empty DATA_DIR, logs in with the
// console SMS code it prints, and visits each page in Debian's Chromium (CHROMIUM_PATH to change).
//
//   node scripts/screens.mjs [--out DIR] [--only desktop|phone] [--theme dark|light] [--pages NAME,NAME…] [--url URL --log FILE]
//
// --out: where the PNGs go (default /tmp/lingxi-screens), named <size>-<theme>-<page>.png.
// --theme: only this theme (default both: the profile panel's choice, stored before each page loads).
// --pages: only these (names as listed by --list). --url with --log: use a server already running,
// whose console output goes to FILE (the SMS codes are read from it) instead of starting one.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from '@playwright/test'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const out = resolve(flag('--out') ?? join(tmpdir(), 'lingxi-screens'))
const only = flag('--only')
const wanted = flag('--pages')?.split(',')
const themes = flag('--theme') ? [flag('--theme')] : ['dark', 'light']

/** What a page needs before its screenshot: `go` (a path to open) or `act` (steps on the current page), then a pause. */
const pages = [
  { name: 'entry', go: '/', loggedOut: true },
  { name: 'chat-visitor', go: '/chat', loggedOut: true },
  { name: 'login', loggedOut: true, act: (p) => p.getByRole('banner').getByRole('button', { name: '登录' }).click() },
  {
    name: 'login-country',
    loggedOut: true,
    act: (p) =>
      loginDialog(p)
        .getByRole('button', { name: /国家或地区区号/ })
        .click()
  },
  { name: 'chat', go: '/chat' },
  { name: 'chat-reply', act: chatReply, wait: 0 },
  // the end of the same reply: table, maths and the mermaid diagram (its chunk is large: give it time)
  {
    name: 'chat-reply-end',
    act: async (p) => {
      await p.getByTestId('message').last().hover()
      await p.mouse.wheel(0, 20_000)
    },
    wait: 3000
  },
  { name: 'roles', go: '/role', wait: 1000 },
  { name: 'menu', go: '/', act: (p) => p.getByRole('banner').getByTestId('header-phone').click() },
  { name: 'profile', act: (p) => p.getByRole('menuitem', { name: '个人信息' }).click() },
  { name: 'mj', go: '/mj', wait: 1500 },
  { name: 'mj-helper', go: '/mjHelper', wait: 1200 },
  { name: 'sd', go: '/sd', wait: 1200 },
  { name: 'gallery', go: '/gallery', wait: 1200 },
  { name: 'music', go: '/music', wait: 1500 },
  { name: 'hot-news', go: '/hotNew', wait: 1500 },
  { name: 'image-host', go: '/imgSee', wait: 1200 },
  { name: 'usercenter-general', go: '/usercenter?id=general', wait: 1200 },
  { name: 'usercenter-card', go: '/usercenter?id=card' },
  { name: 'usercenter-setting', go: '/usercenter?id=setting' },
  { name: 'orders', go: '/orders', wait: 1500 },
  { name: 'miracle-orders', go: '/miracleOrders', wait: 1200 },
  { name: 'not-found', go: '/404' }
]
if (args.includes('--list')) {
  console.log(pages.map((p) => p.name).join('\n'))
  process.exit(0)
}
const sizes = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: '13800138011', lightPhone: '13800138021' },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: '13800138012', lightPhone: '13800138022', isMobile: true, hasTouch: true }
].filter((s) => !only || s.name === only)

function loginDialog(page) {
  return page.getByRole('dialog', { name: '手机号登录' })
}

async function chatReply(page) {
  const composer = page.getByTestId('composer')
  await composer.fill('用 Python 写一个快速排序，给出复杂度的数学公式 $O(n \\log n)$，再画一张流程图')
  await composer.press('Enter')
  await page.locator('[data-testid=message][data-status=complete][data-role=assistant]').last().waitFor({ timeout: 30_000 })
}

/** The server to photograph: one started here (stopped at the end), or the one given by --url and --log. */
async function server() {
  if (flag('--url')) {
    const log = flag('--log')
    if (!log) throw new Error('--url needs --log <file with the server output> for the SMS codes')
    return { url: flag('--url').replace(/\/$/, ''), output: () => readFileSync(log, 'utf8'), stop: async () => {} }
  }
  if (!existsSync(join(root, 'server/dist/main.js')) || !existsSync(join(root, 'dist/cdn/loader.js'))) throw new Error('run `npm run build` first')
  const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-screens-'))
  const port = await new Promise((resolvePort) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolvePort(port))
    })
  })
  let text = ''
  const child = spawn(process.execPath, [join(root, 'server/dist/main.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, STATIC_ROOT: join(root, 'dist'), SMS_PROVIDER: 'console' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  child.stdout.on('data', (chunk) => (text += chunk))
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setInterval(() => {
      const m = /Lingxi is running at (\S+)/.exec(text)
      if (m) {
        clearInterval(timer)
        resolveUrl(m[1])
      }
    }, 50)
    child.on('exit', (code) => {
      clearInterval(timer)
      reject(new Error(`the server exited (${code}):\n${text}`))
    })
  })
  return {
    url,
    output: () => text,
    stop: async () => {
      child.kill('SIGTERM')
      await new Promise((r) => child.once('exit', r))
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

async function logIn(page, lingxi, phone) {
  await page.goto(`${lingxi.url}/`)
  await page.getByRole('banner').getByRole('button', { name: '登录' }).click()
  const dialog = loginDialog(page)
  await dialog.getByLabel('手机号').fill(phone)
  await dialog.getByRole('checkbox').check()
  await dialog.getByRole('button', { name: '获取验证码' }).click()
  let code
  for (let i = 0; i < 50 && !code; i++) {
    await page.waitForTimeout(100)
    code = [...lingxi.output().matchAll(new RegExp(`\\[sms\\] \\+86 ${phone} (\\d{4})`, 'g'))].pop()?.[1]
  }
  if (!code) throw new Error(`no SMS code printed for ${phone}`)
  await dialog.getByLabel('验证码').fill(code)
  await dialog.getByRole('button', { name: '登录', exact: true }).click()
  await dialog.waitFor({ state: 'hidden' })
}

mkdirSync(out, { recursive: true })
const lingxi = await server()
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking']
})
let shots = 0
try {
  for (const size of sizes)
    for (const theme of themes) {
      const context = await browser.newContext({
        viewport: size.viewport,
        locale: 'zh-CN',
        isMobile: !!size.isMobile,
        hasTouch: !!size.hasTouch,
        colorScheme: theme
      })
      // the choice the profile panel stores (src/core/theme.ts), read by the host page's theme.js
      await context.addInitScript((t) => localStorage.setItem('lingxi-theme', t), theme)
      const page = await context.newPage()
      page.on('pageerror', (e) => console.log(`${size.name} ${theme}: page error: ${e.message}`))
      page.on('response', (r) => r.status() >= 400 && console.log(`${size.name} ${theme}: ${r.status()} ${r.url()}`))
      let loggedIn = false
      for (const p of pages) {
        if (!p.loggedOut && !loggedIn) {
          // one phone per theme: the server limits how often a phone gets a code
          await logIn(page, lingxi, theme === 'light' ? size.lightPhone : size.phone)
          loggedIn = true
        }
        if (p.go) await page.goto(lingxi.url + p.go)
        if (p.act) await p.act(page)
        if (wanted && !wanted.includes(p.name)) continue
        await page.waitForTimeout(p.wait ?? 500)
        const file = join(out, `${size.name}-${theme}-${p.name}.png`)
        await page.screenshot({ path: file })
        shots++
      }
      await context.close()
    }
} finally {
  await browser.close()
  await lingxi.stop()
}
console.log(`screens: ${shots} screenshots in ${out}`)
