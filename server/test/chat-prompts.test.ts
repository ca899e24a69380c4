import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { chatPrompts } from '../src/db/schema.js'
import { MAX_PROMPTS } from '../src/modules/chat/prompts.js'
import { chatHelpers } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()
const chat = chatHelpers(ctx)
const rows = async (accountId: string) => ctx.db.db.select().from(chatPrompts).where(eq(chatPrompts.accountId, accountId))

describe('prompt shortcuts', () => {
  it('saves, lists (newest first, with the roles’ prompts), edits and deletes my prompts', async () => {
    const { token } = await chat.user()
    const empty = await chat.post('prompt/list', {}, token)
    expect(empty.body.data.mine).toEqual([])
    expect(empty.body.data.roles.length).toBeGreaterThan(0)
    expect(empty.body.data.roles.find((r: any) => r.roleId === 'mock-interviewer')).toMatchObject({
      title: '模拟面试官',
      avatar: '👔',
      content: expect.stringContaining('面试')
    })

    const a = await chat.post('prompt/save', { title: '翻译', content: '请把下面的内容翻译成英文：' }, token)
    expect(a.body.data).toEqual({
      promptId: expect.any(String),
      title: '翻译',
      content: '请把下面的内容翻译成英文：',
      createTime: ctx.h.clock.now(),
      updateTime: ctx.h.clock.now()
    })
    const b = await chat.post('prompt/save', { title: ' 总结 ', content: '总结要点' }, token)
    expect(b.body.data.title).toBe('总结')
    expect((await chat.post('prompt/list', {}, token)).body.data.mine.map((p: any) => p.title)).toEqual(['总结', '翻译'])

    ctx.h.clock.advance(1000)
    const edited = await chat.post('prompt/save', { promptId: a.body.data.promptId, title: '翻译成英文', content: 'Translate:' }, token)
    expect(edited.body.data).toMatchObject({ promptId: a.body.data.promptId, title: '翻译成英文', content: 'Translate:', updateTime: ctx.h.clock.now() })

    expect((await chat.post('prompt/del', { promptId: b.body.data.promptId }, token)).body).toMatchObject({ code: 2000, data: null })
    expect((await chat.post('prompt/list', {}, token)).body.data.mine.map((p: any) => p.title)).toEqual(['翻译成英文'])
    expect((await chat.post('prompt/del', { promptId: b.body.data.promptId }, token)).body.code).toBe(40400001)
  })

  it("never shows, edits or deletes another account's prompts; forged ids answer 40400001", async () => {
    const a = await chat.user('13800138000')
    const b = await chat.user('13800138001')
    const mine = await chat.post('prompt/save', { title: '私密', content: '只属于 A 的提示词' }, a.token)
    const id = mine.body.data.promptId
    expect((await chat.post('prompt/list', {}, b.token)).body.data.mine).toEqual([])
    const edit = await chat.post('prompt/save', { promptId: id, title: '改', content: '改掉' }, b.token)
    expect(edit.body.code).toBe(40400001)
    expect(JSON.stringify(edit.body)).not.toContain('只属于')
    expect((await chat.post('prompt/del', { promptId: id }, b.token)).body.code).toBe(40400001)
    expect((await chat.post('prompt/save', { promptId: 'forged', title: 'x', content: 'y' }, a.token)).body.code).toBe(40400001)
    expect(await rows(a.accountId)).toMatchObject([{ title: '私密', content: '只属于 A 的提示词' }])
    expect(await rows(b.accountId)).toEqual([])
    expect((await chat.post('prompt/list', {}, '')).status).toBe(401)
  })

  it('refuses bad input with a clear message and changes nothing', async () => {
    const { token, accountId } = await chat.user()
    const cases: [unknown, string][] = [
      [{ title: '', content: 'x' }, '标题不能为空'],
      [{ title: 'x', content: '  ' }, '提示词内容不能为空'],
      [{ title: '字'.repeat(31), content: 'x' }, '标题不能超过 30 个字符'],
      [{ title: 'x', content: '字'.repeat(2001) }, '提示词内容不能超过 2000 个字符'],
      [{ title: 'x', content: 'y', promptId: 'i'.repeat(65) }, 'promptId 不能超过 64 个字符'],
      [{ title: 1, content: 'y' }, '标题格式不正确']
    ]
    for (const [body, message] of cases) {
      const res = await chat.post('prompt/save', body, token)
      expect(res.body.code).toBe(40000001)
      expect(res.body.message).toContain(message)
    }
    expect(await rows(accountId)).toEqual([])
  })

  it(`keeps at most ${MAX_PROMPTS} prompts, concurrent saves included`, async () => {
    const { token, accountId } = await chat.user()
    await Promise.all(Array.from({ length: MAX_PROMPTS - 3 }, (_, i) => chat.post('prompt/save', { title: `p${i}`, content: 'x' }, token)))
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => chat.post('prompt/save', { title: `q${i}`, content: 'x' }, token)))
    expect(results.filter((r) => r.body.code === 2000)).toHaveLength(3)
    expect(results.find((r) => r.body.code !== 2000)!.body).toMatchObject({ code: 40000001, message: `最多保存 ${MAX_PROMPTS} 条提示词，请先删除不用的` })
    expect(await rows(accountId)).toHaveLength(MAX_PROMPTS)
  }, 60_000)
})
