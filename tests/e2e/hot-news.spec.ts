import { expect, test, type BrowserContext, type Page } from '@playwright/test'
import { startFakeDailyHot, type FakeDailyHot } from '../../server/test/fakes/dailyhot'
import { loginAs, shot } from './helpers'
import { startServer, type LingxiServer } from './server'

// Hot news on the host page with the offline sample source: tabs, ranked list with heat,
// 示例数据 marks, open the original, copy the list (desktop button, phone header), AI 解读 streamed
// by the demo chat model.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

/** Foreign sites (the originals) answer with a stub page: the test never leaves loopback. */
async function stubForeign(context: BrowserContext) {
  await context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>原文</title><p>原文</p>' })
  )
}

const items = (page: Page) => page.getByTestId('hot-item')
const tabs = (page: Page) => page.getByRole('tablist', { name: '热榜来源' }).getByRole('tab')

test('tabs, ranked list with heat, open the original, copy, AI 解读 with stop and copy', async ({ page, context }, info) => {
  await stubForeign(context)
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
  await page.goto(server.url + '/hotNew')
  await loginAs(page, server, '13800138400')
  await expect(page.getByRole('heading', { name: '热点资讯' })).toBeVisible()

  // one tab per source; the first is selected and its list shown, ranked, marked as sample data
  await expect(tabs(page).first()).toHaveAttribute('aria-selected', 'true')
  expect(await tabs(page).count()).toBeGreaterThan(1)
  await expect(page.getByTestId('demo-banner')).toContainText('示例数据')
  await expect(items(page)).not.toHaveCount(0)
  await expect(items(page).first()).toContainText('1')
  await expect(items(page).first()).toContainText('示例')
  await expect(items(page).first().getByTestId('heat')).toHaveText(/\d+\.\dw\+|\d+/)
  await shot(page, info, 'hot list')

  // another tab, by keyboard
  const firstTitle = await items(page).first().getByRole('link').textContent()
  await tabs(page).first().focus()
  await page.keyboard.press('ArrowRight')
  await expect(tabs(page).nth(1)).toHaveAttribute('aria-selected', 'true')
  await expect(tabs(page).nth(1)).toBeFocused()
  await expect(items(page).first().getByRole('link')).not.toHaveText(firstTitle!)
  // and by click
  await tabs(page).nth(2).click()
  await expect(tabs(page).nth(2)).toHaveAttribute('aria-selected', 'true')

  // the original opens in a new tab, with no handle on this page
  const link = items(page).first().getByRole('link')
  const href = await link.getAttribute('href')
  const popup = page.waitForEvent('popup')
  await link.click()
  const original = await popup
  await original.waitForLoadState()
  expect(original.url()).toBe(href)
  expect(await original.evaluate(() => window.opener)).toBeNull()
  await original.close()
  await expect(page).toHaveURL(/\/hotNew$/)

  // copy the list as text
  await page.getByRole('button', { name: '复制列表' }).click()
  await expect(page.getByText('已复制到剪切板！')).toBeVisible()
  const text = await page.evaluate(() => navigator.clipboard.readText())
  const tabName = await tabs(page).nth(2).textContent()
  expect(text.split('\n')[0]).toContain(tabName!)
  expect(text).toContain('示例数据')
  expect(text).toContain(
    `1. ${await items(page)
      .first()
      .getByRole('link')
      .evaluate((a) => a.firstChild?.textContent)}`
  )

  // AI 解读: streams, can be stopped
  await items(page)
    .nth(1)
    .getByRole('button', { name: /^AI 解读/ })
    .click()
  const dialog = page.getByRole('dialog', { name: 'AI 解读' })
  const panel = dialog.getByTestId('interpretation')
  await expect(panel).toHaveAttribute('data-status', 'streaming', { timeout: 20_000 })
  await dialog.getByRole('button', { name: '停止' }).click()
  await expect(panel).toHaveAttribute('data-status', 'interrput')
  await expect(panel).toContainText('已停止')
  await dialog.getByRole('button', { name: '关闭' }).click()

  // again, to the end: rendered markdown, then copy
  await items(page)
    .first()
    .getByRole('button', { name: /^AI 解读/ })
    .click()
  await expect(panel).toHaveAttribute('data-status', 'streaming', { timeout: 20_000 })
  await shot(page, info, 'AI 解读 streaming')
  await expect(panel).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
  await expect(panel).toContainText('演示')
  await shot(page, info, 'AI 解读 complete')
  await dialog.getByRole('button', { name: '复制全文' }).click()
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('演示')
  await dialog.getByRole('button', { name: '关闭' }).click()
  await expect(dialog).toBeHidden()
})

test('phone: the header carries the list and copy buttons', async ({ page, context }, info) => {
  await page.setViewportSize({ width: 390, height: 844 })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
  await page.goto(server.url + '/hotNew')
  await loginAs(page, server, '13800138401')
  const header = page.getByRole('banner')
  await expect(items(page)).not.toHaveCount(0)
  // the widget's own copy button gives way to the header's
  await expect(page.getByRole('main').getByRole('button', { name: '复制列表' })).toHaveCount(0)
  await shot(page, info, 'phone hot list')

  await header.getByRole('button', { name: '复制列表' }).click()
  await expect(page.getByText('已复制到剪切板！')).toBeVisible()
  const first = await items(page)
    .first()
    .getByRole('link')
    .evaluate((a) => a.firstChild?.textContent)
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain(`1. ${first}`)

  await header.getByRole('button', { name: '热榜来源' }).click()
  const sheet = page.getByRole('dialog', { name: '热榜来源' })
  await expect(sheet).toBeVisible()
  await shot(page, info, 'phone source sheet')
  const last = sheet.getByRole('button').last()
  const name = (await last.textContent())!.replace('示例', '')
  await last.click()
  await expect(sheet).toBeHidden()
  await expect(page.getByRole('tab', { selected: true })).toHaveText(name)

  await items(page)
    .first()
    .getByRole('button', { name: /^AI 解读/ })
    .click()
  const panel = page.getByRole('dialog', { name: 'AI 解读' }).getByTestId('interpretation')
  await expect(panel).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
  await shot(page, info, 'phone AI 解读')
})

