import { eq } from 'drizzle-orm'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { accounts, balanceLog, files } from '../src/db/schema.js'
import { createStorage } from '../src/storage/index.js'
import { saveImage } from '../src/storage/images.js'
import { chatHelpers } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness({ env: { PUBLIC_URL: 'https://ai.example.com' } })
const chat = chatHelpers(ctx)

const png = (w = 64, h = 64) =>
  sharp({ create: { width: w, height: h, channels: 3, background: '#fbab00' } })
    .png()
    .toBuffer()

async function uploadAvatar(token: string, purpose = 'avatar') {
  const bytes = await png()
  const t = await ctx.h.post<any>('/api/v1/oss/upload/getOssSTS', { fileName: 'me.png', contentType: 'image/png', size: bytes.byteLength, purpose }, { token })
  await ctx.h.app.request(t.body.data.uploadUrl, { method: 'PUT', body: bytes as unknown as RequestInit['body'], headers: t.body.data.headers })
  const done = await ctx.h.post<any>('/api/v1/oss/upload/complete', { key: t.body.data.key }, { token })
  expect(done.body.code).toBe(2000)
  return done.body.data as { url: string; imageId: string }
}

describe('user/balanceLog', () => {
  it('pages the log newest first; after chat charges it adds up to the balances', async () => {
    const { token, accountId } = await chat.user()
    const start = await ctx.h.post<any>('/api/v1/user/balanceLog', {}, { token })
    expect(start.body.data).toMatchObject({ total: 3, pageNum: 1, pageSize: 20 })
    expect(start.body.data.list.map((e: any) => e.kind).sort()).toEqual(['mj', 'suno', 'tokens'])
    const topic = await chat.topic(token)
    for (let i = 0; i < 3; i++) {
      expect((await chat.send(token, topic.topicId, `第 ${i} 条`)).body.code).toBe(2000)
      await ctx.h.chat.idle()
    }
    const page = await ctx.h.post<any>('/api/v1/user/balanceLog', { pageNum: 1, pageSize: 2 }, { token })
    expect(page.body.data.total).toBe(6)
    expect(page.body.data.list).toHaveLength(2)
    const [newest, next] = page.body.data.list
    expect(newest).toMatchObject({ kind: 'tokens', reason: expect.stringContaining('对话') })
    expect(newest.amount).toBeLessThan(0)
    expect(Number(newest.id)).toBeGreaterThan(Number(next.id))
    expect(typeof newest.id).toBe('string')
    expect(newest.createTime).toBe(ctx.h.clock.now())
    const all = await ctx.h.post<any>('/api/v1/user/balanceLog', { pageSize: 100 }, { token })
    const tokens = all.body.data.list.filter((e: any) => e.kind === 'tokens').reverse()
    let balance = 0
    for (const e of tokens) {
      expect(e.balance).toBe(balance + e.amount)
      balance = e.balance
    }
    expect(balance).toBe(await chat.balance(accountId))
    // Others' entries never show.
    const other = await chat.user('13900139000')
    expect((await ctx.h.post<any>('/api/v1/user/balanceLog', {}, { token: other.token })).body.data.total).toBe(3)
    expect((await ctx.h.post('/api/v1/user/balanceLog', { pageNum: 0 }, { token })).body.code).toBe(40000001)
    expect((await ctx.h.post('/api/v1/user/balanceLog', {})).body.code).toBe(50011004)
    const rows = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, accountId))
    expect(rows).toHaveLength(6)
  })
})

describe('user/profile/save', () => {
  it('changes the nickname (1–20 characters) and answers the user info', async () => {
    const { token } = await chat.user()
    const res = await ctx.h.post<any>('/api/v1/user/profile/save', { nickName: '  灵犀小助手  ' }, { token })
    expect(res.body.code).toBe(2000)
    expect(res.body.data).toMatchObject({ nickName: '灵犀小助手', phone: '13800138000' })
    expect((await ctx.h.post<any>('/api/v1/user/info', {}, { token })).body.data.nickName).toBe('灵犀小助手')
    const twenty = '一二三四五六七八九十一二三四五六七八九十'
    expect((await ctx.h.post<any>('/api/v1/user/profile/save', { nickName: twenty }, { token })).body.code).toBe(2000)
    const before = await ctx.h.snapshot()
    for (const [nickName, message] of [
      ['', '昵称不能为空'],
      ['   ', '昵称不能为空'],
      [`${twenty}一`, '昵称不能超过 20 个字符'],
      ['a\u202eb', '昵称不能包含控制字符'],
      [42, '昵称格式不正确']
    ] as const) {
      const bad = await ctx.h.post<any>('/api/v1/user/profile/save', { nickName }, { token })
      expect(bad.body, String(nickName)).toMatchObject({ code: 40000001, message })
    }
    expect((await ctx.h.post<any>('/api/v1/user/info', {}, { token })).body.data.nickName).toBe(twenty)
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('takes an avatar only from my own Lingxi uploads; replacing an avatar removes the old file', async () => {
    const a = await chat.user()
    const b = await chat.user('13900139000')
    const first = await uploadAvatar(a.token)
    const saved = await ctx.h.post<any>('/api/v1/user/profile/save', { avatarUrl: first.url }, { token: a.token })
    expect(saved.body.code).toBe(2000)
    expect(saved.body.data.avatarUrl).toBe(first.url)
    // Relative form of the same URL is accepted and stored absolute.
    const second = await uploadAvatar(a.token)
    const rel = new URL(second.url).pathname
    const again = await ctx.h.post<any>('/api/v1/user/profile/save', { avatarUrl: rel }, { token: a.token })
    expect(again.body.data.avatarUrl).toBe(second.url)
    expect(await ctx.db.db.select().from(files).where(eq(files.id, first.imageId))).toEqual([])
    expect((await ctx.h.app.request(new URL(first.url).pathname)).status).toBe(404)

    const bAvatar = await uploadAvatar(b.token)
    const before = await ctx.h.snapshot()
    for (const avatarUrl of [
      bAvatar.url,
      'https://evil.example.com/x.png',
      'https://ai.example.com/files/avatars/2026/01/00000000-0000-0000-0000-000000000000.png',
      'https://ai.example.com/files/../upload-secret',
      'javascript:alert(1)',
      'data:image/png;base64,AAAA'
    ]) {
      const res = await ctx.h.post<any>('/api/v1/user/profile/save', { avatarUrl }, { token: a.token })
      expect(res.body, avatarUrl).toMatchObject({ code: 40000001, message: '头像必须是上传到灵犀的图片' })
    }
    // Audio in my own storage is not an avatar either.
    const [account] = await ctx.db.db.select().from(accounts).where(eq(accounts.id, a.accountId))
    expect(account!.avatarUrl).toBe(second.url)
    expect(await ctx.h.snapshot()).toEqual(before)
    // An image from my image host works too, and is not deleted when replaced.
    const hosted = await saveImage({ db: ctx.db.db, storage: createStorage(ctx.h.config) }, { accountId: a.accountId, bytes: await png(), source: 'upload' })
    const url = createStorage(ctx.h.config).publicUrl(hosted.key)
    expect((await ctx.h.post<any>('/api/v1/user/profile/save', { avatarUrl: url }, { token: a.token })).body.data.avatarUrl).toBe(url)
    expect((await ctx.h.post<any>('/api/v1/user/profile/save', { avatarUrl: '' }, { token: a.token })).body.data.avatarUrl).toBe('')
    expect(await ctx.db.db.select().from(files).where(eq(files.id, hosted.id))).toHaveLength(1)
  })
})
