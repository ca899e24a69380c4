import { readFileSync } from 'node:fs'
import { expect, type Page, test } from '@playwright/test'
import { page as examplePage } from './embed-helpers'
import { addSession, apiLogin } from './helpers'
import { makePng } from './png'
import { type LingxiServer, startPartner, startServer } from './server'

// Issue 20, "done when": attachment and export code load only when used. A partner page shows
// the chat bubble, opens it and gets a reply from the offline demo model; none of the scripts it
// loaded holds the chat's attachment, export, share, edit or prompt code (each script's source map,
// written by the build next to it, names its sources). Then the user attaches a file and copies a
// reply as plain text: the attachment tray and the plain-text export arrive now, in scripts of
// their own — so the check above can see them when they are there.

const CHAT = 'src/widgets/chat/'
/** Code that must wait for its first use (share/slot.tsx is the dialog's empty slot in the topic list). */
const LATER = /src\/widgets\/chat\/(attach|export|edit|prompts)\/|src\/widgets\/chat\/share\/(?!slot\.tsx)/

let server: LingxiServer
let partner: { url: string; stop(): Promise<void> }
test.beforeAll(async () => {
  // The page is made when it is asked for, once the server runs.
  partner = await startPartner(() => examplePage('partner-page.html', server))
  server = await startServer({ CORS_ORIGINS: partner.url })
})
test.afterAll(async () => {
  await server?.stop()
  await partner?.stop()
})

/** The Lingxi scripts the page fetched, in order. */
function scripts(page: Page) {
  const urls: string[] = []
  page.on('request', (request) => {
    if (request.resourceType() === 'script' && request.url().startsWith(server.url)) urls.push(request.url())
  })
  return urls
}

/** The source files of a built script, from its source map in dist/ (the tiny loader has none: it imports the rest). */
function sourcesOf(url: string): string[] {
  const path = new URL(url).pathname
  if (path === '/cdn/loader.js') return []
  const map = JSON.parse(readFileSync(new URL(`../../dist${path}.map`, import.meta.url), 'utf8')) as { sources: string[] }
  return map.sources.map((s) => s.slice(s.indexOf('src/')))
}

const laterIn = (urls: readonly string[]) => urls.flatMap(sourcesOf).filter((s) => LATER.test(s))

test('the bubble and a reply load no attachment, export, share, edit or prompt code; using them loads it', async ({ browser }) => {
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } })
  await addSession(context, server, await apiLogin(server, '13900139071'), partner.url)
  const page = await context.newPage()
  const loaded = scripts(page)
  await page.goto(partner.url)
  await page.getByRole('button', { name: '打开 AI 书童对话' }).click()
  const panel = page.getByRole('dialog', { name: '灵犀 AI' })
  await panel.getByTestId('composer').fill('你好')
  await panel.getByTestId('composer').press('Enter')
  const reply = panel.locator('[data-testid=message][data-role=assistant]').last()
  await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
  await page.waitForLoadState('networkidle')

  const first = [...loaded]
  // The chat itself did load (the check reads real chunks), and nothing of what waits for use.
  expect(first.flatMap(sourcesOf).some((s) => s.startsWith(CHAT))).toBe(true)
  expect(laterIn(first)).toEqual([])

  // Attach a file: the tray comes now.
  const chooser = page.waitForEvent('filechooser')
  await panel.getByRole('button', { name: '添加附件' }).click()
  await (await chooser).setFiles([{ name: 'a.png', mimeType: 'image/png', buffer: makePng(40, 30) }])
  await expect(panel.locator('[data-testid=attachment][data-state=done]')).toHaveCount(1, { timeout: 20_000 })
  const attaching = loaded.slice(first.length)
  expect(laterIn(attaching)).toContain(`${CHAT}attach/tray.tsx`)

  // Copy the reply as plain text: the plain-text export comes now.
  const before = loaded.length
  await reply.hover()
  await reply.getByRole('button', { name: '复制纯文本' }).click()
  await expect.poll(() => laterIn(loaded.slice(before))).toContain(`${CHAT}export/plain.ts`)
  await context.close()
})
