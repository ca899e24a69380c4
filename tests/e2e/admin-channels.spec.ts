import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test, type TestInfo } from '@playwright/test'
import { FAKE_MODEL, type FakeOpenAi, startFakeOpenAi } from '../../server/test/fakes/openai'
import { apiLogin, loginAs } from './helpers'
import { type LingxiServer, startServer } from './server'

// The console's 渠道 and 模型倍率 tabs as an operator uses them, at desktop and phone size: add an
// upstream channel (its key typed once, shown as its last 4 characters after), see a user's reply go
// through it and its health in the table, then set the model's price ratio and see users' model list
// and the balance log say it.

const OPERATORS = { desktop: '13900139101', phone: '13900139102' }
// Another operator each for the painting channel: one phone may ask for an SMS code once a minute.
const PAINTERS = { desktop: '13900139103', phone: '13900139104' }
const KEY = 'sk-e2e-channel-key-7788'
let fake: FakeOpenAi
let server: LingxiServer

test.beforeAll(async () => {
  fake = await startFakeOpenAi({ apiKey: KEY })
  fake.script({ kind: 'stream', chunks: ['来自', '渠道'], usage: { prompt_tokens: 10, completion_tokens: 5 } })
  server = await startServer({
    ADMIN_PHONES: [...Object.values(OPERATORS), ...Object.values(PAINTERS)].join(','),
    CHANNEL_SECRET_KEY: Buffer.alloc(32, 9).toString('base64')
  })
})
test.afterAll(async () => {
  await server?.stop()
  await fake?.close()
})

async function post(path: string, body: object, token: string) {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body)
  })
  return (await res.json()) as { code: number; message: string; data: any }
}

async function axe(page: Page, where: string) {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  const bad = violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  expect(bad, where).toEqual([])
}

async function shots(page: Page, info: TestInfo, name: string) {
  const body = await page.screenshot(process.env.LX_SHOTS ? { path: `${process.env.LX_SHOTS}/admin-${name}.png`, fullPage: true } : { fullPage: true })
  await info.attach(name, { body, contentType: 'image/png' })
}

