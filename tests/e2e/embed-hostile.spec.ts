import { type Browser, expect, type Page, test } from '@playwright/test'
import { completeLogin, page as examplePage, snap } from './embed-helpers'
import { type LingxiServer, startPartner, startServer } from './server'

// examples/hostile-partner.html: a partner stylesheet that sets the font, colour, line height,
// letter spacing and box-sizing of every element (`* {…}`), shrinks the root font size to 62.5 %
// (and, in a variant, grows it to 125 %) and restyles every button, input and svg; under a strict
// CSP (`style-src 'self'` plus the page's nonce). Every widget on it must compute exactly the
// styles it computes on the same page without that stylesheet.

let server: LingxiServer
const partners: Record<string, Awaited<ReturnType<typeof startPartner>>> = {}

const hostile = () => examplePage('hostile-partner.html', server)
const pages: Record<string, () => string> = {
  clean: () => hostile().replace(/<!-- hostile-css -->[\s\S]*<!-- \/hostile-css -->/, ''),
  'root 62.5%': hostile,
  'root 125%': () => hostile().replace('html { font-size: 62.5%; }', 'html { font-size: 125%; }')
}

test.beforeAll(async () => {
  for (const [name, html] of Object.entries(pages)) partners[name] = await startPartner(html)
  server = await startServer({
    CORS_ORIGINS: Object.values(partners)
      .map((p) => p.url)
      .join(',')
  })
})
test.afterAll(async () => {
  await server?.stop()
  await Promise.all(Object.values(partners).map((p) => p.stop()))
})

const PROPS = [
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'color',
  '-webkit-text-fill-color',
  'line-height',
  'letter-spacing',
  'word-spacing',
  'text-transform',
  'text-align',
  'text-indent',
  'text-shadow',
  'white-space',
  'box-sizing',
  'width',
  'height',
  'padding-top',
  'padding-left',
  'border-top-width',
  'border-top-style',
  'border-radius',
  'fill',
  'stroke',
  'vertical-align'
]

/**
 * The computed styles of every rendered element inside every Lingxi widget of the page (nested
 * shadow roots included), by a path of tag names and positions, after running animations end.
 */
function collect(page: Page, only?: string): Promise<Record<string, string>> {
  return page.evaluate(
    async ({ props, only }) => {
      const finite = document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Number.POSITIVE_INFINITY)
      await Promise.race([Promise.all(finite.map((a) => a.finished.catch(() => undefined))), new Promise((r) => setTimeout(r, 2000))])
      const out: Record<string, string> = {}
      const visit = (el: Element, path: string) => {
        const cs = getComputedStyle(el)
        if (cs.display === 'none' || el.localName === 'style') return
        out[path] = props.map((p) => `${p}: ${cs.getPropertyValue(p)}`).join('; ')
        for (const [i, child] of [...el.children].entries()) visit(child, `${path} > ${child.localName}:${i}`)
        for (const [i, child] of [...(el.shadowRoot?.children ?? [])].entries()) visit(child, `${path} >> ${child.localName}:${i}`)
      }
      const hosts = [...document.querySelectorAll('*')].filter((el) => el.localName.startsWith('lingxi-') && el.shadowRoot)
      for (const [i, host] of hosts.entries()) {
        const name = `${host.localName}${host.getAttribute('mode') === 'bubble' ? '[bubble]' : ''}#${i}`
        if (only && !name.startsWith(only)) continue
        for (const [j, child] of [...host.shadowRoot!.children].entries()) visit(child, `${name} >> ${child.localName}:${j}`)
      }
      return out
    },
    { props: PROPS, only }
  )
}

/** The differences between two snapshots, one line per element. */
function differences(actual: Record<string, string>, expected: Record<string, string>): string[] {
  const lines: string[] = []
  for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    if (actual[key] === expected[key]) continue
    if (actual[key] === undefined || expected[key] === undefined) {
      lines.push(`${key}: ${actual[key] === undefined ? 'missing' : 'extra'}`)
      continue
    }
    const want = expected[key]!.split('; ')
    const got = actual[key]!.split('; ')
    lines.push(`${key}: ${got.filter((g, i) => g !== want[i]).join('; ')} (clean: ${want.filter((w, i) => w !== got[i]).join('; ')})`)
  }
  return lines
}

