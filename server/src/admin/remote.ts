import type { Config } from '../config.js'
import { ALLOWANCES, AdminError, parseCardOptions, parsePhoneArgument } from './commands.js'
import { type RemoteIo, remoteCaller } from './remote-call.js'
import { runRemoteOrders, runRemotePay } from './remote-ops.js'

/**
 * lingxi-admin against a running server, through the operator API (/api/admin), for when the
 * embedded database is held by that server: with LINGXI_ADMIN_TOKEN (an operator's access token,
 * e.g. from logging in on the site) and LINGXI_ADMIN_URL (default PUBLIC_URL). Covers every command
 * that reads or changes data; `allowlist` only reads the environment.
 */
export const REMOTE_COMMANDS = ['list', 'grant', 'revoke', 'state', 'cards', 'orders', 'pay']

interface RemoteUser {
  accountId: string
  phone: string
  state: number
  disabled: boolean
  permissionCodes: string[]
  createTime: string
}

interface RemoteCard {
  codeMask: string
  grants: Record<string, number>
  status: string
  redeemedPhone: string | null
  redeemedAt: string | null
  expiresAt: string | null
  createTime: string
}

const time = (iso: string | null) => (iso ? iso.slice(0, 19).replace('T', ' ') : '-')

/** The columns `cards list` prints from the database itself. */
function cardLines(rows: RemoteCard[]): string[] {
  const header = ['CODE', ...ALLOWANCES.kinds.map((k) => k.id.toUpperCase()), 'CREATED', 'EXPIRES', 'STATUS']
  const cells = rows.map((c) => [
    c.codeMask,
    ...ALLOWANCES.kinds.map((k) => String(c.grants[k.id] ?? 0)),
    time(c.createTime),
    time(c.expiresAt),
    c.status === 'redeemed' ? `redeemed ${time(c.redeemedAt)} by ${c.redeemedPhone ?? '(deleted account)'}` : c.status
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]?.length ?? 0)))
  return [header, ...cells].map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  )
}

/** The server to talk to, or undefined when no operator token is set. */
export function remoteTarget(env: Record<string, string | undefined>, config: Config): { url: string; token: string } | undefined {
  const token = env.LINGXI_ADMIN_TOKEN?.trim()
  if (!token) return undefined
  return { url: (env.LINGXI_ADMIN_URL?.trim() || config.publicUrl).replace(/\/+$/, ''), token }
}

export async function runRemote(argv: string[], io: RemoteIo, target: { url: string; token: string }): Promise<number> {
  const call = remoteCaller(io, target)
  /** An account by id or phone, as the API finds it. */
  const find = async (target: string): Promise<RemoteUser> => {
    const phone = parsePhoneArgument(target)
    const query = phone ? `${phone.enCode}${phone.phone}` : target
    const { list } = await call<{ list: RemoteUser[] }>('users/search', { query, limit: 100 })
    const exact = list.filter((u) => u.accountId === target || (phone && u.phone === `+${phone.enCode} ${phone.phone}`))
    if (exact.length !== 1) throw new AdminError(`No account ${target}.`)
    return exact[0]!
  }
  const line = (u: RemoteUser) =>
    `${u.accountId}  ${u.phone}  state ${u.state}${u.disabled ? ' (disabled)' : ''}  permissions ${u.permissionCodes.join(',') || '(none)'}`

  const [command, ...args] = argv
  if (command === 'list') {
    const phone = args[0] === '--phone' ? args[1] : args[0]?.startsWith('--phone=') ? args[0].slice('--phone='.length) : undefined
    if (args.length > 0 && phone === undefined) throw new AdminError('Usage: lingxi-admin list [--phone <phone>]', 2)
    const list = phone ? [await find(phone)] : (await call<{ list: RemoteUser[] }>('users/search', { limit: 100 })).list
    if (list.length === 0) io.out('No accounts yet.')
    for (const u of list) io.out(line(u))
    return 0
  }
  if (command === 'grant' || command === 'revoke') {
    const [who, ...codes] = args
    if (!who || codes.length === 0) throw new AdminError(`Usage: lingxi-admin ${command} <phone|accountId> <CODE...>`, 2)
    const account = await find(who)
    await call('users/permissions', { accountId: account.accountId, [command]: codes })
    io.out(`${command === 'grant' ? 'Granted' : 'Revoked'}. ${line(await find(account.accountId))}`)
    return 0
  }
  if (command === 'cards' && args[0] === 'create') {
    const options = parseCardOptions(args.slice(1))
    const { codes } = await call<{ codes: string[] }>('cards/create', {
      grants: options.grants,
      count: options.count,
      ...(options.expiresDays ? { expiresDays: options.expiresDays } : {}),
      note: 'lingxi-admin'
    })
    io.err(`Created ${codes.length} card(s) through ${target.url}. Only hashes are stored: keep these codes now.`)
    for (const code of codes) io.out(code)
    return 0
  }
  if (command === 'state') {
    const [who, state, extra] = args
    if (!who || state === undefined || extra !== undefined) throw new AdminError('Usage: lingxi-admin state <phone|accountId> 0|1', 2)
    if (state !== '0' && state !== '1') throw new AdminError(`State must be 0 (expired: no tools) or 1 (valid), not "${state}"`, 2)
    const account = await find(who)
    io.out(`Updated. ${line(await call<RemoteUser>('users/state', { accountId: account.accountId, state: Number(state) }))}`)
    return 0
  }
  if (command === 'cards' && args[0] === 'list' && args.length === 1) {
    const { list } = await call<{ list: RemoteCard[] }>('cards/list', {})
    if (list.length === 0) io.out('No recharge cards yet.')
    else for (const row of cardLines(list)) io.out(row)
    return 0
  }
  if (command === 'orders') return runRemoteOrders(args, io, call)
  if (command === 'pay') return runRemotePay(args, io, call)
  throw new AdminError(`Unknown command "${argv.join(' ')}". Run lingxi-admin --help.`, 2)
}
