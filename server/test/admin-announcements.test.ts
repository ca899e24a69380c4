import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useHarness } from './helpers/database-hooks.js'

// Issue 17 "Announcements": an operator posts a notice with a start and an end (and whether embeds
// show it); visitors get it while it runs, signed in or not; withdrawing it ends it at once.
const OPERATOR = '13900000001'
const HOUR = 3600_000

beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
})
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness()

interface Notice {
  id: number
  title: string
  body: string
  startTime: number
  endTime: number
}

describe('announcements', () => {
  const shown = async (embed?: boolean) => (await ctx.h.post<Notice[]>('/api/v1/announcements', embed === undefined ? {} : { embed })).body.data

  it('are shown between their start and end, to everyone, in embeds only when marked, until withdrawn', async () => {
    const { accessToken: token } = await ctx.h.login(OPERATOR)
    const now = ctx.h.clock.now()
    const post = (body: object) => ctx.h.post<Notice>('/api/admin/announcements/save', body, { token })
    const site = await post({ title: '维护通知', body: '今晚 23:00 起维护 30 分钟', startTime: now - HOUR, endTime: now + HOUR })
    expect(site.body.code, JSON.stringify(site.body)).toBe(2000)
    const later = await post({ title: '新功能', body: '音乐生成上线', startTime: now + HOUR, endTime: now + 2 * HOUR, embeds: true })
    const embedded = await post({ title: '春节活动', body: '充值八折', startTime: now - HOUR, endTime: now + HOUR, embeds: true })

    expect((await shown()).map((n) => n.title).sort()).toEqual(['春节活动', '维护通知'])
    expect((await shown(true)).map((n) => n.title)).toEqual(['春节活动'])
    ctx.h.clock.advance(HOUR + 1)
    expect((await shown()).map((n) => n.title)).toEqual(['新功能'])

    // changed, then withdrawn: gone at once
    const changed = await post({ id: later.body.data.id, title: '新功能上线', body: '音乐生成上线', startTime: now, endTime: now + 3 * HOUR, embeds: true })
    expect(changed.body.data.title).toBe('新功能上线')
    expect((await ctx.h.post('/api/admin/announcements/withdraw', { id: later.body.data.id }, { token })).body.code).toBe(2000)
    expect(await shown()).toEqual([])
    expect((await ctx.h.post('/api/admin/announcements/withdraw', { id: later.body.data.id }, { token })).body.message).toBe('公告不存在或已撤回')

    const list = (await ctx.h.post<{ list: { title: string; active: boolean; withdrawn: boolean }[] }>('/api/admin/announcements/list', {}, { token })).body
      .data.list
    expect(list.map((n) => [n.title, n.active, n.withdrawn])).toEqual([
      ['春节活动', false, false],
      ['新功能上线', false, true],
      ['维护通知', false, false]
    ])
    expect(embedded.body.code).toBe(2000)
  })

  it('refuses an end before the start, and anyone without ADMIN', async () => {
    const { accessToken: token } = await ctx.h.login(OPERATOR)
    const user = await ctx.h.login('13800138000')
    const now = ctx.h.clock.now()
    const bad = await ctx.h.post('/api/admin/announcements/save', { title: 't', body: 'b', startTime: now, endTime: now - 1 }, { token })
    expect([bad.body.code, bad.body.message]).toEqual([40000001, '结束时间必须晚于开始时间'])
    expect((await ctx.h.post('/api/admin/announcements/save', { title: '', body: 'b', startTime: now, endTime: now + 1 }, { token })).body.message).toContain(
      '标题'
    )
    for (const path of ['/list', '/save', '/withdraw']) {
      expect(
        (await ctx.h.post(`/api/admin/announcements${path}`, { id: 1, title: 't', body: 'b', startTime: now, endTime: now + 1 }, { token: user.accessToken }))
          .status
      ).toBe(403)
    }
  })
})