const launcher = (p: Page) => p.getByRole('button', { name: '打开 AI 客服对话' })
const panel = (p: Page) => p.getByRole('dialog', { name: '灵犀 AI' })

/** The page in its states: widgets logged out, the bubble open, its login dialog, logged in. */
async function* states(browser: Browser, name: string, phone: string) {
  const context = await browser.newContext()
  const page = await context.newPage()
  const violations: string[] = []
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`csp-violation ${e.violatedDirective} ${e.sourceFile}`))
  })
  page.on('console', (m) => {
    if (m.text().startsWith('csp-violation')) violations.push(m.text())
  })
  try {
    await page.goto(partners[name]!.url)
    // every widget shows its logged-out view
    const loggedOut: [string, string][] = [
      ['lingxi-chat:not([mode])', '登录后开始对话'],
      ['lingxi-roles', '登录后浏览角色库'],
      ['lingxi-image-host', '登录后使用图床'],
      ['lingxi-user-center', '登录后查看额度、兑换卡密与修改资料。'],
      ['lingxi-music', '登录后创作音乐'],
      ['lingxi-hot-news', '登录后查看热点'],
      ['lingxi-orders', '登录后接单']
    ]
    for (const [tag, text] of loggedOut) await expect(page.locator(tag).getByText(text).first()).toBeVisible()
    await expect(page.locator('lingxi-painting').getByRole('heading').first()).toBeVisible()
    await expect(page.locator('lingxi-login').getByRole('button', { name: '登录' })).toBeVisible()
    await expect(launcher(page)).toBeVisible()
    yield { state: 'logged out', page, snapshot: () => collect(page) }
    await launcher(page).click()
    await expect(panel(page)).toBeVisible()
    yield { state: 'bubble open', page, snapshot: () => collect(page) }
    await panel(page).getByRole('button', { name: '登录' }).click()
    await expect(page.getByRole('dialog', { name: '手机号登录' })).toBeVisible()
    yield { state: 'login dialog', page, snapshot: () => collect(page, 'lingxi-chat[bubble]') }
    await completeLogin(page, server, phone)
    await expect(panel(page).getByTestId('composer')).toBeVisible()
    yield { state: 'logged in', page, snapshot: () => collect(page, 'lingxi-chat[bubble]') }
    expect(violations).toEqual([])
  } finally {
    await context.close()
  }
}

test('every widget computes the same styles under a hostile partner stylesheet', async ({ browser }, info) => {
  test.setTimeout(180_000)
  const clean: Record<string, Record<string, string>> = {}
  let phone = 13900139500
  for await (const { state, snapshot } of states(browser, 'clean', String(phone++))) {
    clean[state] = await snapshot()
    expect(Object.keys(clean[state]!).length, state).toBeGreaterThan(state === 'logged out' ? 60 : 10)
  }
  for (const name of ['root 62.5%', 'root 125%']) {
    for await (const { state, page, snapshot } of states(browser, name, String(phone++))) {
      await expect.poll(async () => differences(await snapshot(), clean[state]!).slice(0, 25), { message: `${name}, ${state}`, timeout: 5000 }).toEqual([])
      if (state === 'bubble open' && name === 'root 62.5%') await snap(page, info, 'hostile-open')
      if (state === 'logged in') {
        // the key parts, measured: the launcher, the composer and the send button
        const box = (l: ReturnType<Page['locator']>) => l.evaluate((el) => [el.getBoundingClientRect().width, el.getBoundingClientRect().height])
        expect(await box(launcher(page))).toEqual([56, 56])
        const composer = await panel(page)
          .getByTestId('composer')
          .evaluate((el) => getComputedStyle(el).fontSize)
        expect(composer).toBe('14px')
      }
    }
  }
})

test('the hostile page with the bubble open, on a desktop and a phone (screenshots)', async ({ browser }, info) => {
  for (const [width, height] of [
    [1280, 800],
    [390, 844]
  ] as const) {
    const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 })
    const page = await context.newPage()
    await page.goto(partners['root 62.5%']!.url)
    await launcher(page).click()
    await expect(panel(page).getByRole('button', { name: '登录' })).toBeVisible()
    // on a phone the panel covers the page: the same size as on a clean page
    const size = await panel(page).evaluate((el) => [el.getBoundingClientRect().width, el.getBoundingClientRect().height])
    if (width < 640) expect(size[0]).toBe(width)
    await snap(page, info, `hostile-${width}`)
    await context.close()
  }
})
