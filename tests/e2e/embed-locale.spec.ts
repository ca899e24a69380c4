import { mkdirSync } from 'node:fs'
import { expect, type Locator, type Page, test } from '@playwright/test'
import { axe } from './helpers'
import { type LingxiServer, startPartner, startServer } from './server'

// Issue 16 item 4: `locale="en"` (here the loader's data-locale) covers the login dialog — title,
// labels, buttons, hints, the country picker — and the toasts, the login API's known messages
// included — and the open chat itself: its buttons, labels, placeholders and attachment errors.
// zh-CN, the default, loads none of the English.

let server: LingxiServer
let english: Awaited<ReturnType<typeof startPartner>>
let chinese: Awaited<ReturnType<typeof startPartner>>

const html = (extra: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Greenleaf Books</title>
<script async src="${server.url}/cdn/loader.js" data-api="${server.url}" data-chat="bubble" data-label="Ask our AI" ${extra}></script>
</head><body><main style="padding: 24px"><h1>Greenleaf Books</h1><p>New this week…</p></main></body></html>`

test.beforeAll(async () => {
  english = await startPartner(() => html('data-locale="en"'))
  chinese = await startPartner(() => html(''))
  server = await startServer({ CORS_ORIGINS: [english.url, chinese.url].join(',') })
})
test.afterAll(async () => {
  await server?.stop()
  await Promise.all([english?.stop(), chinese?.stop()])
})

async function shot(p: Page, name: string) {
  mkdirSync('/tmp/shots-sdk', { recursive: true })
  await p.waitForTimeout(400) // entrance animations end
  await p.screenshot({ path: `/tmp/shots-sdk/${name}.png` })
}

const launcher = (p: Page) => p.locator('lingxi-chat').locator('[part=launcher]')
const toast = (p: Page, text: string | RegExp) => p.locator('lingxi-toaster').locator('[part=toast]').filter({ hasText: text })

/** The English chunk (src/widgets/chat/locale-en.ts with src/ui/locale-en.ts) as the page fetched it. */
function englishChunks(p: Page): string[] {
  const seen: string[] = []
  p.on('request', (r) => {
    if (/\/locale-en-[\w-]+\.js$/.test(r.url())) seen.push(r.url())
  })
  return seen
}

for (const size of [
  { name: 'desktop', width: 1280, height: 800, phone: '13700137201' },
  { name: 'phone', width: 390, height: 844, phone: '13700137202' }
]) {
  test(`locale en: the login dialog and its toasts in English (${size.name})`, async ({ page }) => {
    await page.setViewportSize(size)
    const chunks = englishChunks(page)
    await page.goto(english.url)
    await launcher(page).click()
    const panel = page.getByRole('dialog', { name: 'Lingxi AI' })
    await panel.getByRole('button', { name: 'Sign in' }).click()

    const dialog = page.getByRole('dialog', { name: 'Sign in with your phone' })
    await expect(dialog).toBeVisible()
    await expect(dialog.getByRole('heading', { name: 'Sign in with your phone' })).toBeVisible()
    await expect(dialog.getByLabel('Phone number')).toHaveAttribute('placeholder', 'Phone number')
    await expect(dialog.getByRole('button', { name: 'Country calling code, now China +86' })).toBeVisible()
    await expect(dialog.getByText('I have read and agree to the Lingxi Terms of Service')).toBeVisible()
    await expect(dialog.getByRole('link', { name: 'Lingxi Terms of Service' })).toBeVisible()
    expect(chunks).toHaveLength(1) // the chat's, with the login dialog's and the toasts'
    await shot(page, `login-en-${size.name}`)
    await axe(page, `English login dialog (${size.name})`)

    // the country picker: English labels and names, found by their English names
    await dialog.getByRole('button', { name: /^Country calling code/ }).click()
    const search = dialog.getByRole('searchbox', { name: 'Search countries' })
    await expect(search).toHaveAttribute('placeholder', 'Search a country or code')
    await search.fill('united k')
    const countries = dialog.getByRole('list', { name: 'Countries' })
    await expect(countries.getByRole('button', { name: 'United Kingdom +44' })).toBeVisible()
    await search.fill('zz-none')
    await expect(countries.getByText('No matching country')).toBeVisible()
    await search.fill('')
    await search.press('Escape')

    // a hint, then a toast, in English
    const phone = dialog.getByLabel('Phone number')
    await phone.fill(size.phone)
    await dialog.getByRole('button', { name: 'Get code' }).click()
    await expect(dialog.getByRole('alert')).toHaveText('Please accept the terms first')
    await dialog.getByRole('checkbox').check()
    const mark = server.output().length
    await dialog.getByRole('button', { name: 'Get code' }).click()
    await expect(toast(page, 'Verification code sent')).toBeVisible()
    await expect(dialog.getByText(`Code sent to +86 ${size.phone.slice(0, 3)}****${size.phone.slice(-4)}`)).toBeVisible()
    await expect(dialog.getByRole('button', { name: 'Use another number' })).toBeVisible()
    await expect(dialog.getByRole('button', { name: /^Resend in \d+s$/ })).toBeDisabled()
    const code = dialog.getByLabel('Verification code')
    await expect(code).toHaveAttribute('placeholder', 'The 4-digit code')

    // an empty code (Enter: the button is aria-disabled), then a wrong one: the server's message (Chinese in its envelope) shown in English
    await code.press('Enter')
    await expect(dialog.getByRole('alert')).toHaveText('Enter the code')
    const right = await server.smsCode(size.phone, mark)
    await code.fill(right === '0000' ? '1111' : '0000')
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect(toast(page, /^Wrong code\. \d+ tries left\.$/)).toBeVisible()
    await shot(page, `login-en-code-${size.name}`)
    await axe(page, `English login dialog, code step (${size.name})`)

    await code.fill(right)
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect(dialog).toBeHidden()
    await expect(toast(page, 'Signed in!')).toBeVisible()
    await expect(panel.getByRole('button', { name: 'Send' })).toBeVisible()
  })
}

test('zh-CN (no locale): the login dialog in Chinese, and no English fetched', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  const chunks = englishChunks(page)
  await page.goto(chinese.url)
  await launcher(page).click()
  await page.getByRole('dialog', { name: '灵犀 AI' }).getByRole('button', { name: '登录' }).click()
  const dialog = page.getByRole('dialog', { name: '手机号登录' })
  await expect(dialog.getByRole('button', { name: '获取验证码' })).toBeVisible()
  await dialog.getByRole('button', { name: /^国家或地区区号/ }).click()
  await expect(dialog.getByRole('list', { name: '国家或地区' }).getByRole('button', { name: '英国 +44' })).toBeVisible()
  expect(chunks).toEqual([])
})

/**
 * The Chinese (Han, CJK punctuation, full-width forms) in what the open chat shows and names: the
 * text of its rendered elements and their aria-label, title and placeholder — apart from the
 * messages' own content (the question's bubble and the reply's markdown, both `.break-words`, and
 * the reply read out to a screen reader, `live-reply`).
 */
function chineseIn(panel: Locator): Promise<string[]> {
  return panel.evaluate((root) => {
    const cjk = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/
    const content = (el: Element) => !!el.closest('[data-testid=message] .break-words, [data-testid=live-reply]')
    const found: string[] = []
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement
      if (parent && cjk.test(node.nodeValue ?? '') && !content(parent) && parent.checkVisibility()) found.push(`text: ${node.nodeValue}`)
    }
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (content(el)) continue
      for (const name of ['aria-label', 'title', 'placeholder']) {
        const value = el.getAttribute(name)
        if (value && cjk.test(value)) found.push(`${el.localName}[${name}]: ${value}`)
      }
    }
    return found
  })
}

test('locale en: the open chat has no Chinese chrome left, also after failed attachments', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto(english.url)
  await launcher(page).click()
  const panel = page.getByRole('dialog', { name: 'Lingxi AI' })
  await expect(panel.getByRole('button', { name: 'Sign in' })).toBeVisible()
  expect(await chineseIn(panel), 'logged out').toEqual([])

  await panel.getByRole('button', { name: 'Sign in' }).click()
  const dialog = page.getByRole('dialog', { name: 'Sign in with your phone' })
  await dialog.getByLabel('Phone number').fill('13700137203')
  await dialog.getByRole('checkbox').check()
  const mark = server.output().length
  await dialog.getByRole('button', { name: 'Get code' }).click()
  await dialog.getByLabel('Verification code').fill(await server.smsCode('13700137203', mark))
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(dialog).toBeHidden()
  const composer = panel.getByTestId('composer')
  await expect(composer).toHaveAttribute('placeholder', 'Message (Enter to send)')
  await expect(panel.getByRole('button', { name: 'Explain quantum computing in three sentences' })).toBeVisible()
  expect(await chineseIn(panel), 'signed in, an empty chat').toEqual([])

  // refused before any upload: a file the chat does not take
  const attach = async (files: { name: string; mimeType: string; buffer: Buffer }[]) => {
    const chooser = page.waitForEvent('filechooser')
    await panel.getByRole('button', { name: 'Attach files' }).click()
    await (await chooser).setFiles(files)
  }
  await attach([{ name: 'page.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') }])
  await expect(panel.getByRole('alert')).toHaveText('“page.svg”: Web pages and SVG files cannot be attached: save them as a PDF or an image')
  expect(await chineseIn(panel), 'a refused file').toEqual([])

  // failed uploads: the server refuses one (its message, Chinese in the envelope, shown in English), the network the other
  await page.route(
    (url) => url.pathname.endsWith('/upload/put/chat-attachment'),
    async (route) => {
      if (!route.request().url().includes('latin1')) return route.abort('connectionreset')
      // the server's own response (its CORS headers), with the envelope of a refusal
      const response = await route.fetch()
      await route.fulfill({ response, status: 400, body: JSON.stringify({ code: 40000001, message: '文本文件必须是 UTF-8 编码', data: null }) })
    }
  )
  await attach([
    { name: 'latin1.txt', mimeType: 'text/plain', buffer: Buffer.from('caf\xe9', 'latin1') },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('milk, bread') }
  ])
  const failed = panel.locator('[data-testid=attachment][data-state=error]')
  await expect(failed).toHaveCount(2)
  await expect(failed.first()).toContainText('Text files must be UTF-8')
  await expect(failed.last()).toContainText('Upload failed. Please try again later.')
  await composer.fill('What is in these files?')
  await composer.press('Enter')
  await expect(panel.getByRole('alert')).toHaveText('A file failed to upload: remove it before sending')
  await expect(panel.getByRole('button', { name: 'Remove “notes.txt”' })).toBeVisible()
  await shot(page, 'chat-en-failed-attachments')
  expect(await chineseIn(panel), 'failed uploads').toEqual([])

  // without the files, a question and its reply (the demo model answers in Chinese: content, not chrome)
  await panel.getByRole('button', { name: 'Remove “latin1.txt”' }).click()
  await panel.getByRole('button', { name: 'Remove “notes.txt”' }).click()
  await composer.press('Enter')
  const reply = panel.locator('[data-testid=message][data-role=assistant]').last()
  await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(reply.getByRole('button', { name: 'Copy Markdown' })).toBeAttached()
  await shot(page, 'chat-en-reply')
  expect(await chineseIn(panel), 'a question and its reply').toEqual([])
})
