import AxeBuilder from '@axe-core/playwright'
import { type Browser, expect, type Page, type Request, test, type TestInfo } from '@playwright/test'
import type { ImpactValue } from 'axe-core'
import { loginAs } from './helpers'
import { type LingxiServer, startServer } from './server'

// Issue 19's accessibility check: axe-core (WCAG 2.x A and AA rules) over every route of the host,
// every dialog and every open menu, signed out and in, at desktop (1280×800) and phone (390×844)
// sizes, in the dark and the light theme. Goal: no critical and no serious violation anywhere.
// One server for the file; one context and one login per size and theme.

let server: LingxiServer

test.beforeAll(async () => {
  // The accounts signed in below (1390013900{1..4}) are operators too: /admin opens for them.
  server = await startServer({ DEFAULT_PERMISSIONS: ALL_TOOLS, ADMIN_PHONES: '13900139001,13900139002,13900139003,13900139004' })
})
test.afterAll(async () => {
  await server?.stop()
})

const ALL_TOOLS =
  'AI_TOOLS_CHAT,AI_TOOLS_ROLE,AI_TOOLS_PAINTING,AI_TOOLS_SD,AI_TOOLS_MUSIC,AI_TOOLS_HOT,AI_TOOLS_GALLERY,AI_TOOLS_IMAGE,AI_TOOLS_ORDER_PLATFORM,AI_TOOLS_ORDER_PLATFORM_QUALITY'

/**
 * Every page of the route table (src/host/routes.ts, from the tools' manifests; the bundle-time
 * menu rules keep it from being imported here): detail routes with made-up ids (their "not found"
 * state), and each tab of the user center.
 */
const paths = [
  '/',
  '/chat',
  '/role',
  '/mj',
  '/sd',
  '/mjHelper',
  '/gallery',
  '/imgSee',
  '/usercenter?id=general',
  '/usercenter?id=card',
  '/usercenter?id=recharge',
  '/usercenter?id=setting',
  '/music',
  '/hotNew',
  '/orders',
  '/orders/ordersDetail/1/1',
  '/miracleOrders',
  '/miracleOrders/ordersDetail/1/1',
  // the operator console's tabs (issue 17)
  '/admin?tab=users',
  '/admin?tab=cards',
  '/admin?tab=packages',
  '/admin?tab=orders',
  '/admin?tab=audit',
  // a share link that does not exist (issue 20; the page with a topic is checked below)
  '/share/AAAAAAAAAAAAAAAAAAAAAAAA',
  '/404'
]

interface Finding {
  where: string
  rule: string
  impact: ImpactValue
  nodes: string[]
}

/** Requests in flight per page, streams left out (a chat's event stream stays open). */
const inFlight = new WeakMap<Page, Set<Request>>()

function track(page: Page) {
  const open = new Set<Request>()
  inFlight.set(page, open)
  page.on('request', (r) => {
    if (r.resourceType() !== 'eventsource' && !/\/(stream|sse)\b/.test(r.url())) open.add(r)
  })
  const done = (r: Request) => open.delete(r)
  page.on('requestfinished', done)
  page.on('requestfailed', done)
}

/** Waits until the page shows what it loads: no spinner, and no request in flight for two frames. */
async function settled(page: Page) {
  await expect(page.getByText('页面加载中')).toHaveCount(0, { timeout: 15_000 })
  await expect(page.locator('[role=status][aria-label=加载中]')).toHaveCount(0, { timeout: 10_000 })
  // at most about a second or two: a request that never ends (a long poll) does not hold the check
  const open = inFlight.get(page)!
  for (let quiet = 0, i = 0; quiet < 2 && i < 40; i++) {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
    quiet = open.size === 0 ? quiet + 1 : 0
  }
  if (open.size) console.log(`still loading on ${page.url()}: ${[...open].map((r) => r.url()).join(', ')}`)
}

async function check(page: Page, where: string, found: Finding[]) {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']).analyze()
  for (const v of result.violations) {
    if (v.impact !== 'critical' && v.impact !== 'serious') continue
    found.push({
      where,
      rule: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => `${n.target.join(' >>> ')}: ${n.failureSummary?.split('\n')[1]?.trim() ?? ''}`)
    })
  }
}

function summary(found: Finding[]): string {
  const byRule = new Map<string, Finding[]>()
  for (const f of found) byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f])
  return [...byRule]
    .map(
      ([rule, list]) =>
        `${rule} (${list[0]!.impact}): ${list.reduce((n, f) => n + f.nodes.length, 0)} elements\n` +
        list.map((f) => `  ${f.where}: ${f.nodes.slice(0, 3).join(' | ')}${f.nodes.length > 3 ? ` (+${f.nodes.length - 3})` : ''}`).join('\n')
    )
    .join('\n')
}

const sizes = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true }
] as const

async function open(browser: Browser, size: (typeof sizes)[number], theme: string) {
  const context = await browser.newContext({
    viewport: size.viewport,
    locale: 'zh-CN',
    isMobile: size.phone,
    hasTouch: size.phone,
    reducedMotion: 'reduce'
  })
  // the choice the profile panel stores (src/core/theme.ts), read by the host page's /theme.js
  await context.addInitScript((t) => localStorage.setItem('lingxi-theme', t), theme)
  return context
}

