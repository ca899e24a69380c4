import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ATTACHMENT_UPLOAD_PATH } from '../src/modules/chat/attachments.js'
import type { Attachment } from '../src/modules/chat/wire.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

// Issue 20: what an OpenAI-compatible upstream receives for a message with files, byte for byte
// (as JSON): the documents' text in the text part, each image an `image_url` content part.

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

// gpt-4o-mini: a vision model by its name (models.ts looksVisual).
const ctx = useHarness(() => ({ env: fakeEnv(fake, { OPENAI_MODELS: 'fake-gpt,gpt-4o-mini', START_TOKENS: '100000' }) }))
const chat = chatHelpers(ctx)

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#ff8800' } })
    .png()
    .toBuffer()

const text = (s: string) => new TextEncoder().encode(s)

async function uploaded(token: string, bytes: Uint8Array, name: string): Promise<Attachment> {
  const res = await ctx.h.request<Attachment>(`${ATTACHMENT_UPLOAD_PATH}?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream' },
    body: bytes as unknown as RequestInit['body']
  })
  expect(res.body).toMatchObject({ code: 2000 })
  return res.body.data
}

describe('the upstream wire', () => {
  it('the whole request the upstream receives: a CSV’s text in the text part, then the image as an image_url part', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'gpt-4o-mini' })
    const table = await uploaded(token, text('城市,人口\n北京,2184\n上海,2487\n'), 'cities.csv')
    expect(table).toMatchObject({ kind: 'document', contentType: 'text/plain', chars: 21 })
    const image = await uploaded(token, await png(64, 48), 'map.png')
    fake.script({ kind: 'stream', chunks: ['好'], usage: null })
    const sent = await chat.send(token, topic.topicId, '对比一下', { attachmentIds: [table.attachmentId, image.attachmentId] })
    expect(sent.body.code).toBe(2000)
    await ctx.h.chat.idle()
    const request = fake.requests.at(-1)!
    const body = request.body as unknown as { messages: { content: { image_url?: { url: string } }[] }[] }
    const url = body.messages.at(-1)!.content[1]!.image_url!.url
    expect(url).toMatch(/^data:image\/jpeg;base64,[A-Za-z0-9+/]+=*$/)
    // Exactly this, nothing more: the OpenAI chat completions protocol's content parts.
    expect(request.body).toEqual({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.7,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '对比一下\n\n【附件：cities.csv】\n城市,人口\n北京,2184\n上海,2487\n【附件结束】' },
            { type: 'image_url', image_url: { url } }
          ]
        }
      ]
    })
    expect((await sharp(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')).metadata()).width).toBe(64)
  })
})
