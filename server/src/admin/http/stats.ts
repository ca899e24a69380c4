import { type SQL, sql } from 'drizzle-orm'
import { z } from 'zod'
import { accounts, chatMessages, musicSongs, paintingTasks, rechargeLog } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute, requireAuth, requirePermission } from '../../http/api.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'
import { csvResponse } from './csv.js'

/**
 * 统计 (issue 17): daily figures for the console's charts and their CSV. Days are calendar days in
 * `tz` (default Asia/Shanghai); a day with nothing is a 0, so every series has one value per day.
 */
export const STATS = ['signups', 'active', 'tokens', 'paintings', 'songs', 'cards', 'errors'] as const
export type StatName = (typeof STATS)[number]
const MAX_DAYS = 366
const DAY_MS = 86_400_000

const range = z.object({
  stat: z.enum(STATS),
  /** First and last day, inclusive (YYYY-MM-DD). */
  from: z.iso.date({ error: 'from 必须是 YYYY-MM-DD 日期' }),
  to: z.iso.date({ error: 'to 必须是 YYYY-MM-DD 日期' }),
  tz: z
    .string()
    .max(64)
    .refine((tz) => isTimeZone(tz), { error: '时区不正确（例如 Asia/Shanghai）' })
    .optional()
})
type Range = z.infer<typeof range>

export const statSeries = z
  .object({
    stat: z.enum(STATS),
    days: z.array(z.string()),
    /** One line per series (a model, a tool…), one value per day. */
    series: z.array(z.object({ name: z.string(), values: z.array(z.number()) }))
  })
  .meta({ id: 'AdminStatSeries' })
type StatResult = z.infer<typeof statSeries>

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

function daysOf(r: Range): string[] {
  const start = Date.parse(`${r.from}T00:00:00Z`)
  const end = Date.parse(`${r.to}T00:00:00Z`)
  if (end < start) throw new ApiError(40000001, '结束日期不能早于开始日期')
  const n = Math.round((end - start) / DAY_MS) + 1
  if (n > MAX_DAYS) throw new ApiError(40000001, `日期范围最多 ${MAX_DAYS} 天`)
  return Array.from({ length: n }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10))
}

/** `column`'s calendar day in the zone, as YYYY-MM-DD. */
const dayOf = (column: SQL | unknown, tz: string) => sql<string>`to_char(${column} at time zone ${tz}, 'YYYY-MM-DD')`

/** Rows of (day, series, n) within the range, for one figure. */
async function rows(api: Api, stat: StatName, r: Range, tz: string): Promise<{ day: string; name: string; n: number }[]> {
  // The range's bounds in the zone: from the first day's midnight to the day after the last.
  const from = sql`(${r.from}::date)::timestamp at time zone ${tz}`
  const to = sql`((${r.to}::date) + 1)::timestamp at time zone ${tz}`
  const within = (column: unknown) => sql`${column} >= ${from} and ${column} < ${to}`
  const count = (table: unknown, column: unknown, name: string, extra: SQL = sql`true`) =>
    sql`select ${dayOf(column, tz)} as day, ${name} as name, count(*)::int as n from ${table} where ${within(column)} and ${extra} group by 1`
  let query: SQL
  switch (stat) {
    case 'signups':
      query = count(accounts, accounts.createdAt, '注册')
      break
    case 'active':
      // Anyone who asked a question, painted or made a song that day (by account, counted once).
      query = sql`select day, '活跃用户' as name, count(distinct account_id)::int as n from (
        select ${dayOf(chatMessages.createdAt, tz)} as day, ${chatMessages.accountId} as account_id from ${chatMessages} where ${within(chatMessages.createdAt)} and ${chatMessages.role} = 'user'
        union all select ${dayOf(paintingTasks.createdAt, tz)}, ${paintingTasks.accountId} from ${paintingTasks} where ${within(paintingTasks.createdAt)}
        union all select ${dayOf(musicSongs.createdAt, tz)}, ${musicSongs.accountId} from ${musicSongs} where ${within(musicSongs.createdAt)}
      ) a group by 1`
      break
    case 'tokens':
      query = sql`select ${dayOf(chatMessages.createdAt, tz)} as day, coalesce(${chatMessages.model}, '未知') as name,
        coalesce(sum(coalesce(${chatMessages.promptTokens}, 0) + coalesce(${chatMessages.completionTokens}, 0)), 0)::bigint as n
        from ${chatMessages} where ${within(chatMessages.createdAt)} and ${chatMessages.role} = 'assistant' group by 1, 2`
      break
    case 'paintings':
      query = count(paintingTasks, paintingTasks.createdAt, '绘画')
      break
    case 'songs':
      query = count(musicSongs, musicSongs.createdAt, '歌曲')
      break
    case 'cards':
      query = count(rechargeLog, rechargeLog.createdAt, '兑换')
      break
    case 'errors':
      // Replies the upstream failed or timed out, paintings it failed, songs it could not make.
      query = sql`${count(chatMessages, chatMessages.createdAt, '对话', sql`${chatMessages.errorCode} in (50200001, 50400001)`)}
        union all ${count(paintingTasks, paintingTasks.createdAt, '绘画', sql`${paintingTasks.status} in ('FAILURE', 'TIMEOUT')`)}
        union all ${count(musicSongs, musicSongs.createdAt, '音乐', sql`${musicSongs.status} = 'error'`)}`
      break
  }
  const result = await api.db.execute<{ day: string; name: string; n: number | string }>(query)
  const list = (Array.isArray(result) ? result : (result as unknown as { rows: { day: string; name: string; n: number | string }[] }).rows) ?? []
  return list.map((row) => ({ day: row.day, name: row.name, n: Number(row.n) }))
}

