import { randomUUID } from 'node:crypto'
import { asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatMessages, chatTopics } from '../src/db/schema.js'
import { activePath, type Node, newestUnder, treeOf, versionOf } from '../src/modules/chat/branches.js'
import { EDITS_PER_MINUTE, SWITCHES_PER_MINUTE } from '../src/modules/chat/message-routes.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv, parseFrames, readAll, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

// Edit and resend (issue 20, item 4): an edited question is a new version beside the old one, the
// old one's replies stay as a branch to switch back to, and only the branch shown goes upstream.

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

const ctx = useHarness(() => ({ env: fakeEnv(fake) }))
const chat = chatHelpers(ctx)

type Listed = { messageId: string; role: string; content: string; status: string; version?: number; versions?: number }

async function shown(token: string, topicId: string, pageSize = 100) {
  const res = await chat.post<{ list: Listed[]; total: number }>('topic/messages', { topicId, pageNum: 1, pageSize }, token)
  expect(res.body.code).toBe(2000)
  return res.body.data
}

/** The branch shown, oldest first, as "role:content" (with v/n for a message with versions). */
async function branch(token: string, topicId: string) {
  const { list } = await shown(token, topicId)
  return list
    .slice()
    .reverse()
    .map((m) => `${m.role === 'user' ? 'Q' : 'A'}:${m.content}${m.versions ? ` ${m.version}/${m.versions}` : ''}`)
}

/** A topic on the fake model with two exchanges: Q1 A1 Q2 A2, answers numbered as they come. */
async function twoExchanges() {
  const { token, accountId } = await chat.user()
  const topic = await chat.topic(token, { model: 'fake-gpt' })
  let n = 0
  fake.script(() => ({ kind: 'stream', chunks: [`答${++n}`], usage: { prompt_tokens: 10, completion_tokens: 5 } }))
  const first = (await chat.send(token, topic.topicId, '问一')).body.data
  await ctx.h.chat.idle()
  const second = (await chat.send(token, topic.topicId, '问二')).body.data
  await ctx.h.chat.idle()
  return { token, accountId, topicId: topic.topicId, first, second }
}

const lastUpstream = () => fake.requests.at(-1)!.body.messages.map((m) => `${m.role}:${m.content}`)

