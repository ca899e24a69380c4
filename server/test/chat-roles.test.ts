import { asc, count, isNull } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { readRoleSeed, seedRoles } from '../src/modules/chat/roles.js'
import { chatRoles, chatRoleTags, chatTags, chatTopics } from '../src/db/schema.js'
import { chatHelpers } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()
const chat = chatHelpers(ctx)

const newRole = (extra: Record<string, unknown> = {}) => ({
  name: '周报写手',
  avatar: '📝',
  description: '把流水账写成周报',
  systemPrompt: '你是一名擅长写周报的助手。请把用户的工作记录整理成周报。',
  welcomeMessage: '把这周做的事发给我吧',
  tagIds: ['work', 'writing'],
  ...extra
})

describe('role repository', () => {
  it('is seeded from data/roles.json: at least 30 useful roles across at least 6 tags, idempotently', async () => {
    const seed = readRoleSeed()
    expect(seed.roles.length).toBeGreaterThanOrEqual(30)
    expect(seed.tags.map((t) => t.name)).toEqual(expect.arrayContaining(['写作', '编程', '学习', '职场', '生活', '娱乐']))
    for (const role of seed.roles) {
      expect(role.systemPrompt.length, role.id).toBeGreaterThan(120)
      expect(role.systemPrompt.split(/[。.]/).length, role.id).toBeGreaterThan(3)
      expect(role.welcomeMessage?.length, role.id).toBeGreaterThan(10)
      expect(role.avatar).toMatch(/\p{Extended_Pictographic}/u)
    }
    const counts = async () => ({
      roles: (await ctx.db.db.select({ n: count() }).from(chatRoles).where(isNull(chatRoles.accountId)))[0]!.n,
      tags: (await ctx.db.db.select({ n: count() }).from(chatTags))[0]!.n,
      links: (await ctx.db.db.select({ n: count() }).from(chatRoleTags))[0]!.n
    })
    const before = await counts()
    expect(before.roles).toBe(seed.roles.length)
    await seedRoles(ctx.db.db)
    await seedRoles(ctx.db.db)
    expect(await counts()).toEqual(before)

    const { token } = await chat.user()
    const tags = (await chat.post('role-play/tag/list', {}, token)).body.data
    expect(tags.length).toBeGreaterThanOrEqual(6)
    for (const tag of tags) expect(tag.count, tag.name).toBeGreaterThanOrEqual(3)
    expect(tags[0]).toEqual({ tagId: 'writing', name: '写作', count: expect.any(Number) })
  })

  it('lists public roles paged, searches name and description, and filters by tag', async () => {
    const { token } = await chat.user()
    const page = await chat.post('role-play/list', { pageNum: 1, pageSize: 10 }, token)
    expect(page.body.data.total).toBe(readRoleSeed().roles.length)
    expect(page.body.data.list).toHaveLength(10)
    expect(page.body.data.list[0]).toEqual({
      roleId: 'xiaohongshu-copywriter',
      name: '小红书文案达人',
      avatar: '📕',
      description: expect.any(String),
      systemPrompt: expect.any(String),
      welcomeMessage: expect.any(String),
      tags: [
        { tagId: 'writing', name: '写作' },
        { tagId: 'work', name: '职场' }
      ],
      isPublic: true,
      mine: false,
      createTime: expect.any(Number),
      updateTime: expect.any(Number)
    })
    const names = async (body: Record<string, unknown>) =>
      (await chat.post('role-play/list', { pageNum: 1, pageSize: 100, ...body }, token)).body.data.list.map((r: { name: string }) => r.name)
    expect(await names({ keyword: '面试' })).toEqual(['模拟面试官'])
    // Description matches too; LIKE wildcards are taken literally.
    expect(await names({ keyword: 'SQL' })).toContain('SQL 数据库顾问')
    expect(await names({ keyword: '%' })).toEqual([])
    const coding = await names({ tagId: 'coding' })
    expect(coding).toContain('代码审查专家')
    expect(coding).not.toContain('家常菜大厨')
    expect(await names({ tagId: 'coding', keyword: 'Python' })).toEqual(['Python 编程老师'])
    expect(await names({ tagId: 'no-such-tag' })).toEqual([])
  })

  it('creates, edits and deletes my own roles; mine come first and only I see them', async () => {
    const me = await chat.user()
    const other = await chat.user('13900139000')
    const created = await chat.post('role-play/save', newRole(), me.token)
    expect(created.body.code).toBe(2000)
    const role = created.body.data
    expect(role).toMatchObject({ name: '周报写手', avatar: '📝', isPublic: false, mine: true, welcomeMessage: '把这周做的事发给我吧' })
    expect(role.tags).toEqual([
      { tagId: 'writing', name: '写作' },
      { tagId: 'work', name: '职场' }
    ])
    const first = (await chat.post('role-play/list', { pageNum: 1, pageSize: 5 }, me.token)).body.data
    expect(first.list[0].roleId).toBe(role.roleId)
    expect((await chat.post('role-play/list', { mine: true }, me.token)).body.data).toMatchObject({ total: 1, list: [{ roleId: role.roleId }] })
    expect((await chat.post('role-play/list', { mine: true }, other.token)).body.data.total).toBe(0)
    expect((await chat.post('role-play/list', { keyword: '周报写手' }, other.token)).body.data.total).toBe(0)
    const tagCount = async (token: string) =>
      (await chat.post('role-play/tag/list', {}, token)).body.data.find((t: { tagId: string }) => t.tagId === 'work').count
    expect(await tagCount(me.token)).toBe((await tagCount(other.token)) + 1)

    ctx.h.clock.advance(5000)
    const edited = await chat.post(
      'role-play/save',
      newRole({ roleId: role.roleId, name: '月报写手', avatar: '/files/avatars/a.png', tagIds: [], welcomeMessage: '' }),
      me.token
    )
    expect(edited.body.data).toMatchObject({
      roleId: role.roleId,
      name: '月报写手',
      avatar: '/files/avatars/a.png',
      tags: [],
      welcomeMessage: null,
      updateTime: ctx.h.clock.now()
    })

    // A topic made with the role keeps working after the role is deleted.
    const topic = await chat.topic(me.token, { roleId: role.roleId })
    expect((await chat.post('role-play/del', { roleId: role.roleId }, me.token)).body).toEqual({ code: 2000, message: '操作成功', data: null })
    expect((await chat.post('role-play/list', { mine: true }, me.token)).body.data.total).toBe(0)
    const [kept] = await ctx.db.db.select().from(chatTopics)
    expect(kept).toMatchObject({ roleId: null, roleName: '月报写手', systemPrompt: newRole().systemPrompt })
    expect((await chat.send(me.token, topic.topicId, '你好')).body.code).toBe(2000)
    await ctx.h.chat.idle()
  })

  it('validates roles and refuses other accounts, public roles and unknown tags, changing nothing', async () => {
    const me = await chat.user()
    const other = await chat.user('13900139000')
    const theirs = (await chat.post('role-play/save', newRole(), other.token)).body.data
    const snapshot = async () => ({
      roles: await ctx.db.db.select().from(chatRoles).orderBy(asc(chatRoles.seq)),
      links: await ctx.db.db.select().from(chatRoleTags).orderBy(asc(chatRoleTags.roleId), asc(chatRoleTags.tagId))
    })
    const before = await snapshot()
    const cases: [string, unknown, number, string][] = [
      ['role-play/save', newRole({ name: '' }), 40000001, 'name 不能为空'],
      ['role-play/save', newRole({ name: '名'.repeat(31) }), 40000001, 'name 不能超过 30 个字符'],
      ['role-play/save', newRole({ description: '述'.repeat(201) }), 40000001, 'description 不能超过 200 个字符'],
      ['role-play/save', newRole({ systemPrompt: ' ' }), 40000001, 'systemPrompt 不能为空'],
      ['role-play/save', newRole({ systemPrompt: '设'.repeat(4001) }), 40000001, 'systemPrompt 不能超过 4000 个字符'],
      ['role-play/save', newRole({ welcomeMessage: '欢'.repeat(501) }), 40000001, 'welcomeMessage 不能超过 500 个字符'],
      ['role-play/save', newRole({ tagIds: ['work', 'no-such-tag'] }), 40000001, 'tagIds 中的标签不存在：no-such-tag'],
      ['role-play/save', newRole({ tagIds: 'work' }), 40000001, 'tagIds 必须是数组'],
      ...['abc', '😀😀😀😀😀😀😀😀😀', 'https://evil.example.com/files/a.png', '/files/../etc/passwd', 'javascript:alert(1)', '/avatars/a.png'].map(
        (avatar) =>
          ['role-play/save', newRole({ avatar }), 40000001, 'avatar 必须是一个 emoji（不超过 8 个字符）或本站 /files/ 下的图片地址'] as [
            string,
            unknown,
            number,
            string
          ]
      ),
      ['role-play/save', newRole({ roleId: theirs.roleId }), 40400001, '角色不存在或已删除'],
      ['role-play/save', newRole({ roleId: 'mock-interviewer' }), 40300001, '公共角色不能修改或删除'],
      ['role-play/del', { roleId: theirs.roleId }, 40400001, '角色不存在或已删除'],
      ['role-play/del', { roleId: 'mock-interviewer' }, 40300001, '公共角色不能修改或删除'],
      ['role-play/del', {}, 40000001, 'roleId 不能为空'],
      ['role-play/list', { pageSize: 500 }, 40000001, 'pageSize 不能大于 100'],
      ['role-play/list', { mine: 'yes' }, 40000001, 'mine 只能是 true 或 false'],
      ['role-play/list', { keyword: '词'.repeat(51) }, 40000001, 'keyword 不能超过 50 个字符'],
      ['topic/create', { roleId: theirs.roleId }, 40400001, '角色不存在或已删除']
    ]
    for (const [path, body, code, message] of cases) {
      expect((await chat.post(path, body, me.token)).body, `${path} ${JSON.stringify(body).slice(0, 80)}`).toEqual({ code, message, data: null })
    }
    expect(await snapshot()).toEqual(before)
    // Emoji sequences and absolute URLs on this server are fine.
    for (const avatar of ['👩‍💻', '🇨🇳', '🧑🏽‍🍳', `${ctx.h.config.publicUrl}/files/u/1.webp`]) {
      expect((await chat.post('role-play/save', newRole({ avatar }), me.token)).body.code, avatar).toBe(2000)
    }
  })
})

describe('openapi.json', () => {
  it('documents every chat endpoint, the streams included', async () => {
    const doc = (await (await ctx.h.app.request('/api/openapi.json')).json()) as { paths: Record<string, Record<string, { security: unknown[] }>> }
    const posts = [
      'topic/create',
      'topic/list',
      'topic/configs/save',
      'topic/configs/context/switch',
      'topic/top/switch',
      'topic/name/edit',
      'topic/del',
      'topic/messages',
      'topic/message/send',
      'topic/message/regenerate',
      'topic/message/get',
      'topic/message/del',
      'topic/message/clear',
      'topic/message/stop',
      'role-play/tag/list',
      'role-play/list',
      'role-play/save',
      'role-play/del'
    ]
    for (const path of posts) expect(doc.paths[`/api/v1/ai-chat/${path}`]?.post?.security, path).toEqual([{ bearer: [] }])
    expect(doc.paths['/api/v1/ai-chat/sse/subscribe/{requestId}']?.get).toBeDefined()
    expect(doc.paths['/api/v1/ai-chat/sse/subscribe']?.get).toBeDefined()
  })
})
