import { announceAccountChanged } from './auth/session-cache.js'
import { type Config, ConfigError, loadConfig } from './config.js'
import { readBalances } from './allowances/ledger.js'
import {
  ALLOWANCES,
  AdminError,
  type CardRow,
  cardFlags,
  createRechargeCards,
  formatPhone,
  grantPermissions,
  listAccounts,
  listRechargeCards,
  parseCardOptions,
  revokePermissions,
  setAccountState
} from './admin/commands.js'
import { ORDERS_HELP, runOrdersCommand } from './admin/orders.js'
import { PAY_HELP, runPayCommand } from './admin/payments.js'
import { REMOTE_COMMANDS, remoteTarget, runRemote } from './admin/remote.js'
import { DataDirBusyError } from './db/data-dir-lock.js'
import { type Database, openDatabase } from './db/database.js'
import { createRedisBus } from './events/redis-bus.js'
import type { Account } from './db/schema.js'
import { knownPermissionCodes } from './permissions/tree.js'

export const HELP = `lingxi-admin — manage Lingxi accounts

Usage:
  lingxi-admin list [--phone <phone>]            list accounts (or the one with this phone)
  lingxi-admin grant <phone|accountId> <CODE...>  give permission codes
  lingxi-admin revoke <phone|accountId> <CODE...> take permission codes away
  lingxi-admin state <phone|accountId> 0|1        0: expired (no tools), 1: valid
  lingxi-admin allowlist                          how to let phones log in without a code
  lingxi-admin cards create ${cardFlags()} --count N [--expires-days N]
                                                  create recharge cards; prints the codes (once)
  lingxi-admin cards list                         every card: masked code, amounts, status
${ORDERS_HELP}
${PAY_HELP}
  lingxi-admin --help

Phones: 13800138000 (+86), 86:13800138000 or +8613800138000.
Permission codes: ${knownPermissionCodes().join(', ')}

Uses the server's settings: DATABASE_URL (PostgreSQL) or DATA_DIR (embedded database,
default ./data). The embedded database serves one process at a time: stop the server first,
or run the server on PostgreSQL to manage accounts while it runs, or set LINGXI_ADMIN_TOKEN (an
operator's access token) and LINGXI_ADMIN_URL (default PUBLIC_URL): while the server holds the
embedded database, the commands (${REMOTE_COMMANDS.join(', ')}) then go through its operator API.`

export interface AdminIo {
  out(line: string): void
  err(line: string): void
  env: Record<string, string | undefined>
  /** Opens the database; tests pass one that is already open. */
  open?: (config: Config) => Promise<Database>
}

function describe(account: Account): string {
  return `${account.id}  ${formatPhone(account)}  state ${account.state}  permissions ${account.permissionCodes.join(',') || '(none)'}`
}

/** A column per allowance kind, named by its id (TOKENS, MJ, SUNO, …). */
const kindColumns = () => ALLOWANCES.kinds.map((k) => k.id.toUpperCase())

function table(rows: Account[], balances: Map<string, Map<string, number>>): string[] {
  const header = ['ID', 'PHONE', 'STATE', ...kindColumns(), 'CREATED', 'PERMISSIONS']
  const cells = rows.map((a) => [
    a.id,
    formatPhone(a),
    String(a.state),
    ...ALLOWANCES.kinds.map((k) => String(balances.get(a.id)?.get(k.id) ?? 0)),
    a.createdAt.toISOString().slice(0, 19).replace('T', ' '),
    a.permissionCodes.join(',')
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]?.length ?? 0)))
  return [header, ...cells].map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  )
}

function cardTable(rows: CardRow[]): string[] {
  const day = (d: Date | null) => (d ? d.toISOString().slice(0, 19).replace('T', ' ') : '-')
  const header = ['CODE', ...kindColumns(), 'CREATED', 'EXPIRES', 'STATUS']
  const now = Date.now()
  const cells = rows.map((c) => [
    c.codeMask,
    ...ALLOWANCES.kinds.map((k) => String(c.grants[k.id] ?? 0)),
    day(c.createdAt),
    day(c.expiresAt),
    c.redeemedAt
      ? `redeemed ${day(c.redeemedAt)} by ${c.redeemedPhone ?? '(deleted account)'}`
      : c.expiresAt && c.expiresAt.getTime() <= now
        ? 'expired'
        : 'unused'
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]?.length ?? 0)))
  return [header, ...cells].map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  )
}

function allowlistHint(env: Record<string, string | undefined>): string[] {
  const current = env.LOGIN_WITHOUT_CODE_PHONES?.trim()
  return [
    'Phones that log in without an SMS code (review and test accounts) are set in the server environment:',
    '  LOGIN_WITHOUT_CODE_PHONES=86:13800000000,13900000000   (plain numbers mean +86)',
    'Restart the server after changing it.',
    `Current value here: ${current ? current : '(not set)'}`
  ]
}

async function withDatabase<T>(io: AdminIo, run: (db: Database['db']) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env)
  const database = io.open
    ? await io.open(config)
    : await openDatabase(config.databaseUrl ? { url: config.databaseUrl, maxConnections: 1 } : { dataDir: config.dataDir, owner: 'lingxi-admin' })
  try {
    if (!io.open) await database.migrate()
    return await run(database.db)
  } finally {
    if (!io.open) await database.close()
  }
}

/**
 * Tells the running servers that an account changed (permissions, state), so that their cached
 * sessions of it are read again at once (auth/session-cache.ts). Only with REDIS_URL: without it
 * the servers see the change within the cache's few seconds.
 */
