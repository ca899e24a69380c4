import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { chatMessages, chatShares, disabledAccounts } from '../src/db/schema.js'
import { MAX_SHARES, READS_PER_MINUTE, SHARES_PER_HOUR } from '../src/modules/chat/shares.js'
import { CHAT, chatHelpers, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()
const chat = chatHelpers(ctx)

/** A public read: no token at all. */
const read = (shareId: unknown, address?: string) => ctx.h.post<any>(`${CHAT}/share/get`, { shareId }, address ? { address } : {})

/** Sends a question to the demo model and waits for its reply to be saved. */
async function exchange(token: string, topicId: string, content: string) {
  const sent = await chat.send(token, topicId, content)
  expect(sent.body.code).toBe(2000)
  await waitUntil(async () => (await chat.reply(sent.body.data.replyId)).status !== 'streaming')
  return sent.body.data
}

/** Writes a finished message straight into the topic (content the demo model would not say). */
async function insert(accountId: string, topicId: string, role: 'user' | 'assistant', content: string) {
  const at = new Date(ctx.h.clock.now())
  await ctx.db.db.insert(chatMessages).values({ id: randomUUID(), accountId, topicId, role, content, status: 'complete', createdAt: at, updatedAt: at })
}

async function share(token: string, topicId: string) {
  const res = await chat.post('share/create', { topicId }, token)
  expect(res.body).toMatchObject({ code: 2000 })
  return res.body.data as { shareId: string; path: string; title: string; messageCount: number; createTime: number; topicId: string }
}

describe('share links', () => {
  it('shows the topic as it was when shared, whatever happens to the topic later', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { name: '周末计划' })
    await exchange(token, topic.topicId, '周末去哪儿玩？')
    const link = await share(token, topic.topicId)
    expect(link).toEqual({
      shareId: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      topicId: topic.topicId,
      title: '周末计划',
      path: `/share/${link.shareId}`,
      messageCount: 2,
      createTime: ctx.h.clock.now()
    })
    const before = await read(link.shareId)
    expect(before.status).toBe(200)
    expect(before.body.data.title).toBe('周末计划')
    expect(before.body.data.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant'])
    expect(before.body.data.messages[0]).toMatchObject({ role: 'user', content: '周末去哪儿玩？', status: 'complete', thinking: null })

    // Later: renamed, a new exchange, the first question deleted, then the topic cleared.
    await chat.post('topic/name/edit', { topicId: topic.topicId, name: '改过的名字' }, token)
    await exchange(token, topic.topicId, '第二个问题')
    const [first] = await ctx.db.db.select().from(chatMessages).where(eq(chatMessages.content, '周末去哪儿玩？'))
    expect((await chat.post('topic/message/del', { messageId: first!.id }, token)).body.code).toBe(2000)
    expect((await read(link.shareId)).body.data).toEqual(before.body.data)
    expect((await chat.post('topic/message/clear', { topicId: topic.topicId }, token)).body.code).toBe(2000)
    expect((await read(link.shareId)).body.data).toEqual(before.body.data)

    // A second share of the same topic is a new snapshot with a new id; the first one stays.
    await exchange(token, topic.topicId, '第三个问题')
    const again = await share(token, topic.topicId)
    expect(again.shareId).not.toBe(link.shareId)
    expect(again.title).toBe('改过的名字')
    expect((await read(again.shareId)).body.data.messages[0].content).toBe('第三个问题')
    expect((await read(link.shareId)).body.data).toEqual(before.body.data)
  })

  it('shares the branch shown: an edited question’s old branch stays out', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token)
    const first = await exchange(token, topic.topicId, '原来的问题')
    const edited = await chat.post('topic/message/edit', { messageId: first.messageId, content: '改过的问题' }, token)
    expect(edited.body.code).toBe(2000)
    await waitUntil(async () => (await chat.reply(edited.body.data.replyId)).status !== 'streaming')
    const link = await share(token, topic.topicId)
    const shown = (await read(link.shareId)).body.data.messages
    expect(shown.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant'])
    expect(shown[0].content).toBe('改过的问题')
    expect(JSON.stringify(shown)).not.toContain('原来的问题')
  })

  it('leaves a reply still being written out of the snapshot, and refuses an empty topic', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    const empty = await chat.post('share/create', { topicId: topic.topicId }, token)
    expect(empty.status).toBe(400)
    expect(empty.body).toEqual({ code: 40000001, message: '对话还没有消息，无法分享', data: null })
    await insert(accountId, topic.topicId, 'user', '问题')
    const at = new Date(ctx.h.clock.now())
    await ctx.db.db.insert(chatMessages).values({
      id: randomUUID(),
      accountId,
      topicId: topic.topicId,
      role: 'assistant',
      content: '写到一半',
      status: 'streaming',
      createdAt: at,
      updatedAt: at
    })
    const link = await share(token, topic.topicId)
    expect(link.messageCount).toBe(1)
    expect((await read(link.shareId)).body.data.messages.map((m: { content: string }) => m.content)).toEqual(['问题'])
  })

  it('answers 404 at once after the owner revokes it, and after the topic is deleted', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token)
    await exchange(token, topic.topicId, '你好')
    const link = await share(token, topic.topicId)
    expect((await read(link.shareId)).status).toBe(200)
    const revoked = await chat.post('share/revoke', { shareId: link.shareId }, token)
    expect(revoked.body).toEqual({ code: 2000, message: '操作成功', data: null })
    const gone = await read(link.shareId)
    expect(gone.status).toBe(404)
    expect(gone.body).toEqual({ code: 40400001, message: '分享不存在或已撤销', data: null })
    expect(gone.headers.get('cache-control')).toBe('no-store')
    // Revoking twice: nothing left to revoke.
    expect((await chat.post('share/revoke', { shareId: link.shareId }, token)).status).toBe(404)
    expect((await chat.post('share/list', {}, token)).body.data.total).toBe(0)

    const other = await share(token, topic.topicId)
    expect((await chat.post('topic/del', { topicId: topic.topicId }, token)).body.code).toBe(2000)
    expect((await read(other.shareId)).status).toBe(404)
  })

  it('hides the links of an account an operator disabled', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    await insert(accountId, topic.topicId, 'user', 'x')
    const link = await share(token, topic.topicId)
    await ctx.db.db.insert(disabledAccounts).values({ accountId, reason: '违规', disabledBy: 'test', disabledAt: new Date(ctx.h.clock.now()) })
    expect((await read(link.shareId)).status).toBe(404)
    await ctx.db.db.delete(disabledAccounts).where(eq(disabledAccounts.accountId, accountId))
    expect((await read(link.shareId)).status).toBe(200)
  })

  it('lists the owner’s links, newest first, per topic too; another account can neither list nor revoke them', async () => {
    const owner = await chat.user('13800138000')
    const stranger = await chat.user('13900139000')
    const a = await chat.topic(owner.token, { name: 'A' })
    const b = await chat.topic(owner.token, { name: 'B' })
    await insert(owner.accountId, a.topicId, 'user', 'a')
    await insert(owner.accountId, b.topicId, 'user', 'b')
    const first = await share(owner.token, a.topicId)
    const second = await share(owner.token, b.topicId)
    const list = await chat.post('share/list', { pageNum: 1, pageSize: 10 }, owner.token)
    expect(list.body.data).toMatchObject({ total: 2, pageNum: 1, pageSize: 10 })
    expect(list.body.data.list.map((s: { shareId: string }) => s.shareId)).toEqual([second.shareId, first.shareId])
    const ofA = await chat.post('share/list', { topicId: a.topicId }, owner.token)
    expect(ofA.body.data.list).toEqual([first])

    // The stranger sees none of them, even naming the owner's topic, and cannot revoke or share them.
    expect((await chat.post('share/list', {}, stranger.token)).body.data).toEqual({ list: [], total: 0, pageNum: 1, pageSize: 20 })
    expect((await chat.post('share/list', { topicId: a.topicId }, stranger.token)).body.data.total).toBe(0)
    const revoke = await chat.post('share/revoke', { shareId: first.shareId }, stranger.token)
    expect(revoke.status).toBe(404)
    expect(revoke.body).toEqual({ code: 40400001, message: '分享不存在或已撤销', data: null })
    const create = await chat.post('share/create', { topicId: a.topicId }, stranger.token)
    expect(create.status).toBe(404)
    expect((await read(first.shareId)).status).toBe(200)

    // Without a login: nothing but the public read.
    expect((await ctx.h.post(`${CHAT}/share/list`, {})).status).toBe(401)
    expect((await ctx.h.post(`${CHAT}/share/revoke`, { shareId: first.shareId })).status).toBe(401)
    expect((await ctx.h.post(`${CHAT}/share/create`, { topicId: a.topicId })).status).toBe(401)
    expect((await read(first.shareId)).status).toBe(200)
  })

  it('gives the public nothing of the owner: no phone, account, topic or message ids', async () => {
    const { token, accountId } = await chat.user('13812345678')
    const topic = await chat.topic(token, { roleId: 'mock-interviewer' })
    await insert(accountId, topic.topicId, 'user', '我的问题')
    const link = await share(token, topic.topicId)
    const res = await read(link.shareId)
    expect(Object.keys(res.body.data).sort()).toEqual(['createTime', 'messages', 'roleAvatar', 'roleName', 'shareId', 'title'])
    for (const m of res.body.data.messages) expect(Object.keys(m).sort()).toEqual(['content', 'createTime', 'role', 'status', 'thinking'])
    const text = JSON.stringify(res.body)
    const [row] = await ctx.db.db.select().from(chatMessages).where(eq(chatMessages.topicId, topic.topicId))
    for (const secret of ['13812345678', '12345678', accountId, topic.topicId, row!.id, token]) expect(text).not.toContain(secret)
    expect(res.body.data.roleName).toBe('模拟面试官')
  })

  it('carries markdown with script and onerror payloads as inert JSON text, never HTML', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { name: '<img src=x onerror=alert(1)>' })
    const payload = '<script>window.pwned=1</script>\n\n<img src=x onerror="window.pwned=1">\n\n[x](javascript:alert(1))'
    await insert(accountId, topic.topicId, 'assistant', payload)
    const link = await share(token, topic.topicId)
    const res = await ctx.h.app.request(`${CHAT}/share/get`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ shareId: link.shareId })
    })
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const body = (await res.json()) as { data: { messages: { content: string }[]; title: string } }
    // Exactly the text that was written: the page renders it with the safe markdown renderer.
    expect(body.data.messages[0]?.content).toBe(payload)
    expect(body.data.title).toBe('<img src=x onerror=alert(1)>')
  })

  it('makes unguessable ids (144 bits) and answers forged ones with 404', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    await insert(accountId, topic.topicId, 'user', 'x')
    const ids = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const link = await share(token, topic.topicId)
      ids.add(link.shareId)
      // base64url of 18 random bytes: 24 characters of 6 bits.
      expect(Buffer.from(link.shareId, 'base64url')).toHaveLength(18)
    }
    expect(ids.size).toBe(20)
    // Every character position varies (a counter or a timestamp would not).
    const positions = [...Array(24).keys()].filter((i) => new Set([...ids].map((id) => id[i])).size > 1)
    expect(positions.length).toBeGreaterThan(20)

    const real = [...ids][0]!
    const forged = [
      `${real.slice(0, 23)}${real[23] === 'A' ? 'B' : 'A'}`,
      real.toLowerCase() === real ? real.toUpperCase() : real.toLowerCase(),
      'x'.repeat(24),
      real.slice(0, 23),
      `${real}A`,
      `../${real}`,
      "' or 1=1 --",
      ''
    ]
    for (const id of forged) expect((await read(id)).status, id).toBe(404)
    expect((await read('a'.repeat(65))).status).toBe(400)
    expect((await read(123)).status).toBe(400)
    expect((await read(null)).status).toBe(400)
  })

  it('refuses bad input, changing nothing', async () => {
    const { token } = await chat.user()
    expect((await chat.post('share/create', {}, token)).body).toEqual({ code: 40000001, message: 'topicId 不能为空', data: null })
    expect((await chat.post('share/create', { topicId: 'x'.repeat(65) }, token)).body.code).toBe(40000001)
    expect((await chat.post('share/create', { topicId: randomUUID() }, token)).status).toBe(404)
    expect((await chat.post('share/revoke', {}, token)).body.code).toBe(40000001)
    expect((await chat.post('share/list', { pageSize: 101 }, token)).body.code).toBe(40000001)
    expect(await ctx.db.db.select().from(chatShares)).toEqual([])
  })

  it('limits new links per account per hour, links per account, and public reads per address', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    await insert(accountId, topic.topicId, 'user', 'x')
    let last: { shareId: string } | undefined
    for (let i = 0; i < SHARES_PER_HOUR; i++) last = await share(token, topic.topicId)
    const refused = await chat.post('share/create', { topicId: topic.topicId }, token)
    expect(refused.status).toBe(429)
    expect(refused.body.message).toMatch(/^创建分享过于频繁，请 \d+ 分钟后再试$/)
    ctx.h.clock.advance(3_600_001)
    expect((await chat.post('share/create', { topicId: topic.topicId }, token)).body.code).toBe(2000)

    // The cap on links kept: filled straight in the table, then one more is refused.
    const rows = await ctx.db.db.select().from(chatShares)
    const template = rows[0]!
    await ctx.db.db.insert(chatShares).values(
      Array.from({ length: MAX_SHARES - rows.length }, (_, i) => ({
        ...template,
        seq: undefined as never,
        id: `filler${String(i).padStart(18, '0')}`
      })).map(({ seq: _, ...row }) => row)
    )
    ctx.h.clock.advance(3_600_001)
    const full = await chat.post('share/create', { topicId: topic.topicId }, token)
    expect(full.body).toEqual({ code: 40000001, message: `分享链接已达上限（${MAX_SHARES} 个），请先撤销不再需要的链接`, data: null })

    for (let i = 0; i < READS_PER_MINUTE; i++) expect((await read(last!.shareId, '203.0.113.7')).status).toBe(200)
    const busy = await read(last!.shareId, '203.0.113.7')
    expect(busy.status).toBe(429)
    expect(busy.body.message).toMatch(/^访问过于频繁，请 \d+ 秒后再试$/)
    // Another address is not affected.
    expect((await read(last!.shareId, '203.0.113.8')).status).toBe(200)
  })

  it('creates links concurrently without losing or sharing one', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    await insert(accountId, topic.topicId, 'user', 'x')
    const made = await Promise.all(Array.from({ length: 8 }, () => chat.post('share/create', { topicId: topic.topicId }, token)))
    expect(made.every((r) => r.body.code === 2000)).toBe(true)
    expect(new Set(made.map((r) => r.body.data.shareId)).size).toBe(8)
    const revoked = await Promise.all(made.map((r) => chat.post('share/revoke', { shareId: r.body.data.shareId }, token)))
    expect(revoked.map((r) => r.status)).toEqual(Array(8).fill(200))
    expect(await ctx.db.db.select().from(chatShares)).toEqual([])
  })
})
