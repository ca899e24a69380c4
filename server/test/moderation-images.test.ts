import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { files, moderationLog } from '../src/db/schema.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import { IMAGE_BLOCKED } from '../src/modules/painting/transitions.js'
import { type FakeModeration, moderationEnv, startFakeModeration } from './fakes/moderation.js'
import { usePaintingHarness } from './helpers/painting.js'

// Images before others can see them (issue 18): a painting's picture before it is stored (so before
// it can reach the gallery) and an upload before it is kept, by the providers that read images
// (Tencent IMS and OpenAI omni-moderation, each against its signature-checking fake).
let fake: FakeModeration
beforeAll(async () => {
  fake = await startFakeModeration()
})
afterAll(async () => {
  await fake.close()
})

type Ctx = ReturnType<typeof usePaintingHarness>

function helpers(ctx: Ctx) {
  const logRows = () => ctx.db.db.select().from(moderationLog).orderBy(moderationLog.id)
  async function imagine(token: string) {
    const res = await ctx.h.post<WireTask>('/api/v1/painting/imagine', { prompt: '一只在雪地里的狐狸 --ar 1:1' }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    return ctx.h.settled(token, res.body.data.taskId)
  }
  async function upload(token: string, bytes: Buffer) {
    const t = await ctx.h.post<{ uploadUrl: string; headers: Record<string, string>; key: string }>(
      '/api/v1/oss/upload/getOssSTS',
      { fileName: 'photo.png', contentType: 'image/png', size: bytes.byteLength },
      token
    )
    expect(t.body.code, JSON.stringify(t.body)).toBe(2000)
    const put = await ctx.h.app.request(t.body.data.uploadUrl, { method: 'PUT', body: bytes as unknown as RequestInit['body'], headers: t.body.data.headers })
    expect(put.status).toBe(200)
    return { key: t.body.data.key, complete: await ctx.h.post('/api/v1/oss/upload/complete', { key: t.body.data.key }, token) }
  }
  const onDisk = () => {
    try {
      return (readdirSync(join(ctx.h.config.dataDir, 'files'), { recursive: true }) as string[]).filter((f) => /\.[a-z0-9]+$/.test(f))
    } catch {
      return []
    }
  }
  return { logRows, imagine, upload, onDisk }
}

const photo = () =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 60 } } })
    .png()
    .toBuffer()

