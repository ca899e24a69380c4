import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { loginAs } from './helpers'
import { type LingxiServer, startServer } from './server'

// Issue 16 item 6: KaTeX shipped once. mermaid's own build carries a KaTeX it imports for `$$…$$`
// in a diagram's labels; the CDN build resolves that import to the KaTeX the maths renderer uses
// (scripts/katex-once.mjs), so dist/cdn holds one copy that both reach, and a reply with maths and
// a diagram fetches it once. (tests/unit/katex-once.test.ts checks the plugin on a small build.)

const dist = join(process.cwd(), 'dist')
/** Text only KaTeX's parser has: one per copy of KaTeX. */
const KATEX = 'KaTeX parse error'

test('dist/cdn holds one KaTeX, reached by both the maths chunk and the mermaid chunk', () => {
  const scripts = readdirSync(join(dist, 'cdn'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))
  const copies = scripts.filter((f) => readFileSync(join(dist, 'cdn', f), 'utf8').includes(KATEX))
  expect(copies).toHaveLength(1)
  const katex = copies[0]!.replaceAll('\\', '/')

  // the graph the build wrote: the chunks each one imports, statically or lazily
  const { chunks } = JSON.parse(readFileSync(join(dist, 'chunks.json'), 'utf8')) as {
    chunks: Record<string, { imports: string[]; dynamicImports: string[] }>
  }
  const reaches = (from: string) => {
    const seen = new Set<string>()
    const walk = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      for (const next of [...(chunks[file]?.imports ?? []), ...(chunks[file]?.dynamicImports ?? [])]) walk(next)
    }
    walk(from)
    return seen
  }
  const chunk = (name: string) => Object.keys(chunks).find((f) => new RegExp(`^chunks/${name}-[\\w-]+\\.js$`).test(f))!
  expect(chunk('math')).toBeTruthy()
  expect(chunk('mermaid')).toBeTruthy()
  expect(reaches(chunk('math')).has(katex)).toBe(true)
  expect(reaches(chunk('mermaid')).has(katex)).toBe(true)
  // mermaid's own copy (its chunk named katex-<hash>.mjs in the package) is not in the output
  expect(Object.keys(chunks).filter((f) => /^chunks\/katex-/.test(f))).toEqual([katex])
})

let server: LingxiServer
test.describe('in the browser', () => {
  test.beforeAll(async () => {
    server = await startServer()
  })
  test.afterAll(async () => {
    await server?.stop()
  })

  test('a reply with maths and a diagram fetches KaTeX once', async ({ page }) => {
    const katex: string[] = []
    page.on('response', async (r) => {
      if (r.url().endsWith('.js') && (await r.text().catch(() => '')).includes(KATEX)) katex.push(r.url())
    })
    await page.goto(`${server.url}/chat`)
    await loginAs(page, server, '13700137401')
    const composer = page.getByTestId('composer')
    await composer.fill('画一个流程图，并写出勾股定理的公式')
    await composer.press('Enter')
    const reply = page.locator('[data-testid=message][data-role=assistant]').last()
    await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
    await expect(reply.locator('.katex').first()).toBeVisible()
    await expect(reply.locator('svg[id^="mermaid"], svg[aria-roledescription]').first()).toBeVisible({ timeout: 20_000 })
    expect(katex).toHaveLength(1)
  })
})
