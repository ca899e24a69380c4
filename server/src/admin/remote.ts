import type { Config } from '../config.js'
import { AdminError, parseCardOptions, parsePhoneArgument } from './commands.js'

/**
 * lingxi-admin against a running server, through the operator API (/api/admin), for when the
 * embedded database is held by that server: with LINGXI_ADMIN_TOKEN (an operator's access token,
 * e.g. from logging in on the site) and LINGXI_ADMIN_URL (default PUBLIC_URL). Covers list, grant,
 * revoke and cards create; the other commands still need the database itself.
 */
export const REMOTE_COMMANDS = ['list', 'grant', 'revoke', 'cards create']

interface RemoteIo {
  out(line: string): void
  err(line: string): void
  env: Record<string, string | undefined>
  /** Tests pass the app's fetch. */
  fetch?: typeof fetch
}

interface Envelope<T> {
  code: number
  message: string
  data: T
}

interface RemoteUser {
  accountId: string
  phone: string
  state: number
  disabled: boolean
  permissionCodes: string[]
  createTime: string
}

/** The server to talk to, or undefined when no operator token is set. */
export function remoteTarget(env: Record<string, string | undefined>, config: Config): { url: string; token: string } | undefined {
  const token = env.LINGXI_ADMIN_TOKEN?.trim()
  if (!token) return undefined
  return { url: (env.LINGXI_ADMIN_URL?.trim() || config.publicUrl).replace(/\/+$/, ''), token }
}

export async function runRemote(argv: string[], io: RemoteIo, target: { url: string; token: string }): Promise<number> {
  const call = async <T>(path: string, body: object): Promise<T> => {
    let res: Response
    try {
      res = await (io.fetch ?? fetch)(`${target.url}/api/admin/${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${target.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body)
      })
    } catch (error) {
      throw new AdminError(`Could not reach the server at ${target.url}: ${(error as Error).message}`)
    }
    const answer = (await res.json().catch(() => null)) as Envelope<T> | null
    if (!answer || typeof answer.code !== 'number') throw new AdminError(`The server at ${target.url} did not answer as Lingxi (HTTP ${res.status})`)
    if (answer.code !== 2000) throw new AdminError(`The server refused: ${answer.message} (${answer.code})`)
    return answer.data
  }
  /** An account by id or phone, as the API finds it. */
  const find = async (target: string): Promise<RemoteUser> => {
    const phone = parsePhoneArgument(target)
    const query = phone ? `${phone.enCode}${phone.phone}` : target
    const { list } = await call<{ list: RemoteUser[] }>('users/search', { query, limit: 2 })
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
  throw new AdminError(`"${argv.join(' ')}" needs the database itself: stop the server, or run it on PostgreSQL (DATABASE_URL).`)
}
