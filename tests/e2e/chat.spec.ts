import { expect, test, type Page } from '@playwright/test'
import { addSession, apiLogin, loginAs, sessionToken, shot } from './helpers'
import { startServer, type LingxiServer } from './server'

// Chat with the offline demo model on the host page: stream, stop, regenerate, topics, refresh
// mid-answer, the phone layout, and a chat started from a role.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

const messages = (page: Page) => page.getByTestId('message')
const lastReply = (page: Page) => page.locator('[data-testid=message][data-role=assistant]').last()

async function send(page: Page, text: string) {
  const composer = page.getByTestId('composer')
  await composer.fill(text)
  await composer.press('Enter')
}

test('send, stream, stop, regenerate, and manage topics', async ({ page }, info) => {
  await page.goto(server.url + '/chat')
  await loginAs(page, server, '13800138100')
  await expect(page).toHaveURL(/\/chat$/)

  // Shift+Enter is a newline, Enter sends
  const composer = page.getByTestId('composer')
  await composer.fill('第一行')
  await composer.press('Shift+Enter')
  await composer.pressSequentially('第二行')
  await expect(composer).toHaveValue('第一行\n第二行')
  await composer.press('Enter')
  await expect(messages(page).first()).toContainText('第一行')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'streaming')
  await shot(page, info, 'streaming')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  // the demo model says what it is, in rendered markdown: a heading, a table and a code block
  await expect(lastReply(page)).toContainText('演示')
  await expect(lastReply(page).locator('table')).toHaveCount(1)
  await expect(lastReply(page).locator('pre code')).not.toHaveCount(0)
  await shot(page, info, 'complete answer')

  // stop mid-answer
  await send(page, '请详细解释一下量子计算')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'streaming')
  await page.getByRole('button', { name: '停止生成' }).click()
  await expect(lastReply(page)).toHaveAttribute('data-status', 'interrput')
  await expect(lastReply(page)).toContainText('已中断')

  // regenerate the last answer
  await lastReply(page).hover()
  await lastReply(page).getByRole('button', { name: '重新生成' }).click()
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(messages(page)).toHaveCount(4)

  // topics: rename, pin, new, delete
  const topics = page.getByRole('navigation', { name: '话题列表' })
  const first = topics.getByTestId('topic-item').first()
  await first.hover()
  await first.getByRole('button', { name: '重命名' }).click()
  const name = topics.getByRole('textbox', { name: '话题名称' })
  await name.fill('量子计算笔记')
  await name.press('Enter')
  await expect(topics.getByTestId('topic-item').first()).toContainText('量子计算笔记')
  await topics.getByTestId('topic-item').first().hover()
  await topics.getByTestId('topic-item').first().getByRole('button', { name: '置顶' }).click()
  await expect(topics.getByRole('heading', { name: '置顶' })).toBeVisible()

  await page.getByRole('button', { name: '新建对话' }).click()
  await send(page, '再开一个话题')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(topics.getByTestId('topic-item')).toHaveCount(2)
  await shot(page, info, 'two topics, one pinned')

  const other = topics.getByTestId('topic-item').filter({ hasNotText: '量子计算笔记' })
  await other.hover()
  await other.getByRole('button', { name: '删除话题' }).click()
  await page.getByRole('dialog', { name: '删除话题' }).getByRole('button', { name: '删除' }).click()
  await expect(topics.getByTestId('topic-item')).toHaveCount(1)
})

test('a page refreshed mid-answer sees the same answer continue', async ({ page }) => {
  await page.goto(server.url + '/chat')
  await loginAs(page, server, '13800138101')
  await send(page, '写一段关于长江的介绍')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'streaming')
  await expect.poll(async () => ((await lastReply(page).textContent()) ?? '').length).toBeGreaterThan(20)
  await page.reload()
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  // biome-ignore lint/performance/useDomNodeTextContent: what the user sees is compared, without the hidden copy-button labels and KaTeX MathML textContent has
  const shown = (await lastReply(page).innerText()).trim()

  // what the page shows is what the server saved: no duplication, nothing lost
  const token = await sessionToken(page, server)
  const post = (path: string, body: object) =>
    page.request.post(server.url + '/api/v1/ai-chat' + path, { data: body, headers: { Authorization: `Bearer ${token}` } }).then((r) => r.json())
  const [topic] = (await post('/topic/list', {})).data
  const saved = (await post('/topic/messages', { topicId: topic.topicId, pageNum: 1, pageSize: 10 })).data.list[0]
  expect(saved.status).toBe('complete')
  const firstLine = saved.content
    .split('\n')
    .find((l: string) => l.trim() && !l.startsWith('#'))!
    .replace(/[*_`>]/g, '')
    .trim()
  expect(shown).toContain(firstLine.slice(0, 10))
  expect(shown.split(firstLine.slice(0, 10)).length - 1).toBe(1)
})

test('a role from the repository starts a chat in its voice', async ({ page }, info) => {
  await page.goto(server.url + '/role')
  await loginAs(page, server, '13800138102')
  const cards = page.getByTestId('role-card')
  await expect(cards.first()).toBeVisible()
  expect(await cards.count()).toBeGreaterThanOrEqual(12)
  await shot(page, info, 'role repository')
  const roleName = ((await cards.first().getByRole('heading').textContent()) ?? '').trim()
  await cards.first().getByRole('button', { name: '开始对话' }).click()
  await expect(page).toHaveURL(/\/chat/)
  await expect(page.getByRole('navigation', { name: '话题列表' }).getByTestId('topic-item').first()).toContainText(roleName)
  await expect(lastReply(page)).toBeVisible() // the role's welcome message
  await send(page, '你好')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
})

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('the header carries the chat buttons; topics open in a drawer', async ({ page }, info) => {
    const token = await apiLogin(server, '13800138103')
    await page.goto(server.url + '/')
    await addSession(page.context(), server, token)
    await page.goto(server.url + '/chat')
    const header = page.getByRole('banner')
    for (const label of ['话题列表', '对话设置', '清空对话', '回到底部']) await expect(header.getByRole('button', { name: label })).toBeVisible()
    await send(page, '手机上也能聊天吗')
    await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
    await shot(page, info, 'chat on a phone')
    await header.getByRole('button', { name: '话题列表' }).click()
    await expect(page.getByRole('dialog', { name: '话题列表' })).toBeVisible()
    await shot(page, info, 'topic drawer on a phone')
    await page.keyboard.press('Escape')
    await header.getByRole('button', { name: '对话设置' }).click()
    await expect(page.getByRole('dialog', { name: '对话设置' })).toBeVisible()
    await page.keyboard.press('Escape')
    // no page scroll: the message list scrolls inside the widget
    expect(await page.evaluate(() => document.scrollingElement!.scrollHeight <= innerHeight + 1)).toBe(true)
  })
})
