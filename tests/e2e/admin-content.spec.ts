import AxeBuilder from '@axe-core/playwright'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, expect, type Page, test, type TestInfo } from '@playwright/test'
import { addSession, apiLogin, settled } from './helpers'
import { type LingxiServer, startServer } from './server'

// Issues 17 ("Content") and 18 (reports), as people use them at desktop and phone sizes: a viewer
// reports a gallery work from its lightbox; the operator finds the report in 举报, confirms it
// (the work is taken down), sees it as 已下架 in 内容; the gallery no longer shows it to anyone and
// its file answers 410; the owner's history says 已下架 with the reason; the operator restores it.

const OPERATORS = { desktop: '13900139101', phone: '13900139102' }
/** Other operators for the statistics and announcement tests (a phone gets one code a minute). */
const STATS_OPERATORS = { desktop: '13900139103', phone: '13900139104' }
const NOTICE_OPERATORS = { desktop: '13900139105', phone: '13900139106' }
let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer({
    ADMIN_PHONES: [...Object.values(OPERATORS), ...Object.values(STATS_OPERATORS), ...Object.values(NOTICE_OPERATORS)].join(','),
    DEFAULT_PERMISSIONS: 'AI_TOOLS_CHAT,AI_TOOLS_PAINTING,AI_TOOLS_SD,AI_TOOLS_GALLERY',
    PAINTING_DEMO_DELAY_MS: '0'
  })
})
test.afterAll(async () => {
  await server?.stop()
})

async function call<T = unknown>(token: string, path: string, body: object): Promise<T> {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body)
  })
  const json = (await res.json()) as { code: number; data: T; message: string }
  expect(json.code, json.message).toBe(2000)
  return json.data
}

/** Draws a picture with the demo painter and publishes it; returns its id and image address. */
async function publish(token: string, prompt: string): Promise<{ taskId: string; imageUrl: string }> {
  const { taskId } = await call<{ taskId: string }>(token, '/painting/imagine', { prompt })
  await expect.poll(async () => (await call<{ status: string }>(token, '/painting/task/get', { taskId })).status, { timeout: 30_000 }).toBe('SUCCESS')
  await call(token, '/gallery/publish', { taskId })
  const task = await call<{ imageUrl: string }>(token, '/painting/task/get', { taskId })
  return { taskId, imageUrl: new URL(task.imageUrl, server.url).href }
}

async function signedIn(browser: Browser, token: string, phone: boolean) {
  const context = await browser.newContext({
    viewport: phone ? { width: 390, height: 844 } : { width: 1280, height: 800 },
    locale: 'zh-CN',
    isMobile: phone,
    hasTouch: phone
  })
  await addSession(context, server, token)
  return context.newPage()
}

async function shot(page: Page, info: TestInfo, name: string) {
  const body = await page.screenshot()
  await info.attach(name, { body, contentType: 'image/png' })
  if (process.env.LINGXI_SHOTS) writeFileSync(join(process.env.LINGXI_SHOTS, `admin-content-${name.replace(/[^\w\u4e00-\u9fff]+/g, '-')}.png`), body)
}

/** axe-core (WCAG 2.x A and AA) over the page as it is, a dialog included: no critical or serious violation. */
async function axe(page: Page, where: string) {
  await settled(page)
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  const bad = violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  expect(bad, where).toEqual([])
}

