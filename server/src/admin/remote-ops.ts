import { AdminError } from './commands.js'
import { activityInput, fen, ORDERS_HELP, reviewStatus } from './orders.js'
import { PAY_HELP, packageOptions, parse, REFUND_REASON } from './payments.js'
import type { Call, RemoteIo } from './remote-call.js'

// `lingxi-admin orders …` and `pay …` through the operator API (admin/http/orders.ts, payments.ts),
// with the options of the local commands and the same lines printed.

const at = (iso: string | null) => (iso ? iso.slice(0, 16).replace('T', ' ') : '-')

interface Activity {
  activityId: string
  title: string
  platform: string
  quality: boolean
  rewardFen: number
  budgetFen: number
  reservedFen: number
  spentFen: number
  startTime: string
  endTime: string
}

interface Submission {
  orderId: string
  title: string
  quality: boolean
  phone: string
  rewardFen: number
  link: string | null
  screenshots: string[]
  submitTime: string | null
}

interface Reviewed {
  orderId: string
  rewardFen: number
  rejectReason: string | null
}

export async function runRemoteOrders(args: string[], io: Pick<RemoteIo, 'out'>, call: Call): Promise<number> {
  const [area, sub, ...rest] = args
  if (area === 'activity' && sub === 'create') {
    const input = activityInput(rest)
    const made = await call<Activity & { sessionIds: string[] }>('orders/activities/create', {
      ...input,
      ...(input.requirements ? {} : { requirements: undefined }),
      cover: input.cover ?? undefined
    })
    io.out(`Created activity ${made.activityId} (${made.quality ? '优质接单平台' : '接单平台'}): ${made.title}`)
    for (const [i, sid] of made.sessionIds.entries()) io.out(`  session ${i + 1}: ${sid}`)
    return 0
  }
  if (area === 'activity' && sub === 'list' && rest.length === 0) {
    const { list } = await call<{ list: Activity[] }>('orders/activities', {})
    if (list.length === 0) io.out('No activities yet.')
    for (const a of list) {
      io.out(
        `${a.activityId}  ${a.quality ? '[优质] ' : ''}${a.title}  ${a.platform}  reward ${fen(a.rewardFen)}  budget ${fen(a.budgetFen)}  reserved ${fen(a.reservedFen)}  spent ${fen(a.spentFen)}  ${at(a.startTime)} → ${at(a.endTime)}`
      )
    }
    return 0
  }
  if (area === 'review' && sub === 'list') {
    const status = reviewStatus(rest)
    const { list } = await call<{ list: Submission[] }>('orders/submissions', { status })
    if (list.length === 0) io.out(status === 'submitted' ? 'No submissions waiting for review.' : `No ${status} orders.`)
    for (const r of list) {
      io.out(`${r.orderId}  ${r.quality ? '[优质] ' : ''}${r.title}  ${r.phone}  ${fen(r.rewardFen)}  submitted ${at(r.submitTime)}`)
      if (r.link) io.out(`    link: ${r.link}`)
      for (const s of r.screenshots) io.out(`    screenshot: ${s}`)
    }
    return 0
  }
  if (area === 'review' && (sub === 'approve' || sub === 'reject')) {
    const [orderId, ...more] = rest
    if (!orderId || orderId.startsWith('--'))
      throw new AdminError(`Usage: lingxi-admin orders review ${sub} <orderId>${sub === 'reject' ? ' --reason R' : ''}`, 2)
    if (sub === 'approve') {
      if (more.length > 0) throw new AdminError(`Unknown option: ${more[0]}`, 2)
      const row = await call<Reviewed>('orders/approve', { orderId })
      io.out(`Approved ${row.orderId}: reward ${fen(row.rewardFen)} can now be claimed as a red packet.`)
    } else {
      const reason = parse(more, [], ['reason']).reason
      if (typeof reason !== 'string' || !reason.trim()) throw new AdminError('--reason is required (shown to the person)', 2)
      const row = await call<Reviewed>('orders/reject', { orderId, reason })
      io.out(`Rejected ${row.orderId}: ${row.rejectReason}`)
    }
    return 0
  }
  throw new AdminError(`Usage:\n${ORDERS_HELP}`, 2)
}

interface Package {
  id: string
  name: string
  priceFen: number
  grants: Record<string, number>
  badge: string | null
  sort: number
  enabled: boolean
}

interface Order {
  orderId: string
  status: string
  provider: string
  scene: string
  amountFen: number
  refundedFen: number
  packageName: string
  accountId: string
  createTime: string
}

const packageLine = (verb: string, p: Package) => `${verb} package ${p.id}: ${p.name} ${fen(p.priceFen)}${p.enabled ? '' : ' (off)'}`

export async function runRemotePay(args: string[], io: Pick<RemoteIo, 'out'>, call: Call): Promise<number> {
  const [area, sub, ...rest] = args
  if (area === 'packages' && sub === 'list' && rest.length === 0) {
    const { list } = await call<{ list: Package[] }>('pay/packages', {})
    if (list.length === 0) io.out('No packages yet.')
    for (const p of list) {
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
    io.out(packageLine('Created', await call<Package>('pay/packages/create', input)))
    return 0
  }
  if (area === 'packages' && sub === 'update') {
    const [packageId, ...more] = rest
    if (!packageId || packageId.startsWith('--')) throw new AdminError('Usage: lingxi-admin pay packages update <id> [options]', 2)
    io.out(packageLine('Updated', await call<Package>('pay/packages/update', { packageId, ...packageOptions(more) })))
    return 0
  }
  if (area === 'orders' && sub === 'list') {
    const status = parse(rest, [], ['status']).status
    const { list } = await call<{ list: Order[] }>('pay/orders', { pageSize: 100, ...(typeof status === 'string' ? { status } : {}) })
    if (list.length === 0) io.out('No orders.')
    for (const r of list) {
      const refunded = r.refundedFen > 0 ? `  refunded ${fen(r.refundedFen)}` : ''
      io.out(
        `${r.orderId}  ${r.status.padEnd(8)}  ${r.provider}/${r.scene}  ${fen(r.amountFen)}  ${r.packageName}  account ${r.accountId}  ${r.createTime}${refunded}`
      )
    }
    return 0
  }
  if (area === 'refund' && sub && !sub.startsWith('--')) {
    const o = parse(rest, [], ['fen', 'reason'])
    if (o.fen !== undefined && (typeof o.fen !== 'string' || !/^\d+$/.test(o.fen))) throw new AdminError('--fen must be a whole number', 2)
    const row = await call<Order & { status: string }>('pay/refund', {
      orderId: sub,
      ...(typeof o.fen === 'string' ? { amountFen: Number(o.fen) } : {}),
      reason: typeof o.reason === 'string' ? o.reason : REFUND_REASON
    })
    io.out(`Refunded ${row.orderId}: ${fen(row.refundedFen)} of ${fen(row.amountFen)} (${row.status}).`)
    return 0
  }
  throw new AdminError(`Usage:\n${PAY_HELP}`, 2)
}