describe('edit and resend', () => {
  it('makes a new version beside the old question; the old replies stay as a branch to switch back to', async () => {
    const { token, topicId, second } = await twoExchanges()
    const edit = await chat.post('topic/message/edit', { messageId: second.messageId, content: '问二（改）' }, token)
    expect(edit.body.code).toBe(2000)
    expect(edit.body.data).toEqual({ requestId: expect.any(String), messageId: expect.any(String), replyId: expect.any(String) })
    expect(edit.body.data.messageId).not.toBe(second.messageId)
    await ctx.h.chat.idle()
    // The new reply streams like any other.
    const frames = parseFrames(await readAll(await chat.subscribe(token, edit.body.data.requestId)))
    expect(frames.map((f) => f.event)).toEqual(['delta', 'done'])
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'Q:问二（改） 2/2', 'A:答3'])
    // Only the branch before the edited question went upstream, never the old answer.
    expect(lastUpstream()).toEqual(['user:问一', 'assistant:答1', 'user:问二（改）'])

    // Back to version 1: its reply shows again; the choice is kept (a reload shows it).
    const back = await chat.post('topic/message/switch', { messageId: edit.body.data.messageId, version: 1 }, token)
    expect(back.body.data).toEqual({ topicId, messageId: second.messageId, leafId: second.replyId })
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'Q:问二 1/2', 'A:答2'])

    // A question sent now follows version 1's branch, and only that goes upstream.
    fake.script({ kind: 'stream', chunks: ['答4'] })
    await chat.send(token, topicId, '问三')
    await ctx.h.chat.idle()
    expect(lastUpstream()).toEqual(['user:问一', 'assistant:答1', 'user:问二', 'assistant:答2', 'user:问三'])
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'Q:问二 1/2', 'A:答2', 'Q:问三', 'A:答4'])

    // Version 2 again: its branch, without 问三.
    await chat.post('topic/message/switch', { messageId: second.messageId, version: 2 }, token)
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'Q:问二（改） 2/2', 'A:答3'])
    // …and back to version 1 shows the newest of its branch (问三 included).
    await chat.post('topic/message/switch', { messageId: second.messageId, version: 1 }, token)
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'Q:问二 1/2', 'A:答2', 'Q:问三', 'A:答4'])
  })

  it('edits the first question: the versions start the topic, and nothing before them goes upstream', async () => {
    const { token, topicId, first } = await twoExchanges()
    fake.script({ kind: 'stream', chunks: ['新答'] })
    const edit = await chat.post('topic/message/edit', { messageId: first.messageId, content: '重新问' }, token)
    expect(edit.body.code).toBe(2000)
    await ctx.h.chat.idle()
    expect(lastUpstream()).toEqual(['user:重新问'])
    expect(await branch(token, topicId)).toEqual(['Q:重新问 2/2', 'A:新答'])
    expect((await shown(token, topicId)).total).toBe(2)
    await chat.post('topic/message/switch', { messageId: first.messageId, version: 1 }, token)
    expect(await branch(token, topicId)).toEqual(['Q:问一 1/2', 'A:答1', 'Q:问二', 'A:答2'])
  })

  it('pages over the branch shown only', async () => {
    const { token, topicId, first } = await twoExchanges()
    fake.script({ kind: 'stream', chunks: ['新答'] })
    await chat.post('topic/message/edit', { messageId: first.messageId, content: '重新问' }, token)
    await ctx.h.chat.idle()
    await chat.post('topic/message/switch', { messageId: first.messageId, version: 1 }, token)
    const page1 = await chat.post('topic/messages', { topicId, pageNum: 1, pageSize: 3 }, token)
    const page2 = await chat.post('topic/messages', { topicId, pageNum: 2, pageSize: 3 }, token)
    expect(page1.body.data.total).toBe(4)
    expect(page1.body.data.list.map((m: Listed) => m.content)).toEqual(['答2', '问二', '答1'])
    expect(page2.body.data.list.map((m: Listed) => m.content)).toEqual(['问一'])
  })

  it('keeps a topic made before branches one linear branch (rows without prev_id, no leaf)', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const db = ctx.db.db
    // Rows as the release before branches wrote them: no prev_id, and the topic has no leaf.
    const at = new Date(ctx.h.clock.now())
    const rows = ['旧问一', '旧答一', '旧问二', '旧答二'].map((content, i) => ({
      id: randomUUID(),
      accountId,
      topicId: topic.topicId,
      role: i % 2 === 0 ? 'user' : 'assistant',
      content,
      status: 'complete',
      createdAt: at,
      updatedAt: at
    }))
    for (const row of rows) await db.insert(chatMessages).values(row)
    expect(await branch(token, topic.topicId)).toEqual(['Q:旧问一', 'A:旧答一', 'Q:旧问二', 'A:旧答二'])

    // Sending goes on from the end, with the whole history.
    fake.script({ kind: 'stream', chunks: ['新答三'] })
    await chat.send(token, topic.topicId, '新问三')
    await ctx.h.chat.idle()
    expect(lastUpstream()).toEqual(['user:旧问一', 'assistant:旧答一', 'user:旧问二', 'assistant:旧答二', 'user:新问三'])
    expect(await branch(token, topic.topicId)).toEqual(['Q:旧问一', 'A:旧答一', 'Q:旧问二', 'A:旧答二', 'Q:新问三', 'A:新答三'])

    // An old question can be edited; its old branch stays whole.
    fake.script({ kind: 'stream', chunks: ['改后答'] })
    await chat.post('topic/message/edit', { messageId: rows[2]!.id, content: '旧问二（改）' }, token)
    await ctx.h.chat.idle()
    expect(lastUpstream()).toEqual(['user:旧问一', 'assistant:旧答一', 'user:旧问二（改）'])
    expect(await branch(token, topic.topicId)).toEqual(['Q:旧问一', 'A:旧答一', 'Q:旧问二（改） 2/2', 'A:改后答'])
    await chat.post('topic/message/switch', { messageId: rows[2]!.id, version: 1 }, token)
    expect(await branch(token, topic.topicId)).toEqual(['Q:旧问一', 'A:旧答一', 'Q:旧问二 1/2', 'A:旧答二', 'Q:新问三', 'A:新答三'])
    // The old rows were not rewritten.
    const after = await db.select().from(chatMessages).where(eq(chatMessages.topicId, topic.topicId)).orderBy(asc(chatMessages.seq))
    expect(after.slice(0, 4).map((r) => r.prevId)).toEqual([null, null, null, null])
  })

  it('charges the allowance once per reply of an edit', async () => {
    const { token, accountId, second } = await twoExchanges()
    const before = await chat.balance(accountId)
    const charges = (await chat.log(accountId)).length
    fake.script({ kind: 'stream', chunks: ['答'], usage: { prompt_tokens: 7, completion_tokens: 3 } })
    const requestId = randomUUID()
    const [a, b] = await Promise.all([
      chat.post('topic/message/edit', { messageId: second.messageId, content: '改', requestId }, token),
      chat.post('topic/message/edit', { messageId: second.messageId, content: '改', requestId }, token)
    ])
    // The same request sent twice (a retry) is one edit.
    expect(a.body.data).toEqual(b.body.data)
    await ctx.h.chat.idle()
    const log = (await chat.log(accountId)).slice(charges)
    expect(log.filter((l) => l.amount < 0)).toHaveLength(1)
    const reply = await chat.reply(a.body.data.replyId)
    expect(reply.charged).toBeGreaterThan(0)
    expect(await chat.balance(accountId)).toBe(before - reply.charged!)
    expect(reply.held).toBe(0)
  })

  it('refuses an edit at zero tokens, changing nothing', async () => {
    const { token, accountId, topicId, second } = await twoExchanges()
    await chat.setTokens(accountId, 0)
    const before = await ctx.db.db.select().from(chatMessages).where(eq(chatMessages.topicId, topicId)).orderBy(asc(chatMessages.seq))
    const res = await chat.post('topic/message/edit', { messageId: second.messageId, content: '改' }, token)
    expect(res.body.code).toBe(40200001)
    expect(await ctx.db.db.select().from(chatMessages).where(eq(chatMessages.topicId, topicId)).orderBy(asc(chatMessages.seq))).toEqual(before)
  })

  it('concurrent edits of the same question make one version each, each with its own reply', async () => {
    const { token, topicId, second } = await twoExchanges()
    fake.script((request) => ({ kind: 'stream', chunks: [`对「${request.body.messages.at(-1)!.content}」的回答`] }))
    const results = await Promise.all(['改A', '改B', '改C'].map((content) => chat.post('topic/message/edit', { messageId: second.messageId, content }, token)))
    expect(results.map((r) => r.body.code)).toEqual([2000, 2000, 2000])
    await ctx.h.chat.idle()
    const list = await branch(token, topicId)
    expect(list).toHaveLength(4)
    expect(list[2]).toMatch(/^Q:改[ABC] \d\/4$/)
    // Every version keeps its own reply: switch through them all.
    const seen = new Set<string>()
    for (let version = 1; version <= 4; version++) {
      await chat.post('topic/message/switch', { messageId: second.messageId, version }, token)
      const [, , q, a] = await branch(token, topicId)
      expect(q).toMatch(new RegExp(` ${version}/4$`))
      seen.add(`${q} → ${a}`)
      if (version > 1) expect(a).toBe(`A:对「${q!.slice(2, 4)}」的回答`)
    }
    expect(seen.size).toBe(4)
    const rows = await ctx.db.db.select().from(chatMessages).where(eq(chatMessages.topicId, topicId))
    expect(rows.filter((r) => r.status === 'streaming' || r.held !== 0)).toEqual([])
  })

  it('an edit while a reply streams stops that reply first; it stays, interrupted, with the old version', async () => {
    const { token, topicId } = await twoExchanges()
    fake.script({ kind: 'stream', chunks: Array.from({ length: 200 }, () => '字'), delayMs: 20 })
    const third = (await chat.send(token, topicId, '问三')).body.data
    const stream = chat.subscribe(token, third.requestId).then((res) => readAll(res))
    await waitUntil(async () => (await chat.reply(third.replyId)).content.length > 0)
    fake.script({ kind: 'stream', chunks: ['改后的答'] })
    const edit = await chat.post('topic/message/edit', { messageId: third.messageId, content: '问三（改）' }, token)
    expect(edit.body.code).toBe(2000)
    expect(parseFrames(await stream).at(-1)!.event).toBe('stopped')
    await ctx.h.chat.idle()
    const old = await chat.reply(third.replyId)
    expect(old.status).toBe('interrput')
    expect(old.held).toBe(0)
    expect((await branch(token, topicId)).slice(-2)).toEqual(['Q:问三（改） 2/2', 'A:改后的答'])
    expect(lastUpstream()).toEqual(['user:问一', 'assistant:答1', 'user:问二', 'assistant:答2', 'user:问三（改）'])
    await chat.post('topic/message/switch', { messageId: third.messageId, version: 1 }, token)
    const back = await shown(token, topicId)
    expect(back.list[0]).toMatchObject({ messageId: third.replyId, status: 'interrput' })
  })

  it('a reply streaming on a branch is shown, resumable, after a reload; switching away leaves it streaming', async () => {
    const { token, topicId, second } = await twoExchanges()
    fake.script({ kind: 'stream', chunks: Array.from({ length: 40 }, () => '字'), delayMs: 20 })
    const edit = (await chat.post('topic/message/edit', { messageId: second.messageId, content: '改' }, token)).body.data
    const listed = await shown(token, topicId)
    expect(listed.list[0]).toMatchObject({ messageId: edit.replyId, status: 'streaming' })
    await chat.post('topic/message/switch', { messageId: edit.messageId, version: 1 }, token)
    expect((await shown(token, topicId)).list[0]!.messageId).toBe(second.replyId)
    const frames = parseFrames(await readAll(await chat.subscribe(token, edit.requestId)))
    expect(frames.at(-1)!.event).toBe('done')
    expect(frames.filter((f) => f.event === 'delta')).toHaveLength(40)
    await chat.post('topic/message/switch', { messageId: edit.messageId, version: 2 }, token)
    expect((await shown(token, topicId)).list[0]).toMatchObject({ messageId: edit.replyId, status: 'complete', content: '字'.repeat(40) })
  })

  it('refuses to edit a reply, an unknown message, or with bad input, changing nothing', async () => {
    const { token, topicId, second } = await twoExchanges()
    const rows = async () => ctx.db.db.select().from(chatMessages).where(eq(chatMessages.topicId, topicId)).orderBy(asc(chatMessages.seq))
    const before = await rows()
    const cases: [Record<string, unknown>, number, string][] = [
      [{ messageId: second.replyId, content: '改' }, 40000001, '只能编辑自己发送的消息'],
      [{ messageId: 'nope', content: '改' }, 40400001, '消息不存在或已删除'],
      [{ messageId: second.messageId, content: '   ' }, 40000001, 'content 不能为空'],
      [{ messageId: second.messageId, content: '长'.repeat(20_001) }, 40000001, 'content 不能超过 20000 个字符'],
      [{ messageId: second.messageId, content: '改', requestId: 'x' }, 40000001, 'requestId 必须是 UUID'],
      [{ messageId: second.messageId }, 40000001, 'content 不能为空']
    ]
    for (const [body, code, message] of cases) {
      const res = await chat.post('topic/message/edit', body, token)
      expect([res.body.code, res.body.message]).toEqual([code, message])
    }
    for (const version of [0, 3, 1.5, 'x']) {
      const res = await chat.post('topic/message/switch', { messageId: second.messageId, version }, token)
      expect(res.body.code).toBe(40000001)
    }
    expect(await rows()).toEqual(before)
  })

  it('limits edits and version switches per account per minute (429, nothing changed)', async () => {
    const { token, accountId, topicId, second } = await twoExchanges()
    // The window's count so far is made up to the limit, as a burst of earlier edits would have.
    for (let i = 0; i < EDITS_PER_MINUTE; i++) await ctx.h.kv.incr(`chat-edit:${accountId}`, 60_000)
    const before = await branch(token, topicId)
    const edit = await chat.post('topic/message/edit', { messageId: second.messageId, content: '问二（改）' }, token)
    expect(edit.status).toBe(429)
    expect(edit.body).toMatchObject({ code: 42900001, message: expect.stringMatching(/^编辑消息过于频繁，请 \d+ 秒后再试$/) })
    expect(await branch(token, topicId)).toEqual(before)
    for (let i = 0; i < SWITCHES_PER_MINUTE; i++) await ctx.h.kv.incr(`chat-switch:${accountId}`, 60_000)
    const sw = await chat.post('topic/message/switch', { messageId: second.messageId, version: 1 }, token)
    expect(sw.body).toMatchObject({ code: 42900001, message: expect.stringContaining('切换版本过于频繁') })
    // Another account is not held up.
    const other = await twoExchanges()
    expect((await chat.post('topic/message/switch', { messageId: other.second.messageId, version: 1 }, other.token)).body.code).toBe(2000)
  })

  it("another account gets 404 for edit and switch and never sees or changes the owner's branches", async () => {
    const { token, topicId, second } = await twoExchanges()
    fake.script({ kind: 'stream', chunks: ['改后'] })
    await chat.post('topic/message/edit', { messageId: second.messageId, content: '改' }, token)
    await ctx.h.chat.idle()
    const [topicBefore] = await ctx.db.db.select().from(chatTopics).where(eq(chatTopics.id, topicId))
    const requests = fake.requests.length
    const other = await chat.user('13900139000')
    for (const [path, body] of [
      ['topic/message/edit', { messageId: second.messageId, content: '偷改' }],
      ['topic/message/switch', { messageId: second.messageId, version: 1 }],
      ['topic/messages', { topicId }]
    ] as const) {
      const res = await chat.post(path, body, other.token)
      expect([path, res.status, res.body.code, res.body.data]).toEqual([path, 404, 40400001, null])
    }
    expect(fake.requests.length).toBe(requests)
    const [topicAfter] = await ctx.db.db.select().from(chatTopics).where(eq(chatTopics.id, topicId))
    expect(topicAfter).toEqual(topicBefore)
  })
})

