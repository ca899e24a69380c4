import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { WireTask } from '../src/modules/painting/wire.js'
import { usePaintingHarness } from './helpers/painting.js'

// Issue 17 "Statistics": daily figures for the console's charts, one value per day (zeros where
// nothing happened), by calendar day in the operator's zone, and their CSV.
const OPERATOR = '13900000001'

beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
})
afterEach(() => vi.unstubAllEnvs())

interface Stat {
  stat: string
  days: string[]
  series: { name: string; values: number[] }[]
}

describe('statistics in the operator API', () => {
  const ctx = usePaintingHarness({ env: { SMS_HOURLY_PER_IP: '1000' } })
  const today = () => new Date(ctx.h.clock.now()).toLocaleDateString('sv-SE', { timeZone: 'Asia/Shanghai' })
  const daysAgo = (n: number) => new Date(Date.parse(`${today()}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10)

  it('counts sign-ups, paintings and active users per day, with zeros for quiet days', async () => {
    const alice = await ctx.h.login('13800138601')
    await ctx.h.login('13800138602')
    const op = await ctx.h.login(OPERATOR)
    const made = await ctx.h.post<WireTask>('/api/v1/painting/imagine', { prompt: '雪地里的狐狸' }, alice.token)
    expect((await ctx.h.settled(alice.token, made.body.data.taskId)).status).toBe('SUCCESS')

    const stat = async (name: string, from = daysAgo(2), to = today()) => {
      const res = await ctx.h.post<Stat>('/api/admin/stats', { stat: name, from, to }, op.token)
      expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
      return res.body.data
    }
    const signups = await stat('signups')
    expect(signups.days).toEqual([daysAgo(2), daysAgo(1), today()])
    expect(signups.series).toEqual([{ name: '注册', values: [0, 0, 3] }])
    expect((await stat('paintings')).series).toEqual([{ name: '绘画', values: [0, 0, 1] }])
    expect((await stat('active')).series).toEqual([{ name: '活跃用户', values: [0, 0, 1] }])
    expect((await stat('errors')).series.map((s) => [s.name, s.values])).toEqual([
      ['对话', [0, 0, 0]],
      ['绘画', [0, 0, 0]],
      ['音乐', [0, 0, 0]]
    ])
    expect((await stat('tokens')).series).toEqual([{ name: '全部模型', values: [0, 0, 0] }])
    // a range that ended before anything happened
    expect((await stat('signups', daysAgo(5), daysAgo(3))).series[0]!.values).toEqual([0, 0, 0])

    const csv = await ctx.h.app.request(`/api/admin/stats/csv?stat=signups&from=${daysAgo(1)}&to=${today()}`, {
      headers: { authorization: `Bearer ${op.token}` }
    })
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="stats-signups-${daysAgo(1)}-${today()}.csv"`)
    expect((await csv.text()).replace('\ufeff', '').trim().split('\r\n')).toEqual(['"date","注册"', `"${daysAgo(1)}","0"`, `"${today()}","3"`])
  })

  it('refuses bad ranges with a message that names the problem, and anyone without ADMIN', async () => {
    const user = await ctx.h.login('13800138601')
    const op = await ctx.h.login(OPERATOR)
    const ask = (body: object, token = op.token) => ctx.h.post('/api/admin/stats', body, token)
    expect((await ask({ stat: 'signups', from: '2026-02-01', to: '2026-01-01' })).body.message).toBe('结束日期不能早于开始日期')
    expect((await ask({ stat: 'signups', from: '2024-01-01', to: '2026-01-01' })).body.message).toBe('日期范围最多 366 天')
    expect((await ask({ stat: 'signups', from: '2026-01-01', to: '2026-01-02', tz: 'Mars/Olympus' })).body.message).toBe('时区不正确（例如 Asia/Shanghai）')
    expect((await ask({ stat: 'visits', from: '2026-01-01', to: '2026-01-02' })).body.code).toBe(40000001)
    const refused = await ask({ stat: 'signups', from: '2026-01-01', to: '2026-01-02' }, user.token)
    expect([refused.status, refused.body.code]).toEqual([403, 40300001])
    const csv = await ctx.h.app.request('/api/admin/stats/csv?stat=signups&from=2026-01-01&to=2026-01-02', {
      headers: { authorization: `Bearer ${user.token}` }
    })
    expect(csv.status).toBe(403)
  })
})
