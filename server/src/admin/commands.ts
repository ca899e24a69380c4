import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { and, asc, eq } from 'drizzle-orm'
import { createAllowanceRegistry } from '../allowances/registry.js'
import { parsePhone, type Phone } from '../auth/phone.js'
import type { Db } from '../db/database.js'
import { type Account, accounts, type Grants, type RechargeCard, rechargeCards } from '../db/schema.js'
import { MODULES } from '../modules/index.js'
import { knownPermissionCodes } from '../permissions/tree.js'
import { createCards } from '../modules/user-center/cards.js'

/** The allowance kinds of the module list: the CLI's card flags and columns (--tokens, --mj, --suno, …). */
export const ALLOWANCES = createAllowanceRegistry(MODULES)

/** A problem the operator can fix; printed without a stack trace. */
export class AdminError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1
  ) {
    super(message)
    this.name = 'AdminError'
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** "+8613800138000", "86:13800138000" or a plain number (meaning +86). */
export function parsePhoneArgument(value: string): Phone | undefined {
  const text = value.trim()
  if (text.startsWith('+')) {
    const parsed = parsePhoneNumberFromString(text)
    return parsed?.isValid() ? { enCode: parsed.countryCallingCode, phone: parsed.nationalNumber } : undefined
  }
  const [enCode, phone] = text.includes(':') ? text.split(':', 2) : ['86', text]
  return parsePhone(enCode ?? '', phone ?? '')
}

export function formatPhone(account: Pick<Account, 'enCode' | 'phone'>): string {
  return `+${account.enCode} ${account.phone}`
}

export async function findAccount(db: Db, target: string): Promise<Account> {
  if (UUID.test(target.trim())) {
    const [row] = await db.select().from(accounts).where(eq(accounts.id, target.trim().toLowerCase()))
    if (!row) throw new AdminError(`No account with id ${target}`)
    return row
  }
  const phone = parsePhoneArgument(target)
  if (!phone) throw new AdminError(`"${target}" is neither an account id nor a valid phone number (e.g. 13800138000, 86:13800138000, +8613800138000)`, 2)
  const [row] = await db
    .select()
    .from(accounts)
    .where(and(eq(accounts.enCode, phone.enCode), eq(accounts.phone, phone.phone)))
  if (!row) throw new AdminError(`No account with phone ${formatPhone(phone)} (it is created on the first login)`)
  return row
}

export async function listAccounts(db: Db, options: { phone?: string } = {}): Promise<Account[]> {
  if (options.phone !== undefined) {
    const phone = parsePhoneArgument(options.phone)
    if (!phone) throw new AdminError(`"${options.phone}" is not a valid phone number`, 2)
    return db
      .select()
      .from(accounts)
      .where(and(eq(accounts.enCode, phone.enCode), eq(accounts.phone, phone.phone)))
  }
  return db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.id))
}

export function checkCodes(codes: string[]): string[] {
  const known = knownPermissionCodes()
  if (codes.length === 0) throw new AdminError(`Name at least one permission code. Known codes: ${known.join(', ')}`, 2)
  const normalised = codes.map((code) => code.trim().toUpperCase())
  const unknown = normalised.filter((code) => !known.includes(code))
  if (unknown.length > 0) {
    throw new AdminError(`Unknown permission code${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Known codes: ${known.join(', ')}`, 2)
  }
  return normalised
}

/** Adds or removes codes under a row lock, so two operators never undo each other. */
async function changeCodes(db: Db, target: string, change: (current: Set<string>) => void): Promise<Account> {
  const account = await findAccount(db, target)
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(accounts).where(eq(accounts.id, account.id)).for('update')
    if (!row) throw new AdminError(`No account with id ${account.id}`)
    const codes = new Set(row.permissionCodes)
    change(codes)
    // Stored in the tree's order, so listings read the same way every time.
    const ordered = knownPermissionCodes().filter((code) => codes.has(code))
    const [updated] = await tx.update(accounts).set({ permissionCodes: ordered, updatedAt: new Date() }).where(eq(accounts.id, row.id)).returning()
    if (!updated) throw new AdminError(`No account with id ${account.id}`)
    return updated
  })
}