describe('sends', () => {
  it('concurrent sends to one topic stay on one branch (no versions made)', async () => {
    const { token, topicId } = await twoExchanges()
    fake.script((request) => ({ kind: 'stream', chunks: [`答「${request.body.messages.at(-1)!.content}」`] }))
    const sent = await Promise.all(['甲', '乙', '丙'].map((content) => chat.send(token, topicId, content)))
    expect(sent.map((r) => r.body.code)).toEqual([2000, 2000, 2000])
    await ctx.h.chat.idle()
    const list = await branch(token, topicId)
    expect(list).toHaveLength(10)
    expect(list.filter((m) => / \d\/\d$/.test(m))).toEqual([])
    expect(
      list
        .slice(4)
        .filter((m) => m.startsWith('Q:'))
        .sort()
    ).toEqual(['Q:丙', 'Q:乙', 'Q:甲'])
  })
})

describe('regenerate and delete with branches', () => {
  it('regenerate keeps the old reply as a version; only the last reply of the branch shown can be', async () => {
    const { token, topicId, first, second } = await twoExchanges()
    const again = await chat.post('topic/message/regenerate', { replyId: second.replyId }, token)
    expect(again.body.code).toBe(2000)
    await ctx.h.chat.idle()
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'Q:问二', 'A:答3 2/2'])
    expect(lastUpstream()).toEqual(['user:问一', 'assistant:答1', 'user:问二'])
    await chat.post('topic/message/switch', { messageId: second.replyId, version: 1 }, token)
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'Q:问二', 'A:答2 1/2'])
    // The reply shown is the last now: it can be regenerated; the hidden one cannot.
    const hidden = again.body.data.replyId
    expect((await chat.post('topic/message/regenerate', { replyId: hidden }, token)).body.message).toBe('只能重新生成最后一条回复')
    expect((await chat.post('topic/message/regenerate', { replyId: first.replyId }, token)).body.message).toBe('只能重新生成最后一条回复')
  })

  it('deleting a message keeps the branch whole; deleting the version shown shows another', async () => {
    const { token, topicId, second } = await twoExchanges()
    fake.script({ kind: 'stream', chunks: ['改后'] })
    const edit = (await chat.post('topic/message/edit', { messageId: second.messageId, content: '改' }, token)).body.data
    await ctx.h.chat.idle()
    // The reply of the version shown: the branch ends at its question.
    expect((await chat.post('topic/message/del', { messageId: edit.replyId }, token)).body.code).toBe(2000)
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'Q:改 2/2'])
    // The question itself: the other version shows, with its reply.
    expect((await chat.post('topic/message/del', { messageId: edit.messageId }, token)).body.code).toBe(2000)
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'Q:问二', 'A:答2'])
    // A message in the middle: what followed it follows the one before it.
    expect((await chat.post('topic/message/del', { messageId: second.messageId }, token)).body.code).toBe(2000)
    expect(await branch(token, topicId)).toEqual(['Q:问一', 'A:答1', 'A:答2'])
    fake.script({ kind: 'stream', chunks: ['答'] })
    await chat.send(token, topicId, '再问')
    await ctx.h.chat.idle()
    expect(lastUpstream()).toEqual(['user:问一', 'assistant:答1', 'assistant:答2', 'user:再问'])
  })

  it('clearing a topic starts it afresh', async () => {
    const { token, topicId, second } = await twoExchanges()
    fake.script({ kind: 'stream', chunks: ['改后'] })
    await chat.post('topic/message/edit', { messageId: second.messageId, content: '改' }, token)
    await ctx.h.chat.idle()
    expect((await chat.post('topic/message/clear', { topicId }, token)).body.code).toBe(2000)
    fake.script({ kind: 'stream', chunks: ['新'] })
    await chat.send(token, topicId, '重新开始')
    await ctx.h.chat.idle()
    expect(lastUpstream()).toEqual(['user:重新开始'])
    expect(await branch(token, topicId)).toEqual(['Q:重新开始', 'A:新'])
  })
})

