import AxeBuilder from '@axe-core/playwright'
import { type Browser, expect, test } from '@playwright/test'
import { addSession, apiLogin, snap } from './helpers'
import { type LingxiServer, startServer } from './server'

// Issue 22, the gallery: search by prompt, filter by aspect, like (the count and the pressed state),
// 本周最受欢迎, an author's other works, and the owner's 从画廊撤下 — at desktop and phone sizes.
// The works are drawn by the offline demo painter through the API, then published.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer({
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

/** Draws a picture with the demo painter and publishes it; returns its id. */
async function publish(token: string, prompt: string): Promise<string> {
  const { taskId } = await call<{ taskId: string }>(token, '/painting/imagine', { prompt })
  await expect.poll(async () => (await call<{ status: string }>(token, '/painting/task/get', { taskId })).status, { timeout: 30_000 }).toBe('SUCCESS')
  await call(token, '/gallery/publish', { taskId })
  return taskId
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

for (const size of [
  { name: 'desktop', phone: false, n: 1 },
  { name: 'phone', phone: true, n: 2 }
]) {
  test(`search, filter, like, 本周最受欢迎, an author's other works, unpublish (${size.name})`, async ({ browser }, info) => {
    const author = await apiLogin(server, `1370013780${size.n}`)
    const viewer = await apiLogin(server, `1370013781${size.n}`)
    const fox = await publish(author, `雪地里的狐狸${size.n} --ar 16:9`)
    const cat = await publish(author, `窗台上的橘猫${size.n} --ar 9:16`)
    await publish(viewer, `海边的灯塔${size.n}`)

    const page = await signedIn(browser, viewer, size.phone)
    await page.goto(`${server.url}/gallery`)
    const items = page.getByTestId('gallery-item')
    await expect(items.first()).toBeVisible()
    await snap(page, info, `gallery (${size.name})`, 'gallery-')
    // the toolbar, the likes and the cards pass axe (no critical or serious finding)
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze()
    expect(
      axe.violations
        .filter((v) => v.impact === 'critical' || v.impact === 'serious')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' >>> ')).join(', ')}`)
    ).toEqual([])

    // search the prompt
    const search = page.getByRole('searchbox', { name: '搜索提示词' })
    await search.fill(`狐狸${size.n}`)
    await search.press('Enter')
    await expect(items).toHaveCount(1)
    await expect(items.first()).toContainText(`雪地里的狐狸${size.n}`)
    await search.fill('')
    await expect(items).not.toHaveCount(1)

    // filter by aspect: the portrait cat only among this run's works
    await page.getByRole('combobox', { name: '画幅' }).selectOption('portrait')
    await expect(items.filter({ hasText: `橘猫${size.n}` })).toHaveCount(1)
    await expect(items.filter({ hasText: `狐狸${size.n}` })).toHaveCount(0)
    await page.getByRole('combobox', { name: '画幅' }).selectOption('')

    // like the fox: the count and the pressed state; 本周最受欢迎 lists it
    const foxItem = items.filter({ hasText: `雪地里的狐狸${size.n}` })
    const like = foxItem.getByTestId('like')
    await expect(like).toHaveAttribute('aria-pressed', 'false')
    await like.click()
    await expect(like).toHaveAttribute('aria-pressed', 'true')
    await expect(like).toHaveText('1')
    await snap(page, info, `liked (${size.name})`, 'gallery-')
    await page.getByRole('button', { name: '本周最受欢迎' }).click()
    await expect(page.getByRole('button', { name: '本周最受欢迎' })).toHaveAttribute('aria-pressed', 'true')
    await expect(items.filter({ hasText: `雪地里的狐狸${size.n}` })).toHaveCount(1)
    await expect(items.filter({ hasText: `橘猫${size.n}` })).toHaveCount(0)
    await snap(page, info, `本周最受欢迎 (${size.name})`, 'gallery-')
    // unlike, back to 0 (the server's count)
    await items
      .filter({ hasText: `雪地里的狐狸${size.n}` })
      .getByTestId('like')
      .click()
    await expect(items.filter({ hasText: `雪地里的狐狸${size.n}` }).getByTestId('like')).toHaveText('0')
    await page.getByRole('button', { name: '最新' }).click()

    // the author's other works, from the lightbox: the cat, not the fox itself, and no phone anywhere
    await foxItem.getByRole('button', { name: /^查看作品/ }).click()
    await page.getByRole('button', { name: '作者的其他作品' }).click()
    await expect(page.getByTestId('author-filter')).toBeVisible()
    await expect(items).toHaveCount(1)
    await expect(items.first()).toContainText(`橘猫${size.n}`)
    await expect(page.getByRole('main')).not.toContainText(`1370013780${size.n}`)
    await snap(page, info, `author's other works (${size.name})`, 'gallery-')
    await page.getByRole('button', { name: '返回全部作品' }).click()
    await expect(page.getByTestId('author-filter')).toBeHidden()

    // the owner unpublishes the cat: gone from the owner's gallery at once, and from the viewer's on reload
    const owner = await signedIn(browser, author, size.phone)
    await owner.goto(`${server.url}/gallery`)
    const catItem = owner.getByTestId('gallery-item').filter({ hasText: `橘猫${size.n}` })
    await catItem.getByRole('button', { name: /^查看作品/ }).click()
    await owner.getByRole('button', { name: '从画廊撤下' }).click()
    await expect(owner.getByText('已从画廊撤下')).toBeVisible()
    await expect(catItem).toHaveCount(0)
    await page.getByRole('button', { name: '刷新' }).click()
    await expect(items.filter({ hasText: `橘猫${size.n}` })).toHaveCount(0)
    await expect(items.filter({ hasText: `狐狸${size.n}` })).toHaveCount(1)
    expect(cat).not.toBe(fox)
    await owner.context().close()
    await page.context().close()
  })
}