/** A user's reply on the fake model, through the API; answers what it charged. */
async function reply(phone: string, model: string): Promise<number> {
  const token = await apiLogin(server, phone)
  const topic = await post('/api/v1/ai-chat/topic/create', { model }, token)
  expect(topic.code, topic.message).toBe(2000)
  const sent = await post('/api/v1/ai-chat/topic/message/send', { topicId: topic.data.topicId, content: '你好' }, token)
  expect(sent.code, sent.message).toBe(2000)
  for (let i = 0; i < 100; i++) {
    const answer = (await post('/api/v1/ai-chat/topic/message/get', { messageId: sent.data.replyId }, token)).data
    if (answer && answer.status !== 'streaming') {
      expect(answer.status).toBe('complete')
      return answer.usage.charged
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('the reply did not end')
}

for (const size of ['desktop', 'phone'] as const) {
  test.describe(size, () => {
    test.use(size === 'phone' ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } })

    test('an operator adds a channel, sees its health, and prices its model', async ({ page }, info) => {
      const name = `主渠道${size}`
      // A model of its own per size: the other size's channel never takes its replies.
      const MODEL = `${FAKE_MODEL}-${size}`
      await page.goto(`${server.url}/admin?tab=channels`)
      await loginAs(page, server, OPERATORS[size])
      const tabs = page.getByRole('tablist', { name: '运营后台' })
      await expect(tabs.getByRole('tab', { name: '渠道' })).toHaveAttribute('aria-selected', 'true')

      // A new channel: the key is typed once.
      await page.getByRole('button', { name: '新建渠道' }).click()
      const dialog = page.getByRole('dialog', { name: '新建渠道' })
      await dialog.getByLabel('名称').fill(name)
      await dialog.getByLabel('接口地址').fill('ftp://nope')
      await dialog.getByRole('button', { name: '保存' }).click()
      await expect(dialog.getByRole('alert')).toHaveText('接口地址必须是 http:// 或 https:// 开头的网址')
      await dialog.getByLabel('接口地址').fill(fake.url)
      await dialog.getByLabel('密钥').fill(KEY)
      await dialog.getByLabel('模型').fill(MODEL)
      await dialog.getByLabel('优先级').fill('5')
      await axe(page, 'channel dialog')
      await dialog.getByRole('button', { name: '保存' }).click()
      await expect(dialog).toBeHidden()
      const row = page.getByRole('region', { name: '上游渠道' }).getByTestId('admin-row').filter({ hasText: name })
      await expect(row).toContainText('…7788')
      await expect(row).toContainText(MODEL)
      expect(await page.content()).not.toContain(KEY)

      // A user's reply goes through it: the table shows the call.
      await reply(size === 'desktop' ? '13700139101' : '13700139102', MODEL)
      await page.reload()
      await expect(row).toContainText('正常')
      await expect(row).toContainText(/错误率 0%/)
      await shots(page, info, `${size}-channels`)
      await axe(page, 'channels')

      // 模型倍率: ×2 in, ×3 out.
      await tabs.getByRole('tab', { name: '模型倍率' }).click()
      await expect(page).toHaveURL(/\/admin\?tab=prices$/)
      const model = page.getByRole('region', { name: '模型倍率' }).getByTestId('admin-row').filter({ hasText: MODEL })
      await model.getByRole('button', { name: `修改 ${MODEL} 的倍率` }).click()
      const price = page.getByRole('dialog', { name: `修改倍率：${MODEL}` })
      await price.getByLabel('输入倍率').fill('2')
      await price.getByLabel('输出倍率').fill('3')
      await axe(page, 'price dialog')
      await price.getByRole('button', { name: '保存' }).click()
      await expect(price).toBeHidden()
      await expect(model).toContainText('×2')
      await expect(model).toContainText('×3')
      await expect(model).toContainText('控制台')
      await shots(page, info, `${size}-prices`)
      await axe(page, 'prices')

      // Users' model list says it; a reply costs 10 × 2 + 5 × 3.
      const config = (await (await fetch(`${server.url}/config/chatConfig.json`)).json()) as { models: { id: string; price: unknown }[] }
      expect(config.models.find((m) => m.id === MODEL)?.price).toEqual({ input: 2, output: 3 })
      expect(await reply(size === 'desktop' ? '13700139103' : '13700139104', MODEL)).toBe(35)
    })

    test('an operator adds a painting channel and sees it listed with its kind', async ({ page }, info) => {
      const name = `绘画渠道${size}`
      await page.goto(`${server.url}/admin?tab=channels`)
      await loginAs(page, server, PAINTERS[size])
      await page.getByRole('button', { name: '新建渠道' }).click()
      const dialog = page.getByRole('dialog', { name: '新建渠道' })
      await dialog.getByLabel('类型').selectOption({ label: 'Midjourney' })
      // Painting upstreams serve no model list; their secret is optional.
      await expect(dialog.getByLabel('模型')).toHaveCount(0)
      await dialog.getByLabel('名称').fill(name)
      await dialog.getByLabel('接口地址').fill('http://127.0.0.1:9/mj')
      await dialog.getByLabel('密钥').fill('mj-secret-e2e-4455')
      await axe(page, 'painting channel dialog')
      await dialog.getByRole('button', { name: '保存' }).click()
      await expect(dialog).toBeHidden()
      const row = page.getByRole('region', { name: '上游渠道' }).getByTestId('admin-row').filter({ hasText: name })
      await expect(row).toContainText('Midjourney')
      await expect(row).toContainText('…4455')
      await expect(row).toContainText('http://127.0.0.1:9')
      await expect(row).not.toContainText('/mj')
      expect(await page.content()).not.toContain('mj-secret-e2e-4455')
      await shots(page, info, `${size}-painting-channel`)
      await axe(page, 'channels with a painting channel')
    })
  })
}