for (const [s, size] of sizes.entries())
  for (const [t, theme] of ['dark', 'light'].entries())
    test(`axe: no critical or serious violation, ${size.name}, ${theme}`, async ({ browser }, info: TestInfo) => {
      test.setTimeout(300_000)
      const phone = s * 2 + t + 1
      const context = await open(browser, size, theme)
      const page = await context.newPage()
      track(page)
      const found: Finding[] = []
      const at = (what: string) => `${size.name}/${theme} ${what}`

      try {
        // signed out: every route, the login dialog and its country picker
        for (const path of paths) {
          await page.goto(server.url + path)
          await settled(page)
          await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
          // the browser's bar (theme-color) has the page's background
          await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', theme === 'light' ? 'rgb(244, 245, 247)' : 'rgb(23, 24, 28)')
          await check(page, at(`out ${path}`), found)
        }
        await page.goto(`${server.url}/chat`)
        await settled(page)
        // the skip link: first in the tab order, shown when focused, moves the focus to the page's content
        await page.keyboard.press('Tab')
        const skip = page.getByRole('link', { name: '跳到主要内容' })
        await expect(skip).toBeFocused()
        await expect(skip).toBeInViewport()
        await page.keyboard.press('Enter')
        await expect(page.getByRole('main')).toBeFocused()
        await page.getByRole('banner').getByRole('button', { name: '登录' }).click()
        const login = page.getByRole('dialog', { name: '手机号登录' })
        await expect(login.getByLabel('手机号')).toBeFocused()
        await check(page, at('login dialog'), found)
        await login.getByRole('button', { name: /国家或地区区号/ }).click()
        await expect(login.getByRole('searchbox')).toBeVisible()
        await check(page, at('login country picker'), found)
        await page.keyboard.press('Escape')
        await expect(login.getByRole('searchbox')).toBeHidden()
        if (await login.isVisible()) await page.keyboard.press('Escape')
        await expect(login).toBeHidden()

        // signed in
        await loginAs(page, server, `1390013900${phone}`)
        for (const path of paths) {
          await page.goto(server.url + path)
          await settled(page)
          await check(page, at(`in ${path}`), found)
        }

        // the chat with a reply (code block, topics), its model settings and a topic's actions
        await page.goto(`${server.url}/chat`)
        await settled(page)
        const composer = page.getByTestId('composer')
        await composer.fill('用 Python 写一个快速排序')
        await composer.press('Enter')
        await expect(page.locator('[data-testid=message][data-status=complete][data-role=assistant]')).toHaveCount(1, { timeout: 30_000 })
        // the reply was read out politely, sentence by sentence, not the whole log again
        await expect(page.getByRole('log', { name: '对话消息' })).toHaveAttribute('aria-live', 'off')
        await expect(page.getByTestId('live-reply')).toHaveAttribute('aria-live', 'polite')
        await expect(page.getByTestId('live-reply')).not.toBeEmpty()
        await check(page, at('chat with a reply'), found)
        await page.getByRole('button', { name: '对话设置' }).first().click()
        await expect(page.getByRole('dialog', { name: '对话设置' })).toBeVisible()
        await check(page, at('chat model settings'), found)
        await page.keyboard.press('Escape')
        await expect(page.getByRole('dialog', { name: '对话设置' })).toBeHidden()
        if (size.phone) {
          await page.getByRole('button', { name: '话题列表' }).first().click()
          await expect(page.getByRole('dialog', { name: '话题列表' })).toBeVisible()
        }
        await page.getByTestId('topic-item').first().getByRole('button').first().focus()
        await check(page, at('chat topic actions'), found)
        await page.keyboard.press('Escape')

        // a topic's export and share dialog with a link, and the share page it leads to (issue 20)
        if (size.phone) {
          await page.getByRole('button', { name: '话题列表' }).first().click()
          await expect(page.getByRole('dialog', { name: '话题列表' })).toBeVisible()
        }
        await page.getByTestId('topic-item').first().getByRole('button', { name: '导出与分享' }).click()
        const share = page.getByRole('dialog', { name: '导出与分享' })
        await share.getByRole('button', { name: '创建分享链接' }).click()
        await expect(share.getByTestId('share-link')).toHaveCount(1)
        await check(page, at('export and share dialog'), found)
        await page.goto(await share.getByTestId('share-link').getByRole('textbox').inputValue())
        await settled(page)
        await expect(page.getByTestId('shared-message')).toHaveCount(2)
        await check(page, at('shared topic page'), found)

        // the account menu and the profile panel
        await page.goto(`${server.url}/`)
        await settled(page)
        await page.getByRole('banner').getByTestId('header-phone').click()
        await expect(page.getByRole('menu', { name: '账号菜单' })).toBeVisible()
        await check(page, at('account menu'), found)
        await page.getByRole('menuitem', { name: '个人信息' }).click()
        await expect(page.getByRole('dialog', { name: '个人信息' })).toBeVisible()
        await check(page, at('profile panel'), found)
        await page.keyboard.press('Escape')

        // hot news' source manager, and on phones the header's source picker
        await page.goto(`${server.url}/hotNew`)
        await settled(page)
        await page.getByRole('button', { name: '管理来源' }).click()
        await expect(page.getByRole('dialog', { name: '管理来源' })).toBeVisible()
        await check(page, at('hot news source manager'), found)
        await page.keyboard.press('Escape')
        const picker = page.getByRole('banner').getByRole('button', { name: '热榜来源' })
        if (await picker.isVisible()) {
          await picker.click()
          await expect(page.getByRole('dialog', { name: '热榜来源' })).toBeVisible()
          await check(page, at('hot news sources'), found)
          await page.keyboard.press('Escape')
        }
      } finally {
        await context.close()
        const text = summary(found)
        if (text) console.log(`\n${size.name}/${theme}:\n${text}`)
      }
      const text = summary(found)
      await info.attach(`axe ${size.name} ${theme}`, { body: text || 'no critical or serious violation', contentType: 'text/plain' })
      expect(text, 'critical or serious axe violations').toBe('')
    })
