import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { and, asc, eq } from 'drizzle-orm'
import { parsePhone, type Phone } from '../auth/phone.js'
import type { Db } from '../db/database.js'
import { type Account, accounts } from '../db/schema.js'
import { knownPermissionCodes } from '../permissions/tree.js'

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
    const [updated] = await tx
      .update(accounts)
      .set({ permissionCodes: ordered, updatedAt: new Date() })
      .where(eq(accounts.id, row.id))
      .returning()
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