/** Every day of the range, every series named, zeros where nothing happened. */
export async function statOf(api: Api, r: Range): Promise<StatResult> {
  const tz = r.tz ?? 'Asia/Shanghai'
  const days = daysOf(r)
  const index = new Map(days.map((d, i) => [d, i]))
  const found = await rows(api, r.stat, r, tz)
  const named = new Map<string, number[]>()
  // Series that always exist, so a quiet range still draws its (flat) lines.
  for (const name of r.stat === 'errors' ? ['对话', '绘画', '音乐'] : [])
    named.set(
      name,
      days.map(() => 0)
    )
  for (const row of found) {
    const i = index.get(row.day)
    if (i === undefined) continue
    const values = named.get(row.name) ?? days.map(() => 0)
    values[i] = (values[i] ?? 0) + row.n
    named.set(row.name, values)
  }
  if (named.size === 0)
    named.set(
      r.stat === 'tokens' ? '全部模型' : '合计',
      days.map(() => 0)
    )
  return { stat: r.stat, days, series: [...named].map(([name, values]) => ({ name, values })) }
}

export function registerStatsRoutes(api: Api): void {
  defineRoute(
    api,
    '/api/admin/stats',
    {
      tag: TAG,
      summary: `Daily figures for the console's charts: ${STATS.join(', ')}; one value per day of the range (at most ${MAX_DAYS} days)`,
      permission: ADMIN_PERMISSION,
      auth: true,
      body: range,
      response: statSeries
    },
    async ({ body }) => statOf(api, body)
  )

  const csvPath = '/api/admin/stats/csv'
  api.docs.push({
    method: 'get',
    path: csvPath,
    tag: TAG,
    summary: 'One figure as CSV (query: stat, from, to, tz): a line per day, a column per series',
    auth: true,
    contentType: 'text/csv'
  })
  api.app.get(csvPath, requirePermission(api, ADMIN_PERMISSION), async (c) => {
    const parsed = range.safeParse(c.req.query())
    if (!parsed.success) throw new ApiError(40000001, `统计条件不正确：${parsed.error.issues.map((i) => i.path.join('.')).join('、')}`)
    const result = await statOf(api, parsed.data)
    const auth = await requireAuth(api, c)
    await audit(
      api.db,
      auth,
      { action: 'stats.export', target: `stats:${result.stat}`, after: { from: parsed.data.from, to: parsed.data.to } },
      new Date(api.now())
    )
    return csvResponse(
      c,
      `stats-${result.stat}-${parsed.data.from}-${parsed.data.to}.csv`,
      ['date', ...result.series.map((s) => s.name)],
      result.days.map((day, i) => [day, ...result.series.map((s) => s.values[i] ?? 0)])
    )
  })
}
