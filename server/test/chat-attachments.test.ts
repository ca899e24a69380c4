import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import JSZip from 'jszip'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatAttachments } from '../src/db/schema.js'
import { ConfigError, loadConfig } from '../src/config.js'
import { ATTACHMENT_UPLOAD_PATH, NO_VISION, sweepAttachments } from '../src/modules/chat/attachments.js'
import { ACTIVE_CONTENT, extractText, sniff, UNSUPPORTED } from '../src/modules/chat/attachments-extract.js'
import type { Attachment, Message } from '../src/modules/chat/wire.js'
import { countTokens, imageTokens } from '../src/replies/context.js'
import { looksVisual, resolveChatConfig } from '../src/replies/models.js'
import { createLocalStorage } from '../src/storage/local.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

// fake-gpt: text only; gpt-4o-mini: a vision model by its name (models.ts looksVisual).
const ctx = useHarness(() => ({ env: fakeEnv(fake, { OPENAI_MODELS: 'fake-gpt,gpt-4o-mini', START_TOKENS: '100000' }) }))
const chat = chatHelpers(ctx)

const png = (width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: '#ff8800' } })
    .png()
    .toBuffer()

/** A small valid PDF, one text line per page (pdf.js reads it as a real one). */
function pdf(pages: string[]): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`
  ]
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>')
  pages.forEach((text, i) => {
    const stream = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`)
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`)
  })
  let out = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((o, i) => {
    offsets.push(out.length)
    out += `${i + 1} 0 obj\n${o}\nendobj\n`
  })
  const xref = out.length
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, 'latin1')
}

async function docx(paragraphs: string[]): Promise<Uint8Array> {
  const zip = new JSZip()
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
  )
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'
  )
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs
      .map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`)
      .join('')}</w:body></w:document>`
  )
  return zip.generateAsync({ type: 'uint8array' })
}

const text = (s: string) => new TextEncoder().encode(s)

function upload(token: string, bytes: Uint8Array, name: string, headers: Record<string, string> = {}) {
  return ctx.h.request<Attachment>(`${ATTACHMENT_UPLOAD_PATH}?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream', ...headers },
    body: bytes as unknown as RequestInit['body']
  })
}

async function uploaded(token: string, bytes: Uint8Array, name: string): Promise<Attachment> {
  const res = await upload(token, bytes, name)
  expect(res.body).toMatchObject({ code: 2000 })
  return res.body.data
}

const fetchFile = (url: string, token?: string) => ctx.h.app.request(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} })

const rowsOf = (accountId: string) => ctx.db.db.select().from(chatAttachments).where(eq(chatAttachments.accountId, accountId))

async function messages(token: string, topicId: string): Promise<Message[]> {
  const res = await chat.post<{ list: Message[] }>('topic/messages', { topicId, pageNum: 1, pageSize: 20 }, token)
  expect(res.body.code).toBe(2000)
  return res.body.data.list
}