async function announceChanged(io: AdminIo, accountId: string): Promise<void> {
  const config = loadConfig(io.env)
  if (!config.redisUrl || io.open) return
  const bus = createRedisBus({ url: config.redisUrl, prefix: config.redisPrefix })
  try {
    await announceAccountChanged(bus, undefined, [accountId])
  } catch (error) {
    io.err(`Could not tell the running servers (they see the change within seconds): ${(error as Error).message}`)
  } finally {
    await bus.close().catch(() => {})
  }
}

/** Runs one command; returns the exit code (0 ok, 1 failed, 2 bad usage). */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const [command, ...args] = argv
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.out(HELP)
        return command === undefined ? 2 : 0
      case 'allowlist':
        for (const line of allowlistHint(io.env)) io.out(line)
        return 0
      case 'list': {
        let phone: string | undefined
        for (let i = 0; i < args.length; i++) {
          const arg = args[i] ?? ''
          if (arg === '--phone') phone = args[++i]
          else if (arg.startsWith('--phone=')) phone = arg.slice('--phone='.length)
          else throw new AdminError(`Unknown option for list: ${arg}`, 2)
          if (phone === undefined) throw new AdminError('--phone needs a phone number', 2)
        }
        const { rows, balances } = await withDatabase(io, async (db) => {
          const rows = await listAccounts(db, phone === undefined ? {} : { phone })
          return {
            rows,
            balances: await readBalances(
              db,
              rows.map((a) => a.id)
            )
          }
        })
        if (rows.length === 0) io.out(phone === undefined ? 'No accounts yet.' : `No account with phone ${phone}.`)
        else for (const line of table(rows, balances)) io.out(line)
        return 0
      }
      case 'grant':
      case 'revoke': {
        const [target, ...codes] = args
        if (!target || codes.length === 0) throw new AdminError(`Usage: lingxi-admin ${command} <phone|accountId> <CODE...>`, 2)
        const change = command === 'grant' ? grantPermissions : revokePermissions
        const account = await withDatabase(io, (db) => change(db, target, codes))
        await announceChanged(io, account.id)
        io.out(`${command === 'grant' ? 'Granted' : 'Revoked'}. ${describe(account)}`)
        return 0
      }
      case 'state': {
        const [target, state, extra] = args
        if (!target || state === undefined || extra !== undefined) throw new AdminError('Usage: lingxi-admin state <phone|accountId> 0|1', 2)
        const account = await withDatabase(io, (db) => setAccountState(db, target, state))
        await announceChanged(io, account.id)
        io.out(`Updated. ${describe(account)}`)
        return 0
      }
      case 'cards': {
        const [sub, ...rest] = args
        if (sub === 'create') {
          const options = parseCardOptions(rest)
          const { codes, cards } = await withDatabase(io, (db) => createRechargeCards(db, options))
          const expires = cards[0]?.expiresAt ? `, valid until ${cards[0].expiresAt.toISOString().slice(0, 10)}` : ''
          const gives = ALLOWANCES.kinds.map((k) => `${options.grants[k.id] ?? 0} ${k.id}`).join(', ')
          io.err(`Created ${codes.length} card(s): ${gives} each${expires}.`)
          io.err('Only hashes are stored: keep these codes now, they cannot be shown again.')
          for (const code of codes) io.out(code)
          return 0
        }
        if (sub === 'list' && rest.length === 0) {
          const rows = await withDatabase(io, (db) => listRechargeCards(db))
          if (rows.length === 0) io.out('No recharge cards yet.')
          else for (const line of cardTable(rows)) io.out(line)
          return 0
        }
        throw new AdminError(`Usage: lingxi-admin cards create ${cardFlags()} --count N [--expires-days N] | cards list`, 2)
      }
      case 'orders':
        return await runOrdersCommand(args, io, (run) => withDatabase(io, run))
      case 'pay':
        return await runPayCommand(args, io, (run) => withDatabase(io, run), loadConfig(io.env))
      default:
        throw new AdminError(`Unknown command "${command}". Run lingxi-admin --help.`, 2)
    }
  } catch (error) {
    if (error instanceof AdminError) {
      io.err(error.message)
      return error.exitCode
    }
    if (error instanceof ConfigError) {
      io.err(error.message)
      return 2
    }
    if (error instanceof DataDirBusyError) {
      // The running server holds it: its operator API does what it can (admin/remote.ts).
      const target = remoteTarget(io.env, loadConfig(io.env))
      if (target) {
        try {
          return await runRemote(argv, io, target)
        } catch (remote) {
          io.err(remote instanceof Error ? remote.message : String(remote))
          return remote instanceof AdminError ? remote.exitCode : 1
        }
      }
      io.err(
        [
          `The embedded database is in use by ${error.holder.owner} (pid ${error.holder.pid}).`,
          'PGlite allows one process per data directory. Stop the Lingxi server and run this command again,',
          'or run the server on PostgreSQL (DATABASE_URL) so lingxi-admin can work while it runs,',
          `or set LINGXI_ADMIN_TOKEN (an operator's access token; LINGXI_ADMIN_URL, default PUBLIC_URL) for ${REMOTE_COMMANDS.join(', ')} through the server.`
        ].join('\n')
      )
      return 1
    }
    io.err(`lingxi-admin failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    return 1
  }
}

/** The bin's entry point. */
export async function main(argv = process.argv.slice(2)): Promise<number> {
  return runAdmin(argv, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    env: process.env
  })
}