for (const size of [
  { name: 'desktop', phone: false, n: 1 },
  { name: 'phone', phone: true, n: 2 }
] as const) {
  test(`report from the gallery, confirm in the console, gone for everyone, restore (${size.name})`, async ({ browser }, info) => {
    const author = await apiLogin(server, `1370013790${size.n}`)
    const viewer = await apiLogin(server, `1370013791${size.n}`)
    const operator = await apiLogin(server, OPERATORS[size.name])
    const prompt = `雪地里的狐狸${size.n}`
    const fox = await publish(author, prompt)
    expect((await fetch(fox.imageUrl)).status).toBe(200)

    // the viewer reports the work from its lightbox
    const page = await signedIn(browser, viewer, size.phone)
    await page.goto(`${server.url}/gallery`)
    const item = page.getByTestId('gallery-item').filter({ hasText: prompt })
    await item.getByRole('button', { name: /^查看作品/ }).click()
    await page.getByRole('button', { name: '举报', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: '举报' })
    await expect(dialog).toBeVisible()
    await dialog.getByRole('button', { name: '提交举报' }).click()
    await expect(dialog.getByRole('alert')).toHaveText('请选择举报理由')
    await dialog.getByRole('radio', { name: '色情低俗' }).check()
    await dialog.getByLabel(/补充说明/).fill('画面不适合公开展示')
    await axe(page, 'report dialog')
    await shot(page, info, `report dialog (${size.name})`)
    await dialog.getByRole('button', { name: '提交举报' }).click()
    await expect(page.getByText('举报已提交，感谢您的反馈')).toBeVisible()
    await expect(dialog).toBeHidden()

    // the operator confirms it in 举报
    const console = await signedIn(browser, operator, size.phone)
    await console.goto(`${server.url}/admin?tab=reports`)
    const row = console.getByTestId('admin-row').filter({ hasText: prompt })
    await expect(row).toContainText('色情低俗：画面不适合公开展示')
    await axe(console, 'reports')
    await shot(console, info, `reports queue (${size.name})`)
    await row.getByRole('button', { name: '确认违规' }).click()
    const resolve = console.getByRole('dialog', { name: '确认违规' })
    await resolve.getByLabel(/处理说明/).fill('含有不适宜公开的内容')
    await axe(console, 'confirm dialog')
    await resolve.getByRole('button', { name: '确认违规' }).click()
    await expect(console.getByText('已确认，内容已下架')).toBeVisible()
    await expect(row).toHaveCount(0)

    // 内容 shows it taken down, with the reason
    await console.getByRole('tab', { name: '内容' }).click()
    const content = console.getByTestId('admin-row').filter({ hasText: prompt })
    await expect(content).toContainText('已下架')
    await expect(content).toContainText('含有不适宜公开的内容')
    await axe(console, 'content')
    await shot(console, info, `content (${size.name})`)

    // gone for the viewer (after a reload) and its file is no longer served
    await page.reload()
    await expect(page.getByTestId('gallery-item').first())
      .toBeVisible({ timeout: 15_000 })
      .catch(() => {})
    await expect(page.getByTestId('gallery-item').filter({ hasText: prompt })).toHaveCount(0)
    expect((await fetch(fox.imageUrl)).status).toBe(410)

    // the owner's history says 已下架 with the reason
    const owner = await signedIn(browser, author, size.phone)
    await owner.goto(`${server.url}/mj`)
    const mine = owner.locator(`[data-task-id="${fox.taskId}"]`)
    await expect(mine).toContainText('已下架：含有不适宜公开的内容', { timeout: 30_000 })
    await shot(owner, info, `owner's history (${size.name})`)

    // restored: in the gallery again, served again
    await content.getByRole('button', { name: /^恢复/ }).click()
    const restore = console.getByRole('dialog', { name: '恢复内容' })
    await restore.getByLabel(/恢复原因/).fill('复核后无问题')
    await restore.getByRole('button', { name: '确认恢复' }).click()
    await expect(console.getByText('已恢复')).toBeVisible()
    await expect(content).not.toContainText('已下架')
    expect((await fetch(fox.imageUrl)).status).toBe(200)
    await page.reload()
    await expect(page.getByTestId('gallery-item').filter({ hasText: prompt })).toHaveCount(1)
  })
}

test('a normal user opening the console is refused the content and reports API', async () => {
  const token = await apiLogin(server, '13700137999')
  for (const path of ['/api/admin/content/list', '/api/admin/reports/list']) {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ list: 'gallery' })
    })
    expect(res.status).toBe(403)
  }
})

