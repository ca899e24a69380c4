import { type Config, ConfigError, loadConfig } from './config.js'
import {
  AdminError,
  formatPhone,
  grantPermissions,
  listAccounts,
  revokePermissions,
  setAccountState
} from './admin/commands.js'
import { DataDirBusyError } from './db/data-dir-lock.js'
import { type Database, openDatabase } from './db/database.js'
import type { Account } from './db/schema.js'
import { knownPermissionCodes } from './permissions/tree.js'

export const HELP = `lingxi-admin — manage Lingxi accounts

Usage:
  lingxi-admin list [--phone <phone>]            list accounts (or the one with this phone)
  lingxi-admin grant <phone|accountId> <CODE...>  give permission codes
  lingxi-admin revoke <phone|accountId> <CODE...> take permission codes away
  lingxi-admin state <phone|accountId> 0|1        0: expired (no tools), 1: valid
  lingxi-admin allowlist                          how to let phones log in without a code
  lingxi-admin --help

Phones: 13800138000 (+86), 86:13800138000 or +8613800138000.
Permission codes: ${knownPermissionCodes().join(', ')}

Uses the server's settings: DATABASE_URL (PostgreSQL) or DATA_DIR (embedded database,
default ./data). The embedded database serves one process at a time: stop the server first,
or run the server on PostgreSQL to manage accounts while it runs.`

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

function table(rows: Account[]): string[] {
  const header = ['ID', 'PHONE', 'STATE', 'TOKENS', 'MJ', 'SUNO', 'CREATED', 'PERMISSIONS']
  const cells = rows.map((a) => [
    a.id,
    formatPhone(a),
    String(a.state),
    String(a.tokens),
    String(a.mjCount),
    String(a.sunoCount),
    a.createdAt.toISOString().slice(0, 19).replace('T', ' '),
    a.permissionCodes.join(',')
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]?.length ?? 0)))
  return [header, ...cells].map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd())
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
        const rows = await withDatabase(io, (db) => listAccounts(db, phone === undefined ? {} : { phone }))
        if (rows.length === 0) io.out(phone === undefined ? 'No accounts yet.' : `No account with phone ${phone}.`)
        else for (const line of table(rows)) io.out(line)
        return 0
      }
      case 'grant':
      case 'revoke': {
        const [target, ...codes] = args
        if (!target || codes.length === 0) throw new AdminError(`Usage: lingxi-admin ${command} <phone|accountId> <CODE...>`, 2)
        const change = command === 'grant' ? grantPermissions : revokePermissions
        const account = await withDatabase(io, (db) => change(db, target, codes))
        io.out(`${command === 'grant' ? 'Granted' : 'Revoked'}. ${describe(account)}`)
        return 0
      }
      case 'state': {
        const [target, state, extra] = args
        if (!target || state === undefined || extra !== undefined) throw new AdminError('Usage: lingxi-admin state <phone|accountId> 0|1', 2)
        const account = await withDatabase(io, (db) => setAccountState(db, target, state))
        io.out(`Updated. ${describe(account)}`)
        return 0
      }
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
      io.err(
        [
          `The embedded database is in use by ${error.holder.owner} (pid ${error.holder.pid}).`,
          'PGlite allows one process per data directory. Stop the Lingxi server and run this command again,',
          'or run the server on PostgreSQL (DATABASE_URL) so lingxi-admin can work while it runs.'
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