describe('sniffing and limits', () => {
  it('tells files by their bytes, never their names', async () => {
    const { token } = await chat.user()
    const image = await uploaded(token, await png(), 'notes.txt')
    expect(image).toMatchObject({ kind: 'image', contentType: 'image/png', name: 'notes.txt', width: 64, height: 48, pages: null, chars: null })
    expect(image.thumbUrl).toBe(`${image.url}?thumb=1`)
    const note = await uploaded(token, text('第一行：你好\n第二行'), 'photo.png')
    expect(note).toMatchObject({ kind: 'document', contentType: 'text/plain', name: 'photo.png', chars: 10, thumbUrl: null })
    const paper = await uploaded(token, pdf(['Hello PDF page one', 'Second page']), 'paper.pdf')
    expect(paper).toMatchObject({ kind: 'document', contentType: 'application/pdf', pages: 2, clipped: false })
    const word = await uploaded(token, await docx(['第一段：季度报告', 'Second paragraph']), 'report.docx')
    expect(word).toMatchObject({
      kind: 'document',
      contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      chars: [...'第一段：季度报告\n\nSecond paragraph'].length
    })
  })

  it.each([
    ['a program', new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]), 'run.txt', UNSUPPORTED],
    ['an SVG', text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'cat.png', ACTIVE_CONTENT],
    ['an HTML page', text('<!DOCTYPE html><html><body>hi</body></html>'), 'page.md', ACTIVE_CONTENT],
    ['a script inside text', text('notes\n<script>fetch("/api")</script>'), 'notes.md', ACTIVE_CONTENT],
    [
      'a PNG header on garbage',
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]),
      'x.png',
      '文件不是支持的图片格式（仅支持 PNG、JPEG、WebP、GIF）'
    ],
    ['a ZIP that is no DOCX', new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]), 'x.docx', '文件不是有效的 DOCX 文档（只支持 Word 2007 及以后的 .docx）'],
    ['a broken PDF', text('%PDF-1.4\nnothing here'), 'x.pdf', 'PDF 文件已损坏或已加密，无法读取其中的文字'],
    ['GBK text', new Uint8Array([0xc4, 0xe3, 0xba, 0xc3, 0xca, 0xc0, 0xbd, 0xe7]), 'gbk.txt', UNSUPPORTED],
    ['an empty file', new Uint8Array(), 'empty.txt', '文件是空的']
  ])('refuses %s (40000001), storing nothing', async (_, bytes, name, message) => {
    const { token, accountId } = await chat.user()
    const res = await upload(token, bytes, name)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 40000001, message, data: null })
    expect(await rowsOf(accountId)).toEqual([])
  })

  it('caps images at 10 MB and documents at 20 MB (413), early when the length is declared', async () => {
    const { token, accountId } = await chat.user()
    const big = new Uint8Array(10 * 1024 * 1024 + 1)
    big.set(await png())
    expect((await upload(token, big, 'big.png')).body).toEqual({ code: 40000003, message: '图片不能超过 10 MB', data: null })
    const longText = new Uint8Array(20 * 1024 * 1024 + 1).fill(0x61)
    const res = await upload(token, longText, 'long.txt')
    expect(res.status).toBe(413)
    expect(res.body.message).toBe('文件太大：图片不能超过 10 MB，文档不能超过 20 MB')
    const declared = await upload(token, text('x'), 'x.txt', { 'Content-Length': String(30 * 1024 * 1024) })
    expect(declared.body.code).toBe(40000003)
    expect(await rowsOf(accountId)).toEqual([])
  })

  it('reads its limits from the environment, and refuses to start on a bad one', () => {
    const attachmentLimits = (env: Record<string, string>) => loadConfig(env).chat.attachments
    expect(attachmentLimits({})).toEqual({
      imageBytes: 10 * 1024 * 1024,
      documentBytes: 20 * 1024 * 1024,
      maxPages: 50,
      maxChars: 50_000,
      perMessage: 8,
      perHour: 100
    })
    expect(
      attachmentLimits({ CHAT_ATTACHMENT_IMAGE_MB: '2.5', CHAT_ATTACHMENT_DOCUMENT_MB: '5', CHAT_ATTACHMENT_MAX_PAGES: '3', CHAT_ATTACHMENT_PER_MESSAGE: '2' })
    ).toMatchObject({
      imageBytes: 2.5 * 1024 * 1024,
      documentBytes: 5 * 1024 * 1024,
      maxPages: 3,
      maxChars: 50_000,
      perMessage: 2
    })
    // Each bad value stops the start with a message that names it; images never above what storage/images.ts checks.
    for (const [name, value] of [
      ['CHAT_ATTACHMENT_IMAGE_MB', '50'],
      ['CHAT_ATTACHMENT_DOCUMENT_MB', '0'],
      ['CHAT_ATTACHMENT_MAX_CHARS', 'x'],
      ['CHAT_ATTACHMENT_MAX_PAGES', '0'],
      ['CHAT_ATTACHMENT_PER_MESSAGE', '21'],
      ['CHAT_ATTACHMENT_PER_HOUR', '-1']
    ] as const) {
      expect(() => attachmentLimits({ [name]: value }), name).toThrow(ConfigError)
      expect(() => attachmentLimits({ [name]: value }), name).toThrow(name)
    }
  })

  it('keeps to the page and character limits, and says when it clipped', async () => {
    const three = await extractText('pdf', pdf(['one', 'two', 'three']), { maxPages: 2, maxChars: 1000 })
    expect(three).toEqual({ text: 'one\n\ntwo', pages: 3, clipped: true })
    expect(await extractText('text', text('一二三四五六'), { maxPages: 1, maxChars: 4 })).toEqual({ text: '一二三四', pages: null, clipped: true })
    expect(sniff(text('a,b\n1,2\n'))).toMatchObject({ kind: 'document', format: 'text' })
  })

  it('refuses an upload without a login, storing nothing', async () => {
    const res = await ctx.h.request(`${ATTACHMENT_UPLOAD_PATH}?name=a.txt`, { method: 'POST', body: 'hello' })
    expect(res.status).toBe(401)
    expect(res.body.code).toBe(50011004)
    expect(await ctx.db.db.select().from(chatAttachments)).toEqual([])
  })

  it('limits uploads per hour (429)', async () => {
    const { token } = await chat.user()
    for (let i = 0; i < 100; i++) await ctx.h.kv.incr(`chat-attachments:${(await rowsOfToken(token)).accountId}`, 3_600_000)
    const res = await upload(token, text('x'), 'x.txt')
    expect(res.body.code).toBe(42900001)
  })
})

