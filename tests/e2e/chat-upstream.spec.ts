import { expect, test, type Page } from '@playwright/test'
import { FAKE_MODEL, startFakeOpenAi, type FakeOpenAi } from '../../server/test/fakes/openai'
import { loginAs, shot } from './helpers'
import { startServer, type LingxiServer } from './server'

// The OpenAI-compatible provider in the browser, against a fake upstream on loopback that speaks
// the real streaming protocol; and the heavy markdown parts (KaTeX, mermaid) with nothing loaded
// from any other host.

let fake: FakeOpenAi
let server: LingxiServer
test.beforeAll(async () => {
  fake = await startFakeOpenAi()
  server = await startServer({ OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: fake.apiKey, OPENAI_MODELS: FAKE_MODEL })
})
test.afterAll(async () => {
  await server?.stop()
  await fake?.close()
})

const lastReply = (page: Page) => page.locator('[data-testid=message][data-role=assistant]').last()

async function send(page: Page, text: string) {
  await page.getByTestId('composer').fill(text)
  await page.getByTestId('composer').press('Enter')
}

test('a reply from an OpenAI-compatible upstream streams in, with its reasoning apart', async ({ page }, info) => {
  fake.script({
    kind: 'stream',
    reasoning: ['先想一想', '……'],
    chunks: ['## 答案\n\n', '这是来自', '**上游模型**', '的回答。'],
    usage: { prompt_tokens: 20, completion_tokens: 12 },
    delayMs: 30
  })
  await page.goto(server.url + '/chat')
  await loginAs(page, server, '13700137100')
  // the model is chosen before the first message: that starts the conversation with it
  await page.getByRole('button', { name: '对话设置' }).first().click()
  await page.getByRole('combobox').selectOption(FAKE_MODEL)
  await expect(page.getByRole('slider')).toBeVisible()
  await page.keyboard.press('Escape')
  await send(page, '上游你好')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete')
  await expect(lastReply(page).getByRole('heading', { name: '答案' })).toBeVisible()
  await expect(lastReply(page).locator('strong')).toHaveText('上游模型')
  await expect(lastReply(page).getByText('思考过程')).toBeVisible()
  await shot(page, info, 'upstream reply with reasoning')

  const sent = fake.requests.at(-1)!
  expect(sent.headers.authorization).toBe(`Bearer ${fake.apiKey}`)
  expect(sent.body).toMatchObject({ model: FAKE_MODEL, stream: true, stream_options: { include_usage: true } })
  expect(sent.body.messages.at(-1)).toEqual({ role: 'user', content: '上游你好' })

  // an upstream failure ends the reply as an error the reader can retry
  fake.script({ kind: 'http-error', status: 500, body: { error: { message: 'boom', type: 'server_error' } } })
  await send(page, '再来一次')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'error')
  await expect(lastReply(page)).toContainText('OpenAI 兼容接口')
  fake.script({ kind: 'stream', chunks: ['恢复正常了'], usage: { prompt_tokens: 5, completion_tokens: 3 } })
  await lastReply(page).getByRole('button', { name: '重试' }).click()
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete')
  await expect(lastReply(page)).toContainText('恢复正常了')
})

test('maths and diagrams render with KaTeX and mermaid, and nothing comes from another host', async ({ page }, info) => {
  const foreign: string[] = []
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) foreign.push(r.url())
  })
  await page.goto(server.url + '/chat')
  await loginAs(page, server, '13700137101')
  await send(page, '画一个流程图，并写出勾股定理的公式')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(lastReply(page).locator('.katex').first()).toBeVisible()
  await expect(lastReply(page).locator('svg[id^="mermaid"], svg[aria-roledescription]').first()).toBeVisible({ timeout: 20_000 })
  await shot(page, info, 'katex and mermaid')
  expect(foreign).toEqual([])
})