for (const size of [
  { name: 'desktop', phone: false },
  { name: 'phone', phone: true }
] as const) {
  test(`statistics: daily charts drawn by uPlot, which loads only there (${size.name})`, async ({ browser }, info) => {
    const operator = await apiLogin(server, STATS_OPERATORS[size.name])
    const page = await signedIn(browser, operator, size.phone)
    /** Scripts whose text holds uPlot (its legend class), by the time they were fetched. */
    const charts: string[] = []
    page.on('response', async (res) => {
      if (res.request().resourceType() !== 'script') return
      const text = await res.text().catch(() => '')
      if (text.includes('u-legend')) charts.push(res.url())
    })
    await page.goto(`${server.url}/chat`)
    await expect(page.getByRole('banner')).toBeVisible()
    await page.goto(`${server.url}/admin?tab=users`)
    await expect(page.getByRole('tab', { name: '用户' })).toHaveAttribute('aria-selected', 'true')
    await page.waitForLoadState('networkidle')
    expect(charts).toEqual([])

    await page.getByRole('tab', { name: '统计' }).click()
    const signups = page.getByTestId('stat-signups')
    await expect(signups.locator('canvas')).toBeVisible()
    await expect(page.getByTestId('stat-errors').locator('.u-legend')).toContainText('绘画')
    await expect(signups.getByRole('img')).toHaveAttribute('aria-label', /注册用户每日折线图，注册 共 \d+/)
    // uPlot's chunk and its stylesheet's, fetched only now
    expect(charts.length).toBeGreaterThan(0)
    await axe(page, 'statistics')
    await shot(page, info, `statistics (${size.name})`)
    const download = page.waitForEvent('download')
    await signups.getByRole('button', { name: '导出注册用户 CSV' }).click()
    expect((await download).suggestedFilename()).toMatch(/^stats-signups-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/)
  })
}

for (const size of [
  { name: 'desktop', phone: false, n: 1 },
  { name: 'phone', phone: true, n: 2 }
] as const) {
  test(`an announcement is shown once after the first screen, and dismissed (${size.name})`, async ({ browser }, info) => {
    const operator = await apiLogin(server, NOTICE_OPERATORS[size.name])
    const now = Date.now()
    const title = `维护通知${size.n}`
    const res = await fetch(`${server.url}/api/admin/announcements/save`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${operator}` },
      body: JSON.stringify({ title, body: '今晚 23:00 起维护 30 分钟，期间暂停服务。', startTime: now - 60_000, endTime: now + 3_600_000 })
    })
    expect(((await res.json()) as { code: number }).code).toBe(2000)

    const context = await browser.newContext({
      viewport: size.phone ? { width: 390, height: 844 } : { width: 1280, height: 800 },
      locale: 'zh-CN',
      isMobile: size.phone,
      hasTouch: size.phone
    })
    const page = await context.newPage()
    await page.goto(`${server.url}/chat`)
    const dialog = page.getByRole('dialog', { name: title })
    await expect(dialog).toBeVisible({ timeout: 15_000 })
    await expect(dialog.getByTestId('announcement')).toHaveText('今晚 23:00 起维护 30 分钟，期间暂停服务。')
    // the keyboard is in the dialog, on 知道了
    await expect(dialog.getByRole('button', { name: '知道了' })).toBeFocused()
    await axe(page, 'announcement')
    await shot(page, info, `announcement (${size.name})`)
    await page.keyboard.press('Enter')
    await expect(dialog).toBeHidden()
    // once: not again after a reload (its check runs, and finds it seen)
    const asked = page.waitForResponse((r) => r.url().endsWith('/api/v1/announcements'), { timeout: 15_000 })
    await page.reload()
    await asked
    await page.waitForTimeout(500)
    await expect(dialog).toHaveCount(0)
    await context.close()
  })
}