export async function grantPermissions(db: Db, target: string, codes: string[]): Promise<Account> {
  const valid = checkCodes(codes)
  return changeCodes(db, target, (current) => {
    for (const code of valid) current.add(code)
  })
}

export async function revokePermissions(db: Db, target: string, codes: string[]): Promise<Account> {
  const valid = checkCodes(codes)
  return changeCodes(db, target, (current) => {
    for (const code of valid) current.delete(code)
  })
}

export async function setAccountState(db: Db, target: string, state: string): Promise<Account> {
  if (state !== '0' && state !== '1') throw new AdminError(`State must be 0 (expired: no tools) or 1 (valid), not "${state}"`, 2)
  const account = await findAccount(db, target)
  const [updated] = await db
    .update(accounts)
    .set({ state: Number(state), updatedAt: new Date() })
    .where(eq(accounts.id, account.id))
    .returning()
  if (!updated) throw new AdminError(`No account with id ${account.id}`)
  return updated
}

export interface CardOptions {
  /** By kind id, every kind of the registry (0 when its flag is absent). */
  grants: Grants
  count: number
  expiresDays: number | undefined
}

/** `--tokens N --mj N --suno N`: a flag per allowance kind, named by its id. */
export const cardFlags = (kinds = ALLOWANCES.kinds) => kinds.map((k) => `--${k.id} N`).join(' ')

/** `cards create --tokens N --mj N --suno N --count N [--expires-days N]` → the options, or a usage error. */
export function parseCardOptions(args: string[], kinds = ALLOWANCES.kinds): CardOptions {
  const values: Record<string, number> = {}
  const names = [...kinds.map((k) => k.id), 'count', 'expires-days']
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ''
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
    const name = match?.[1]
    if (!match || !name || !names.includes(name)) throw new AdminError(`Unknown option for cards create: ${arg}`, 2)
    const raw = match[2] ?? args[++i]
    if (raw === undefined) throw new AdminError(`--${name} needs a number`, 2)
    const n = Number(raw)
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw new AdminError(`--${name} must be a whole number ≥ 0 (got "${raw}")`, 2)
    values[name] = n
  }
  const options = {
    grants: Object.fromEntries(kinds.map((k) => [k.id, values[k.id] ?? 0])),
    count: values.count ?? 1,
    expiresDays: values['expires-days']
  }
  if (Object.values(options.grants).every((n) => n === 0)) {
    const flags = kinds.map((k) => `--${k.id}`)
    throw new AdminError(`A card must give something: set ${flags.length > 1 ? `${flags.slice(0, -1).join(', ')} and/or ${flags.at(-1)}` : flags.join('')}`, 2)
  }
  if (options.count < 1 || options.count > 10_000) throw new AdminError('--count must be between 1 and 10000', 2)
  if (options.expiresDays !== undefined && options.expiresDays < 1) throw new AdminError('--expires-days must be at least 1', 2)
  return options
}

export async function createRechargeCards(db: Db, options: CardOptions, now = new Date()): Promise<{ codes: string[]; cards: RechargeCard[] }> {
  const expiresAt = options.expiresDays === undefined ? null : new Date(now.getTime() + options.expiresDays * 86_400_000)
  return createCards(db, { grants: options.grants, count: options.count, expiresAt, now })
}

export interface CardRow extends RechargeCard {
  redeemedPhone: string | null
}

export async function listRechargeCards(db: Db): Promise<CardRow[]> {
  const rows = await db
    .select({ card: rechargeCards, enCode: accounts.enCode, phone: accounts.phone })
    .from(rechargeCards)
    .leftJoin(accounts, eq(accounts.id, rechargeCards.redeemedBy))
    .orderBy(asc(rechargeCards.seq))
  return rows.map((r) => ({ ...r.card, redeemedPhone: r.phone ? formatPhone({ enCode: r.enCode ?? '', phone: r.phone }) : null }))
}
