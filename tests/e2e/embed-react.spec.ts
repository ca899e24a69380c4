import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { extname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from '@playwright/test'
import { ask, completeLogin, snap } from './embed-helpers'
import { startServer, type LingxiServer } from './server'

// examples/react-app: a React 19 app that imports the npm package `lingxi` — packed with
// `npm pack`, installed from the tarball (offline, from the npm cache) and built with esbuild —
// served from its own origin against the real server.

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const example = join(root, 'examples/react-app')
let server: LingxiServer
let app: { url: string; stop(): Promise<void> }
let work: string
let packed: string[] = []
let installedFrom = ''

const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css' }

/** The built app on its own origin; index.html points at the Lingxi server. */
async function serve(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const srv: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const file = join(dir, path === '/' ? 'index.html' : path)
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404).end()
      return
    }
    const body = readFileSync(file)
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' })
    res.end(extname(file) === '.html' ? body.toString().replaceAll('LINGXI_ORIGIN', server.url) : body)
  })
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const { port } = srv.address() as { port: number }
  return { url: `http://localhost:${port}`, stop: () => new Promise((r) => srv.close(() => r())) }
}

test.beforeAll(async () => {
  test.setTimeout(180_000)
  work = mkdtempSync(join(tmpdir(), 'lingxi-react-'))
  // the package as npm would publish it
  const [pack] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  )
  packed = pack.files.map((f: { path: string }) => f.path)
  const tarball = join(work, pack.filename)

  // a copy of the example that depends on the tarball instead of the repository
  const appDir = join(work, 'app')
  mkdirSync(appDir)
  cpSync(join(example, 'src'), join(appDir, 'src'), { recursive: true })
  cpSync(join(example, 'index.html'), join(appDir, 'index.html'))
  const manifest = JSON.parse(readFileSync(join(example, 'package.json'), 'utf8'))
  manifest.dependencies.lingxi = `file:${tarball}`
  delete manifest.devDependencies
  writeFileSync(join(appDir, 'package.json'), JSON.stringify(manifest, null, 2))
  try {
    execFileSync('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: appDir, stdio: 'ignore', timeout: 120_000 })
    installedFrom = 'tarball, npm install --offline'
  } catch {
    // No npm cache: the unpacked tarball as node_modules/lingxi, its dependencies from the repository.
    const modules = join(appDir, 'node_modules')
    mkdirSync(join(modules, 'lingxi'), { recursive: true })
    execFileSync('tar', ['-xzf', tarball, '-C', join(modules, 'lingxi'), '--strip-components=1'])
    for (const name of readdirSync(join(root, 'node_modules'))) {
      if (!name.startsWith('.') && !existsSync(join(modules, name))) symlinkSync(join(root, 'node_modules', name), join(modules, name))
    }
    installedFrom = 'unpacked tarball (offline install impossible)'
  }
  execFileSync(process.execPath, [join(example, 'build.mjs'), '--root', appDir, '--out', join(appDir, 'dist')], { stdio: 'ignore' })
  app = await serve(join(appDir, 'dist'))
  server = await startServer({ CORS_ORIGINS: app.url })
})
test.afterAll(async () => {
  await server?.stop()
  await app?.stop()
  if (work) rmSync(work, { recursive: true, force: true })
})

