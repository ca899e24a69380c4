import type { Db } from '../db/database.js'
import {
  approveOrder,
  createActivity,
  listActivitiesForOperator,
  listSubmissions,
  type NewActivity,
  OperatorError,
  rejectOrder
} from '../modules/orders/operator.js'
import { type Platform, PLATFORMS } from '../modules/orders/wire.js'
import { AdminError } from './commands.js'

export const ORDERS_HELP = `  lingxi-admin orders activity create --title T --brief B --platform P --reward-fen N --budget-fen N
        --start TIME --end TIME [--requirements R] [--quality] [--sessions N] [--places N] [--cover URL]
                                                  publish an activity (platforms: ${PLATFORMS.join(', ')};
                                                  TIME: ISO 8601, "now" or +Nd/+Nh from now)
  lingxi-admin orders activity list               every activity with its budget
  lingxi-admin orders review list [--status S]    submissions waiting for review (or orders of status S)
  lingxi-admin orders review approve <orderId>    approve: the reward can be claimed as a red packet
  lingxi-admin orders review reject <orderId> --reason R   reject with a reason shown to the person`

type WithDb = <T>(run: (db: Db) => Promise<T>) => Promise<T>

/** "now", "+7d", "+3h", "+30m" or anything Date.parse reads (ISO 8601). */
export function parseTime(value: string, now = Date.now()): number {
  const v = value.trim()
  if (v === 'now') return now
  const rel = /^\+(\d+)([dhm])$/.exec(v)
  if (rel) return now + Number(rel[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[rel[2] as 'd' | 'h' | 'm']
  const t = Date.parse(v)
  if (Number.isNaN(t)) throw new AdminError(`"${value}" is not a time (ISO 8601 like 2025-06-01T10:00:00+08:00, "now" or +7d)`, 2)
  return t
}

function options(args: string[], flags: string[], valued: string[]): Record<string, string | true> {
  const out: Record<string, string | true> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ''
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg)
    const name = m?.[1]
    if (!m || !name || (!flags.includes(name) && !valued.includes(name))) throw new AdminError(`Unknown option: ${arg}`, 2)
    if (flags.includes(name)) out[name] = true
    else {
      const value = m[2] ?? args[++i]
      if (value === undefined) throw new AdminError(`--${name} needs a value`, 2)
      out[name] = value
    }
  }
  return out
}

const whole = (name: string, raw: string | true | undefined, fallback?: number): number => {
  if (raw === undefined && fallback !== undefined) return fallback
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new AdminError(`--${name} must be a whole number`, 2)
  return Number(raw)
}
const text = (name: string, raw: string | true | undefined): string => {
  if (typeof raw !== 'string' || raw.trim() === '') throw new AdminError(`--${name} is required`, 2)
  return raw.trim()
}
export const fen = (n: number) => `${(n / 100).toFixed(2)} 元`
const day = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace('T', ' ') : '-')

/** `orders activity create`'s options → the activity (a usage error, exit code 2, when they do not make one). */
export function activityInput(rest: string[], now = Date.now()): NewActivity {
  const o = options(
    rest,
    ['quality'],
    ['title', 'brief', 'requirements', 'platform', 'reward-fen', 'budget-fen', 'start', 'end', 'sessions', 'places', 'cover']
  )
  const platform = text('platform', o.platform) as Platform
  if (!PLATFORMS.includes(platform)) throw new AdminError(`--platform must be one of ${PLATFORMS.join(', ')}`, 2)
  return {
    title: text('title', o.title),
    brief: text('brief', o.brief),
    requirements: typeof o.requirements === 'string' ? o.requirements.trim() : '',
    platform,
    quality: o.quality === true,
    rewardFen: whole('reward-fen', o['reward-fen']),
    budgetFen: whole('budget-fen', o['budget-fen']),
    startTime: parseTime(text('start', o.start), now),
    endTime: parseTime(text('end', o.end), now),
    sessions: whole('sessions', o.sessions, 1),
    places: whole('places', o.places, 10),
    cover: typeof o.cover === 'string' ? o.cover.trim() : null
  }
}

/** `orders review list [--status S]` → the status asked for. */
export const reviewStatus = (rest: string[]): string => {
  const o = options(rest, [], ['status'])
  return typeof o.status === 'string' ? o.status : 'submitted'
}

/** `lingxi-admin orders …`; returns the exit code. */
export async function runOrdersCommand(args: string[], io: { out(line: string): void }, withDb: WithDb): Promise<number> {
  const [area, sub, ...rest] = args
  try {
    if (area === 'activity' && sub === 'create') {
      const input = activityInput(rest)
      const created = await withDb((db) => createActivity(db, input))
      io.out(`Created activity ${created.id} (${created.quality ? '优质接单平台' : '接单平台'}): ${created.title}`)
      for (const [i, sid] of created.sessionIds.entries()) io.out(`  session ${i + 1}: ${sid}`)
      return 0
    }
    if (area === 'activity' && sub === 'list' && rest.length === 0) {
      const rows = await withDb((db) => listActivitiesForOperator(db))
      if (rows.length === 0) io.out('No activities yet.')
      for (const a of rows) {
        io.out(
          `${a.id}  ${a.quality ? '[优质] ' : ''}${a.title}  ${a.platform}  reward ${fen(a.rewardFen)}  budget ${fen(a.budgetFen)}  reserved ${fen(a.reservedFen)}  spent ${fen(a.spentFen)}  ${day(a.startTime)} → ${day(a.endTime)}`
        )
      }
      return 0
    }
    if (area === 'review' && sub === 'list') {
      const status = reviewStatus(rest)
      const rows = await withDb((db) => listSubmissions(db, status))
      if (rows.length === 0) io.out(status === 'submitted' ? 'No submissions waiting for review.' : `No ${status} orders.`)
      for (const r of rows) {
        io.out(
          `${r.order.id}  ${r.quality ? '[优质] ' : ''}${r.title}  +${r.enCode} ${r.phone}  ${fen(r.order.rewardFen)}  submitted ${day(r.order.submitTime)}`
        )
        if (r.order.link) io.out(`    link: ${r.order.link}`)
        for (const s of r.order.screenshots) io.out(`    screenshot: ${s}`)
      }
      return 0
    }
    if (area === 'review' && (sub === 'approve' || sub === 'reject')) {
      const [orderId, ...more] = rest
      if (!orderId || orderId.startsWith('--'))
        throw new AdminError(`Usage: lingxi-admin orders review ${sub} <orderId>${sub === 'reject' ? ' --reason R' : ''}`, 2)
      if (sub === 'approve') {
        if (more.length > 0) throw new AdminError(`Unknown option: ${more[0]}`, 2)
        const row = await withDb((db) => approveOrder(db, orderId))
        io.out(`Approved ${row.id}: reward ${fen(row.rewardFen)} can now be claimed as a red packet.`)
      } else {
        const o = options(more, [], ['reason'])
        const row = await withDb((db) => rejectOrder(db, orderId, typeof o.reason === 'string' ? o.reason : ''))
        io.out(`Rejected ${row.id}: ${row.rejectReason}`)
      }
      return 0
    }
    throw new AdminError(`Usage:\n${ORDERS_HELP}`, 2)
  } catch (error) {
    if (error instanceof OperatorError) throw new AdminError(error.message, error.exitCode)
    throw error
  }
}
