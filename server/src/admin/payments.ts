import { and, count, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import { accounts, type PayOrder, payOrders } from '../db/schema.js'
import { createAlipayProvider } from '../modules/payments/alipay.js'
import { createDemoProvider } from '../modules/payments/demo.js'
import { createPackage, listPackages, type PackageInput, updatePackage } from '../modules/payments/packages.js'
import type { PayProvider } from '../modules/payments/provider.js'
import { createPaymentService } from '../modules/payments/service.js'
import { createWechatV3Provider } from '../modules/payments/wechat-v3.js'
import type { OrderStatus, ProviderName } from '../modules/payments/wire.js'
import { uploadSecret } from '../storage/secret.js'
import { ALLOWANCES, AdminError } from './commands.js'

const kindFlags = () => ALLOWANCES.kinds.map((k) => `--${k.id} N`).join(' ')

export const PAY_HELP = `  lingxi-admin pay packages list                 every recharge package (on sale or not)
  lingxi-admin pay packages create --name N --price-fen N ${kindFlags()}
        [--validity-days N] [--badge B] [--sort N] [--disabled]
                                                  a package (the first start seeds config/pay-packages.json)
  lingxi-admin pay packages update <id> [the same options] [--enabled|--disabled]
  lingxi-admin pay orders list [--status S]       the latest 100 orders (pending, paid, closed, refunded)
  lingxi-admin pay refund <orderId> [--fen N] [--reason R]
                                                  refund at the provider (all that is left, or N 分) and take
                                                  back that share of the allowance`

/** The refund's reason when the operator gives none (shown in the order and the audit log). */
export const REFUND_REASON = '运营退款（lingxi-admin）'

type WithDb = <T>(run: (db: Db) => Promise<T>) => Promise<T>

export function parse(args: string[], flags: string[], valued: string[]): Record<string, string | true> {
  const out: Record<string, string | true> = {}
  for (let i = 0; i < args.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(args[i] ?? '')
    const name = m?.[1]
    if (!m || !name || (!flags.includes(name) && !valued.includes(name))) throw new AdminError(`Unknown option: ${args[i]}`, 2)
    if (flags.includes(name)) out[name] = true
    else {
      const value = m[2] ?? args[++i]
      if (value === undefined) throw new AdminError(`--${name} needs a value`, 2)
      out[name] = value
    }
  }
  return out
}

const whole = (name: string, raw: string | true | undefined): number | undefined => {
  if (raw === undefined) return undefined
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new AdminError(`--${name} must be a whole number`, 2)
  return Number(raw)
}
const fen = (n: number) => `${(n / 100).toFixed(2)} 元`

/** `pay packages create|update`'s options → the package's fields (a usage error, exit code 2). */
export function packageOptions(args: string[]): Partial<PackageInput> {
  const kinds = ALLOWANCES.kinds.map((k) => k.id)
  const o = parse(args, ['enabled', 'disabled'], ['name', 'price-fen', 'validity-days', 'badge', 'sort', ...kinds])
  const grants: Record<string, number> = {}
  for (const k of kinds) {
    const n = whole(k, o[k])
    if (n !== undefined) grants[k] = n
  }
  const input: Partial<PackageInput> = {}
  if (typeof o.name === 'string') input.name = o.name
  const price = whole('price-fen', o['price-fen'])
  if (price !== undefined) input.priceFen = price
  if (Object.keys(grants).length > 0) input.grants = grants
  const days = whole('validity-days', o['validity-days'])
  if (days !== undefined) input.validityDays = days
  if (typeof o.badge === 'string') input.badge = o.badge
  const sort = whole('sort', o.sort)
  if (sort !== undefined) input.sort = sort
  if (o.enabled) input.enabled = true
  if (o.disabled) input.enabled = false
  return input
}

/** The providers of the configuration, for refunds from the command line. */
function configuredProviders(config: Config): Map<ProviderName, PayProvider> {
  const providers = new Map<ProviderName, PayProvider>()
  if (config.payments.wechat) providers.set('wechat', createWechatV3Provider(config.payments.wechat, { now: Date.now }))
  if (config.payments.alipay) providers.set('alipay', createAlipayProvider(config.payments.alipay, { now: Date.now }))
  providers.set('demo', createDemoProvider({ key: uploadSecret(config), publicUrl: config.publicUrl, now: Date.now }))
  return providers
}

/** Which orders the operator asks for (the CLI's `--status`, the console's filters). */
export interface OrderFilter {
  status?: OrderStatus | undefined
  provider?: ProviderName | undefined
  /** An order id (LX…), an account id, or digits of the payer's phone. */
  query?: string | undefined
  /** Made at or after. */
  from?: Date | undefined
  /** Made before. */
  to?: Date | undefined
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function orderWhere(f: OrderFilter): SQL | undefined {
  const q = f.query?.trim() ?? ''
  const digits = q.replace(/[\s+-]/g, '')
  const who = !q
    ? undefined
    : UUID.test(q)
      ? eq(payOrders.accountId, q.toLowerCase())
      : /^LX[0-9a-z]+$/i.test(q)
        ? eq(payOrders.id, q)
        : /^\d+$/.test(digits)
          ? sql`(${accounts.enCode} || ${accounts.phone}) like ${`%${digits}%`}`
          : sql`false`
  return and(
    f.status ? eq(payOrders.status, f.status) : undefined,
    f.provider ? eq(payOrders.provider, f.provider) : undefined,
    who,
    f.from ? gte(payOrders.createdAt, f.from) : undefined,
    f.to ? lt(payOrders.createdAt, f.to) : undefined
  )
}

export type OrderRow = PayOrder & { payerPhone: string | null }

/** Orders matching the filter, newest first, with the payer's phone; `total` counts every match. */
export async function findOrders(db: Db, f: OrderFilter, page: { limit: number; offset?: number }): Promise<{ rows: OrderRow[]; total: number }> {
  const where = orderWhere(f)
  const [found, counted] = await Promise.all([
    db
      .select({ order: payOrders, enCode: accounts.enCode, phone: accounts.phone })
      .from(payOrders)
      .leftJoin(accounts, eq(accounts.id, payOrders.accountId))
      .where(where)
      .orderBy(desc(payOrders.seq))
      .limit(page.limit)
      .offset(page.offset ?? 0),
    db.select({ n: count() }).from(payOrders).leftJoin(accounts, eq(accounts.id, payOrders.accountId)).where(where)
  ])
  return {
    rows: found.map((r) => ({ ...r.order, payerPhone: r.phone ? `+${r.enCode} ${r.phone}` : null })),
    total: counted[0]?.n ?? 0
  }
}

/** `lingxi-admin pay …`; returns the exit code. */
export async function runPayCommand(args: string[], io: { out(line: string): void }, withDb: WithDb, config: Config): Promise<number> {
  const [area, sub, ...rest] = args
  try {
    if (area === 'packages' && sub === 'list' && rest.length === 0) {
      const rows = await withDb((db) => listPackages(db, { all: true }))
      if (rows.length === 0) io.out('No packages yet.')
      for (const p of rows) {
        const gives = Object.entries(p.grants)
          .map(([k, n]) => `${n} ${k}`)
          .join(', ')
        io.out(`${p.id}  ${p.enabled ? 'on ' : 'off'}  sort ${p.sort}  ${p.name}${p.badge ? ` [${p.badge}]` : ''}  ${fen(p.priceFen)}  ${gives}`)
      }
      return 0
    }
    if (area === 'packages' && sub === 'create') {
      const input = packageOptions(rest)
      if (!input.name || input.priceFen === undefined || !input.grants) throw new AdminError('--name, --price-fen and at least one amount are required', 2)
      const p = await withDb((db) => createPackage(db, ALLOWANCES, input as PackageInput))
      io.out(`Created package ${p.id}: ${p.name} ${fen(p.priceFen)}${p.enabled ? '' : ' (off)'}`)
      return 0
    }
    if (area === 'packages' && sub === 'update') {
      const [id, ...more] = rest
      if (!id || id.startsWith('--')) throw new AdminError('Usage: lingxi-admin pay packages update <id> [options]', 2)
      const p = await withDb((db) => updatePackage(db, ALLOWANCES, id, packageOptions(more)))
      if (!p) throw new AdminError(`No package ${id}.`, 1)
      io.out(`Updated package ${p.id}: ${p.name} ${fen(p.priceFen)}${p.enabled ? '' : ' (off)'}`)
      return 0
    }
    if (area === 'orders' && sub === 'list') {
      const o = parse(rest, [], ['status'])
      const { rows } = await withDb((db) => findOrders(db, { status: typeof o.status === 'string' ? (o.status as OrderStatus) : undefined }, { limit: 100 }))
      if (rows.length === 0) io.out('No orders.')
      for (const r of rows) {
        const refunded = r.refundedFen > 0 ? `  refunded ${fen(r.refundedFen)}` : ''
        io.out(
          `${r.id}  ${r.status.padEnd(8)}  ${r.provider}/${r.scene}  ${fen(r.amountFen)}  ${r.packageName}  account ${r.accountId}  ${r.createdAt.toISOString()}${refunded}`
        )
      }
      return 0
    }
    if (area === 'refund' && sub && !sub.startsWith('--')) {
      const o = parse(rest, [], ['fen', 'reason'])
      const amount = whole('fen', o.fen)
      const row = await withDb((db) => {
        const service = createPaymentService({
          db,
          registry: ALLOWANCES,
          providers: configuredProviders(config),
          logger: { info: () => {}, warn: () => {}, error: () => {} },
          now: Date.now,
          bus: { publish: async () => {} },
          orderTtlMs: config.payments.orderTtlMs,
          scheduleExpiry: async () => {}
        })
        return service.refund(sub, amount, typeof o.reason === 'string' ? o.reason : REFUND_REASON)
      })
      io.out(`Refunded ${row.id}: ${fen(row.refundedFen)} of ${fen(row.amountFen)} (${row.status}).`)
      return 0
    }
    throw new AdminError(`Usage:\n${PAY_HELP}`, 2)
  } catch (error) {
    if (error instanceof Error && !(error instanceof AdminError) && (error.name === 'ZodError' || /package|kind/.test(error.message))) {
      throw new AdminError(error.name === 'ZodError' ? `Invalid package: ${error.message}` : error.message, 2)
    }
    if (error instanceof Error && 'code' in error && typeof (error as { code: unknown }).code === 'number') throw new AdminError(error.message, 1)
    throw error
  }
}