test('npm pack ships dist (npm + cdn), README, LICENSE and nothing else', () => {
  const outside = packed.filter((p) => !/^dist\/(npm|cdn)\//.test(p))
  expect(outside.sort()).toEqual(['LICENSE', 'README.md', 'package.json'])
  for (const file of [
    'dist/npm/index.js',
    'dist/npm/index.d.ts',
    'dist/npm/core.js',
    'dist/cdn/loader.js',
    'dist/cdn/chat.js',
    'dist/cdn/custom-elements.json'
  ])
    expect(packed).toContain(file)
  expect(packed.filter((p) => p.startsWith('dist/cdn/') && p.endsWith('.map'))).toEqual([])
  // the types name the new API
  const types = readFileSync(join(root, 'dist/npm/index.d.ts'), 'utf8')
  for (const name of [
    'Chat',
    'useUser',
    'useMenu',
    'LingxiProvider',
    'LoginDialog',
    "'lingxi-message': CustomEvent<ReplyDetail>",
    'GlobalEventHandlersEventMap'
  ])
    expect(types).toContain(name)
})

test('a React app installed from the tarball: LoginDialog, useUser, Chat streaming', async ({ page }, info) => {
  info.annotations.push({ type: 'lingxi package', description: installedFrom })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(app.url)
  const header = page.locator('.app-header')
  await expect(header.getByRole('button', { name: '登录' })).toBeVisible()
  // the Chat component renders Lingxi's login prompt in its own shadow root
  const chat = page.locator('[data-lingxi=chat]')
  await expect(chat.getByRole('heading', { name: '登录后开始对话' })).toBeVisible()

  await header.getByRole('button', { name: '登录' }).click()
  await completeLogin(page, server, '13600136000')
  // useUser() re-rendered the app's own header (the phone masked: the app's origin is not in
  // TRUSTED_ORIGINS); useMenu() lists the tools now allowed
  await expect(page.getByTestId('app-phone')).toHaveText('136****6000')
  await expect(page.getByRole('list', { name: '灵犀工具' }).getByRole('listitem').first()).toBeVisible()

  const reply = await ask(chat, '用一句话介绍 React')
  await expect(reply.locator('h2')).toHaveText('灵犀离线演示模型')
  // the app's `* { box-sizing: content-box }` stays outside
  expect(await chat.getByTestId('composer').evaluate((el) => getComputedStyle(el).boxSizing)).toBe('border-box')
  await snap(page, info, 'react-app')

  await page.reload()
  await expect(page.getByTestId('app-phone')).toHaveText('136****6000')
  await header.getByRole('button', { name: '退出' }).click()
  await expect(header.getByRole('button', { name: '登录' })).toBeVisible()
  await expect(chat.getByRole('heading', { name: '登录后开始对话' })).toBeVisible()
  expect(errors).toEqual([])
})

test('maths and a diagram in the React app: KaTeX and mermaid come from the Lingxi server, not the app', async ({ page }) => {
  // the app's bundle has neither library (tests/unit/npm-vendors.test.ts checks the package itself)
  const built = readdirSync(join(work, 'app/dist')).filter((f) => f.endsWith('.js'))
  for (const file of built) expect(readFileSync(join(work, 'app/dist', file), 'utf8'), file).not.toMatch(/KaTeX parse error|Syntax error in text/)
  const fromServer: string[] = []
  page.on('response', (r) => {
    if (r.url().startsWith(`${server.url}/cdn/`) && r.ok()) fromServer.push(new URL(r.url()).pathname)
  })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(app.url)
  await page.locator('.app-header').getByRole('button', { name: '登录' }).click()
  await completeLogin(page, server, '13600136001')
  const chat = page.locator('[data-lingxi=chat]')
  const reply = await ask(chat, '画一个流程图，并写出勾股定理的公式')
  await expect(reply.locator('.katex').first()).toBeVisible()
  await expect(reply.locator('.lx-mermaid svg').first()).toBeVisible({ timeout: 20_000 })
  expect(fromServer).toContain('/cdn/vendor/katex.js')
  expect(fromServer).toContain('/cdn/vendor/mermaid.js')
  // KaTeX once (mermaid's labels use the same chunk) and its fonts from the server too
  expect(fromServer.filter((p) => /^\/cdn\/chunks\/katex-/.test(p))).toHaveLength(1)
  await expect.poll(() => fromServer.some((p) => p.startsWith('/cdn/fonts/katex/'))).toBe(true)
  expect(errors).toEqual([])
})
