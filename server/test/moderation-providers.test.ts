import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { configuredSecrets, loadConfig } from '../src/config.js'
import { createAliyunModeration } from '../src/moderation/aliyun.js'
import { providersOf } from '../src/moderation/index.js'
import { createOpenAiModeration } from '../src/moderation/openai.js'
import { createModerator } from '../src/moderation/pipeline.js'
import { DEFAULT_FAIL_MODES } from '../src/moderation/settings.js'
import { createTencentModeration } from '../src/moderation/tencent.js'
import { ModerationUnavailable, type TextProvider } from '../src/moderation/types.js'
import { type FakeModeration, moderationEnv, startFakeModeration } from './fakes/moderation.js'
import { memoryLogger } from './helpers/harness.js'

let fake: FakeModeration
beforeAll(async () => {
  fake = await startFakeModeration()
})
afterAll(async () => {
  await fake.close()
})
beforeEach(() => {
  fake.block = ['违禁测试词']
  fake.review = ['灰色测试词']
  fake.down = false
  fake.requests.length = 0
})

const timeoutMs = 2000
const providers: Record<string, (secret?: string) => TextProvider> = {
  aliyun: (secret) => createAliyunModeration({ ...fake.aliyun, accessKeySecret: secret ?? fake.aliyun.accessKeySecret, timeoutMs }),
  tencent: (secret) => createTencentModeration({ ...fake.tencent, secretKey: secret ?? fake.tencent.secretKey, region: 'ap-guangzhou', timeoutMs }),
  openai: (secret) => createOpenAiModeration({ ...fake.openai, apiKey: secret ?? fake.openai.apiKey, model: 'omni-moderation-latest', timeoutMs })
}

describe.each(Object.keys(providers))('%s', (name) => {
  const make = providers[name]!

  it('signs its requests as the service checks them, and maps the answer to a verdict', async () => {
    const provider = make()
    expect(await provider.checkText('今天天气不错', 'chat')).toEqual({ verdict: 'pass' })
    expect(await provider.checkText('这里有违禁测试词', 'reply')).toMatchObject({ verdict: 'block', rule: expect.any(String) })
    // OpenAI's moderations only flag: there is no review there.
    expect((await provider.checkText('灰色测试词', 'prompt')).verdict).toBe(name === 'openai' ? 'block' : 'review')
    expect(fake.requests.map((r) => [r.service, r.signatureOk])).toEqual([
      [name, true],
      [name, true],
      [name, true]
    ])
    expect(fake.requests[1]!.text).toBe('这里有违禁测试词')
  })

  it('a wrong secret is refused by the service, and the provider counts as unable to answer', async () => {
    await expect(make('not-the-secret').checkText('你好', 'chat')).rejects.toBeInstanceOf(ModerationUnavailable)
    expect(fake.requests).toMatchObject([{ service: name, signatureOk: false }])
  })

  it('an outage follows the fail mode of the kind: chat open with review, images closed', async () => {
    fake.down = true
    const logged: string[] = []
    const moderator = createModerator({
      providers: [make()],
      failModes: DEFAULT_FAIL_MODES,
      windowChars: 100,
      log: { write: async (e) => void logged.push(`${e.kind}:${e.result.verdict}`), purge: async () => 0 },
      logger: memoryLogger()
    })
    expect(await moderator.check({ kind: 'chat', text: '你好', source: 'chat.message' })).toMatchObject({
      verdict: 'review',
      failed: expect.stringContaining(name)
    })
    expect(await moderator.check({ kind: 'image', text: 'a cat', source: 'gallery.publish' })).toMatchObject({ verdict: 'block' })
    expect(logged).toEqual(['chat:review', 'image:block'])
  })
})

it('Aliyun picks the TextModerationPlus scene by kind', async () => {
  const aliyun = providers.aliyun!()
  for (const kind of ['chat', 'name', 'reply'] as const) await aliyun.checkText('你好', kind)
  expect(fake.requests.map((r) => r.scene)).toEqual(['llm_query_moderation', 'nickname_detection_pro', 'llm_response_moderation'])
})

it('a provider that never answers counts as down after MODERATION_TIMEOUT_MS', async () => {
  // A closed port: nothing listens there.
  const dead = createOpenAiModeration({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', model: 'm', timeoutMs: 500 })
  await expect(dead.checkText('你好', 'chat')).rejects.toBeInstanceOf(ModerationUnavailable)
})

it('the configuration stacks the providers it names, in order', () => {
  const config = loadConfig(moderationEnv(fake, 'tencent,aliyun,openai'))
  expect(providersOf(config.moderation).map((p) => p.name)).toEqual(['tencent', 'aliyun', 'openai'])
  expect(config.moderation.aliyun?.endpoint).toBe(fake.url)
  // The logger scrubs them like every other secret.
  expect(configuredSecrets(config)).toEqual(expect.arrayContaining([fake.aliyun.accessKeySecret, fake.tencent.secretKey, fake.openai.apiKey]))
})