for (const size of [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 }
]) {
  test(`${size.name}: search every list, and choose and order the sources (remembered)`, async ({ page }, info) => {
    await page.setViewportSize(size)
    await page.goto(server.url + '/hotNew')
    await loginAs(page, server, size.name === 'phone' ? '13800138403' : '13800138404')
    await expect(items(page)).not.toHaveCount(0)

    // Search: hits from several lists (only 微博 was open), each naming its list and rank.
    const search = page.getByRole('searchbox', { name: '搜索全部热榜' })
    await search.fill('家')
    const found = page.getByRole('list', { name: '「家」的搜索结果' })
    await expect(found).toBeVisible()
    const from = await found.getByTestId('hit-source').allTextContents()
    expect(new Set(from.map((f) => f.split(' ')[0])).size).toBeGreaterThan(1)
    // Title or description holds it.
    for (const text of await found.getByTestId('hot-item').allTextContents()) expect(text).toContain('家')
    await expect(page.getByText(/在全部热榜中找到 \d+ 条包含「家」的热点/)).toBeVisible()
    await shot(page, info, `${size.name} hot search`)
    // 解读 of a hit from another list than the open tab.
    const other = found
      .getByTestId('hot-item')
      .filter({ hasNot: page.getByText('微博 第', { exact: false }) })
      .first()
    await other.getByRole('button', { name: /^AI 解读/ }).click()
    await expect(page.getByRole('dialog', { name: 'AI 解读' }).getByTestId('interpretation')).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
    await page.keyboard.press('Escape')
    await search.fill('没有这样的热点标题')
    await expect(page.getByText('没有找到包含「没有这样的热点标题」的热点')).toBeVisible()
    await search.focus()
    await page.keyboard.press('Escape')
    await expect(search).toHaveValue('')
    await expect(tabs(page).first()).toBeVisible()

    // Arrange: hide 知乎, move 百度 up to the front.
    await page.getByRole('button', { name: '管理来源' }).click()
    const manager = page.getByRole('dialog', { name: '管理来源' })
    await manager.getByRole('checkbox', { name: '知乎' }).uncheck()
    await manager.getByRole('button', { name: '上移「百度」' }).click()
    await manager.getByRole('button', { name: '上移「百度」' }).click()
    await shot(page, info, `${size.name} hot sources`)
    await page.keyboard.press('Escape')
    const names = async () => (await tabs(page).allTextContents()).map((t) => t.trim())
    await expect.poll(names).toEqual(expect.arrayContaining(['百度', '微博']))
    expect((await names())[0]).toBe('百度')
    expect(await names()).not.toContain('知乎')
    await page.reload()
    await expect(tabs(page).first()).toHaveText('百度')
    expect(await names()).not.toContain('知乎')
  })
}

test.describe('against a DailyHotApi upstream', () => {
  let fake: FakeDailyHot
  let live: LingxiServer
  test.beforeAll(async () => {
    fake = await startFakeDailyHot()
    live = await startServer({ HOT_API_URL: fake.url, HOT_SOURCES: 'weibo,zhihu', HOT_REFRESH_SECONDS: '1' })
  })
  test.afterAll(async () => {
    await live?.stop()
    await fake?.close()
  })

  test('real lists carry no sample marks, foreign covers stay unloaded, a failing source shows its last list as stale', async ({ page }, info) => {
    const foreign: string[] = []
    page.on('request', (r) => {
      if (!r.url().startsWith(live.url) && !r.url().startsWith('data:')) foreign.push(r.url())
    })
    await page.goto(live.url + '/hotNew')
    await loginAs(page, live, '13800138402')
    await expect(tabs(page)).toHaveText(['微博', '知乎'])
    await expect(items(page)).toHaveCount(10)
    await expect(items(page).first()).toContainText('微博 第 1 条')
    await expect(items(page).first().getByTestId('heat')).toContainText('100.0w+')
    await expect(page.getByTestId('demo-banner')).toHaveCount(0)
    await expect(items(page).first()).not.toContainText('示例')
    await expect(page.getByTestId('stale-notice')).toHaveCount(0)

    // the upstream breaks: the page keeps the last good list and says it is stale
    fake.set('weibo', { kind: 'error', status: 500 })
    await expect(async () => {
      await page.getByRole('button', { name: '刷新', exact: true }).click()
      await expect(page.getByTestId('stale-notice')).toBeVisible({ timeout: 1000 })
    }).toPass({ timeout: 20_000 })
    await expect(page.getByTestId('stale-notice')).toContainText('暂时无法更新')
    await expect(items(page)).toHaveCount(10)
    await shot(page, info, 'stale source')
    expect(foreign).toEqual([])
  })
})