describe('the tree (branches.ts)', () => {
  const node = (id: string, seq: number, prevId: string | null, role = 'user'): Node => ({ id, seq, prevId, role, status: 'complete' })
  const ids = (nodes: Node[]) => nodes.map((n) => n.id)

  it('rows without prev_id follow the row before them; a row appended after the leaf by code that knows no branches shows', () => {
    // a, b: before branches; c edits b (a version beside it); d answers c; e, f: a tool's rows, appended later.
    const nodes = [node('a', 1, null), node('b', 2, null), node('c', 3, 'a'), node('d', 4, 'c', 'assistant')]
    expect(ids(activePath(treeOf({ id: 'T', leafId: null }, nodes)))).toEqual(['a', 'c', 'd'])
    expect(ids(activePath(treeOf({ id: 'T', leafId: 'b' }, nodes)))).toEqual(['a', 'b'])
    expect(versionOf(treeOf({ id: 'T', leafId: 'b' }, nodes), 'c')).toEqual({ version: 2, versions: 2 })
    const later = [...nodes, node('e', 5, null), node('f', 6, null, 'assistant')]
    expect(ids(activePath(treeOf({ id: 'T', leafId: 'b' }, later)))).toEqual(['a', 'c', 'd', 'e', 'f'])
  })

  it('a prev that is gone, or a leaf that is gone, never breaks the branch shown', () => {
    const nodes = [node('a', 1, 'T'), node('b', 2, 'gone'), node('c', 3, 'b', 'assistant')]
    const tree = treeOf({ id: 'T', leafId: 'nope' }, nodes)
    expect(ids(activePath(tree))).toEqual(['b', 'c'])
    expect(versionOf(tree, 'b')).toEqual({ version: 2, versions: 2 })
    expect(newestUnder(tree, 'T')!.id).toBe('c')
    expect(newestUnder(tree, 'T', 'b')!.id).toBe('a')
    expect(ids(activePath(treeOf({ id: 'T', leafId: null }, [])))).toEqual([])
  })
})