describe('images checked by Tencent IMS', () => {
  const ctx = usePaintingHarness(() => ({
    env: moderationEnv(fake, 'words,tencent', { MODERATION_WORDS_FILE: join(__dirname, 'fixtures/moderation-words.txt') })
  }))
  const h = helpers(ctx)
  beforeEach(async () => {
    fake.image = 'pass'
    fake.down = false
    fake.requests.length = 0
    await ctx.db.db.delete(moderationLog)
  })

  it('a painting whose picture is blocked ends FAILURE, refunded, stores nothing and cannot be published', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    fake.image = 'block'
    const task = await h.imagine(token)
    expect(task).toMatchObject({ status: 'FAILURE', failReason: IMAGE_BLOCKED, imageUrl: null })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect(h.onDisk().filter((f) => f.startsWith('painting'))).toEqual([])
    const publish = await ctx.h.post('/api/v1/gallery/publish', { taskId: task.taskId }, token)
    expect(publish.body).toMatchObject({ code: expect.not.stringMatching(/^2000$/) })
    expect((publish.body as { code: number }).code).not.toBe(2000)

    // The fake saw the real picture, signed for the ims service.
    const seen = fake.requests.filter((r) => r.image)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ service: 'tencent', signatureOk: true })
    expect((await sharp(seen[0]!.image!).metadata()).format).toBe('png')
    const [row] = await h.logRows()
    expect(row).toMatchObject({ kind: 'image', source: 'painting.mj', accountId, verdict: 'block', provider: 'tencent', rule: 'Porn' })
    expect(row?.excerpt).toMatch(/^\[图片 image\/png, \d+ 字节\]$/)
    expect(row?.contentHash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('a picture kept for review is stored and shown, and logged for the operator', async () => {
    const { token } = await ctx.h.login()
    fake.image = 'review'
    const task = await h.imagine(token)
    expect(task.status).toBe('SUCCESS')
    expect(task.imageUrl).not.toBeNull()
    expect((await h.logRows()).map((r) => [r.kind, r.verdict])).toEqual([['image', 'review']])
  })

  it('images fail closed by default: with the service down the painting is refused and refunded', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    fake.down = true
    const task = await h.imagine(token)
    expect(task).toMatchObject({ status: 'FAILURE', failReason: IMAGE_BLOCKED })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    // (The prompt, checked with the service down too, went on for review: chat and prompts fail open.)
    const [row] = (await h.logRows()).filter((r) => r.kind === 'image')
    expect(row).toMatchObject({ kind: 'image', verdict: 'block', provider: null })
    expect(row?.failure).toMatch(/^tencent: HTTP 503/)
  })

  it('an upload the service blocks is refused with 42200001 and leaves nothing behind', async () => {
    const { token } = await ctx.h.login()
    fake.image = 'block'
    const before = h.onDisk()
    const { complete } = await h.upload(token, await photo())
    expect(complete.body).toEqual({ code: 42200001, message: '图片包含违规信息，请修改后重试', data: null })
    expect(h.onDisk()).toEqual(before)
    expect(await ctx.db.db.select().from(files)).toEqual([])
    expect((await h.logRows()).map((r) => [r.source, r.verdict])).toEqual([['upload.image', 'block']])

    fake.image = 'pass'
    const ok = await h.upload(token, await photo())
    expect(ok.complete.body).toMatchObject({ code: 2000 })
  })
})

describe('images checked by OpenAI omni-moderation, the fail mode set open', () => {
  const ctx = usePaintingHarness(() => ({ env: moderationEnv(fake, 'openai', { MODERATION_FAIL_MODE: 'image=open' }) }))
  const h = helpers(ctx)
  beforeEach(async () => {
    fake.image = 'pass'
    fake.down = false
    fake.requests.length = 0
    await ctx.db.db.delete(moderationLog)
  })

  it('sends the picture as an image_url data: URL and refuses a flagged one', async () => {
    const { token } = await ctx.h.login()
    fake.image = 'block'
    const task = await h.imagine(token)
    expect(task).toMatchObject({ status: 'FAILURE', failReason: IMAGE_BLOCKED })
    const seen = fake.requests.filter((r) => r.image)
    expect(seen.map((r) => [r.service, r.signatureOk])).toEqual([['openai', true]])
    expect((await h.logRows()).map((r) => [r.provider, r.rule])).toEqual([['openai', 'violence']])
  })

  it('with the fail mode open, an outage lets the picture through and logs it for review', async () => {
    const { token } = await ctx.h.login()
    fake.down = true
    const task = await h.imagine(token)
    expect(task.status).toBe('SUCCESS')
    expect((await h.logRows()).map((r) => [r.kind, r.verdict, r.failure?.slice(0, 12)])).toEqual([
      ['prompt', 'review', 'openai: HTTP'],
      ['image', 'review', 'openai: HTTP']
    ])
  })
})

describe('images with only the word list', () => {
  const ctx = usePaintingHarness(() => ({ env: moderationEnv(fake, 'words', { MODERATION_WORDS_FILE: join(__dirname, 'fixtures/moderation-words.txt') }) }))
  const h = helpers(ctx)

  it('are not sent anywhere (the list reads no pictures) and are stored as before', async () => {
    fake.requests.length = 0
    const { token } = await ctx.h.login()
    expect((await h.imagine(token)).status).toBe('SUCCESS')
    expect(fake.requests).toEqual([])
  })
})