async function rowsOfToken(token: string) {
  const res = await ctx.h.post<{ accountId: string }>('/api/v1/user/info', {}, { token })
  return { accountId: res.body.data.accountId }
}

describe('serving', () => {
  it('serves the file to its owner with its type, Content-Disposition and nosniff; another account gets 404', async () => {
    const { token } = await chat.user('13800138001')
    const other = await chat.user('13800138002')
    const image = await uploaded(token, await png(), '猫 "cat".png')
    const res = await fetchFile(image.url, token)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    // The name is a label: quotes and control characters are dropped at upload (storage/images.ts cleanName).
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="_ cat.png"; filename*=UTF-8''${encodeURIComponent('猫 cat.png')}`)
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox")
    expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBe(64)
    const thumb = await fetchFile(image.thumbUrl!, token)
    expect(thumb.headers.get('content-type')).toBe('image/webp')

    const note = await uploaded(token, text('hello'), 'a.md')
    const doc = await fetchFile(note.url, token)
    expect(doc.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(doc.headers.get('content-disposition')).toMatch(/^attachment; /)
    expect(await doc.text()).toBe('hello')

    for (const url of [image.url, image.thumbUrl!, note.url]) {
      const refused = await fetchFile(url, other.token)
      expect(refused.status).toBe(404)
      expect(await refused.json()).toEqual({ code: 40400001, message: '附件不存在或已删除', data: null })
    }
    expect((await fetchFile(image.url)).status).toBe(401)
    expect((await fetchFile(`${image.url.slice(0, image.url.lastIndexOf('/'))}/../../topic/list`, token)).status).not.toBe(200)
  })
})

describe('sending', () => {
  it('sends images to a vision model as image_url parts with a data: URL, and counts them', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'gpt-4o-mini' })
    const image = await uploaded(token, await png(3000, 1000), 'wide.png')
    fake.script({ kind: 'stream', chunks: ['一张橙色的图'], usage: null })
    const sent = await chat.send(token, topic.topicId, '这是什么？', { attachmentIds: [image.attachmentId] })
    expect(sent.body.code).toBe(2000)
    await ctx.h.chat.idle()
    const last = (fake.requests.at(-1)!.body.messages as unknown as { role: string; content: unknown }[]).at(-1)!
    expect(last).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '这是什么？' },
        { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/jpeg;base64,/) } }
      ]
    })
    const url = ((last.content as { image_url?: { url: string } }[])[1]!.image_url!.url as string).slice('data:image/jpeg;base64,'.length)
    const meta = await sharp(Buffer.from(url, 'base64')).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 2048, 683])
    // No usage from the upstream: the prompt is counted here, the image as OpenAI counts it.
    const reply = await chat.reply(sent.body.data.replyId)
    expect(reply.promptTokens).toBe((await countTokens('这是什么？')) + 4 + 3 + imageTokens(3000, 1000))
    const [question] = (await messages(token, topic.topicId)).filter((m) => m.role === 'user')
    expect(question!.attachments).toEqual([image])
  })

  it('refuses images for a model that cannot see them, before anything is held or sent', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const image = await uploaded(token, await png(), 'a.png')
    const before = fake.requests.length
    const res = await chat.send(token, topic.topicId, '看看', { attachmentIds: [image.attachmentId] })
    expect(res.body).toEqual({ code: 40000001, message: NO_VISION({ name: 'fake-gpt' }), data: null })
    expect(fake.requests.length).toBe(before)
    expect(await chat.balance(accountId)).toBe(100000)
    expect(await messages(token, topic.topicId)).toEqual([])
    // The upload is still unsent: it can go with the next message, to a model that sees.
    expect((await rowsOf(accountId))[0]).toMatchObject({ messageId: null, sentAt: null })
    const config = (await (await ctx.h.app.request('/config/chatConfig.json')).json()) as { models: { id: string; vision?: boolean }[] }
    expect(config.models.map((m) => [m.id, m.vision])).toEqual([
      ['lingxi-demo', true],
      ['fake-gpt', false],
      ['gpt-4o-mini', true]
    ])
  })

  it('puts documents’ text into the prompt and counts it in the cost', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const body = `季度报告\n${'收入增长了百分之十二。'.repeat(40)}`
    const doc = await uploaded(token, text(body), 'report.md')
    fake.script({ kind: 'stream', chunks: ['好的'], usage: null })
    const sent = await chat.send(token, topic.topicId, '总结一下', { attachmentIds: [doc.attachmentId] })
    expect(sent.body.code).toBe(2000)
    await ctx.h.chat.idle()
    const prompt = `总结一下\n\n【附件：report.md】\n${body}\n【附件结束】`
    expect(fake.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: prompt })
    const reply = await chat.reply(sent.body.data.replyId)
    const tokens = await countTokens(prompt)
    expect(tokens).toBeGreaterThan((await countTokens('总结一下')) + 100)
    expect(reply.promptTokens).toBe(tokens + 4 + 3)
    expect(reply.charged).toBe(reply.promptTokens! + reply.completionTokens!)
    expect(await chat.balance(accountId)).toBe(100000 - reply.charged!)
  })

  it('the demo model answers about the files offline: names, sizes, dimensions and first line', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'lingxi-demo' })
    const image = await uploaded(token, await png(640, 480), 'cat.png')
    const doc = await uploaded(token, text('\n购物清单：苹果、香蕉\n牛奶'), 'list.txt')
    const sent = await chat.send(token, topic.topicId, '看看附件', { attachmentIds: [image.attachmentId, doc.attachmentId] })
    expect(sent.body.code).toBe(2000)
    await ctx.h.chat.idle()
    const reply = await chat.reply(sent.body.data.replyId)
    expect(reply.status).toBe('complete')
    expect(reply.content).toContain(`- 图片「cat.png」：${(image.size / 1024).toFixed(1)} KB，640×480 像素`)
    expect(reply.content).toContain('- 文档「list.txt」：38 字节，提取出 13 个字符，第一行是：「购物清单：苹果、香蕉」')
  })

  it('refuses attachments that are another account’s, already sent, forged or too many, and a double send takes one once', async () => {
    const { token, accountId } = await chat.user('13800138003')
    const other = await chat.user('13800138004')
    const topic = await chat.topic(token, { model: 'lingxi-demo' })
    const theirs = await uploaded(other.token, text('secret'), 's.txt')
    const gone = '附件不存在、已过期或已经发送过，请重新上传'
    expect((await chat.send(token, topic.topicId, 'x', { attachmentIds: [theirs.attachmentId] })).body).toEqual({ code: 40400001, message: gone, data: null })
    expect((await chat.send(token, topic.topicId, 'x', { attachmentIds: ['forged-id'] })).body.code).toBe(40400001)
    expect((await chat.send(token, topic.topicId, 'x', { attachmentIds: Array.from({ length: 9 }, (_, i) => `id-${i}`) })).body).toMatchObject({
      code: 40000001,
      message: '一条消息最多 8 个附件'
    })
    expect((await chat.send(token, topic.topicId, 'x', { attachmentIds: 'nope' })).body.code).toBe(40000001)
    const mine = await uploaded(token, text('mine'), 'm.txt')
    const [a, b] = await Promise.all([
      chat.send(token, topic.topicId, '一', { attachmentIds: [mine.attachmentId] }),
      chat.send(token, topic.topicId, '二', { attachmentIds: [mine.attachmentId] })
    ])
    await ctx.h.chat.idle()
    expect([a.body.code, b.body.code].sort()).toEqual([2000, 40400001])
    expect((await chat.send(token, topic.topicId, '三', { attachmentIds: [mine.attachmentId] })).body.code).toBe(40400001)
    const rows = await rowsOf(accountId)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.messageId).not.toBeNull()
    // The other account's file was not touched.
    expect((await rowsOf(other.accountId))[0]).toMatchObject({ messageId: null, sentAt: null })
  })
})

describe('the model list', () => {
  it('marks which models take images: chatConfig.json says so, else the model’s known name', () => {
    expect(
      ['gpt-4o-mini', 'qwen-vl-max', 'Qwen2.5-VL-72B-Instruct', 'glm-4v-plus', 'claude-3-5-sonnet', 'gemini-1.5-pro', 'llava:13b'].filter(looksVisual)
    ).toHaveLength(7)
    expect(['deepseek-chat', 'qwen-max', 'gpt-3.5-turbo', 'glm-4', 'fake-gpt', 'moonshot-v1-8k'].filter(looksVisual)).toEqual([])
    const config = resolveChatConfig(
      {
        models: [
          { id: 'house', provider: 'openai', upstreamModel: 'my-vlm', vision: true },
          { id: 'text', provider: 'openai', upstreamModel: 'gpt-4o', vision: false }
        ]
      },
      { openai: { baseUrl: 'http://x', apiKey: 'k', models: [] } } as never
    )
    expect(config.models.map((m) => [m.id, m.vision])).toEqual([
      ['house', true],
      ['text', false]
    ])
  })
})

describe('kept with the topic', () => {
  it('goes when its topic is deleted: the file answers 404 at once, and the sweep removes the bytes', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'lingxi-demo' })
    const image = await uploaded(token, await png(), 'a.png')
    const sent = await chat.send(token, topic.topicId, '图', { attachmentIds: [image.attachmentId] })
    expect(sent.body.code).toBe(2000)
    await ctx.h.chat.idle()
    const [row] = await rowsOf(accountId)
    const files = createLocalStorage({ dir: join(ctx.h.config.dataDir, 'files'), publicUrl: ctx.h.config.publicUrl })
    expect(existsSync(files.path(row!.key))).toBe(true)
    expect(existsSync(files.path(row!.thumbKey!))).toBe(true)

    expect((await chat.post('topic/del', { topicId: topic.topicId }, token)).body.code).toBe(2000)
    expect((await fetchFile(image.url, token)).status).toBe(404)
    expect(await sweepAttachments({ db: ctx.db.db, storage: files, now: ctx.h.clock.now })).toBe(1)
    expect(await rowsOf(accountId)).toEqual([])
    expect(existsSync(files.path(row!.key))).toBe(false)
    expect(existsSync(files.path(row!.thumbKey!))).toBe(false)
  })

  it('an edited question keeps its files: sent again with it, and their bytes stay while either version names them', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'gpt-4o-mini' })
    const image = await uploaded(token, await png(), 'cat.png')
    fake.script({ kind: 'stream', chunks: ['一只猫'], usage: null })
    const sent = await chat.send(token, topic.topicId, '这是什么？', { attachmentIds: [image.attachmentId] })
    expect(sent.body.code).toBe(2000)
    await ctx.h.chat.idle()
    fake.script({ kind: 'stream', chunks: ['橙色的猫'], usage: null })
    const edited = await chat.post<{ messageId: string }>('topic/message/edit', { messageId: sent.body.data.messageId, content: '它是什么颜色？' }, token)
    expect(edited.body.code).toBe(2000)
    await ctx.h.chat.idle()
    const last = (fake.requests.at(-1)!.body.messages as unknown as { role: string; content: unknown }[]).at(-1)!
    expect(last).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '它是什么颜色？' },
        { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/jpeg;base64,/) } }
      ]
    })
    const [question] = (await messages(token, topic.topicId)).filter((m) => m.role === 'user')
    expect(question!.messageId).toBe(edited.body.data.messageId)
    expect(question!.attachments).toHaveLength(1)
    const copy = question!.attachments![0]!
    expect(copy).toMatchObject({ name: 'cat.png', kind: image.kind, size: image.size })
    expect(copy.attachmentId).not.toBe(image.attachmentId)
    expect((await fetchFile(copy.url, token)).status).toBe(200)

    // The old version goes: its row is swept, the bytes stay for the new one.
    const files = createLocalStorage({ dir: join(ctx.h.config.dataDir, 'files'), publicUrl: ctx.h.config.publicUrl })
    const [row] = await rowsOf(accountId)
    expect((await chat.post('topic/message/del', { messageId: sent.body.data.messageId }, token)).body.code).toBe(2000)
    expect(await sweepAttachments({ db: ctx.db.db, storage: files, now: ctx.h.clock.now })).toBe(1)
    expect(existsSync(files.path(row!.key))).toBe(true)
    expect((await fetchFile(copy.url, token)).status).toBe(200)
    // And with the topic the last row goes, and the bytes with it.
    expect((await chat.post('topic/del', { topicId: topic.topicId }, token)).body.code).toBe(2000)
    expect(await sweepAttachments({ db: ctx.db.db, storage: files, now: ctx.h.clock.now })).toBe(1)
    expect(existsSync(files.path(row!.key))).toBe(false)
    expect(existsSync(files.path(row!.thumbKey!))).toBe(false)
  })

  it('removes uploads never sent after a day, and leaves the rest', async () => {
    const { token, accountId } = await chat.user()
    await uploaded(token, text('old'), 'old.txt')
    ctx.h.clock.advance(25 * 3_600_000)
    await uploaded(token, text('new'), 'new.txt')
    const files = createLocalStorage({ dir: join(ctx.h.config.dataDir, 'files'), publicUrl: ctx.h.config.publicUrl })
    // (An upload also starts a sweep now and then: this one may find the work done.)
    await sweepAttachments({ db: ctx.db.db, storage: files, now: ctx.h.clock.now })
    expect((await rowsOf(accountId)).map((r) => r.name)).toEqual(['new.txt'])
  })
})
