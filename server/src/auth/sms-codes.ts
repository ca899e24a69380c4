import { randomInt, timingSafeEqual } from 'node:crypto'
import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm'
import type { Db, Tx } from '../db/database.js'
import { type SmsPurpose, smsCodes } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { Phone } from './phone.js'
import { sha256Hex } from './tokens.js'

export const CODE_TTL_MS = 5 * 60 * 1000
export const MAX_WRONG_ATTEMPTS = 5

// Bound to phone and purpose, so a code for one flow never opens another.
function codeHash(phone: Phone, purpose: SmsPurpose, code: string): string {
  return sha256Hex(`${purpose}:${phone.enCode}:${phone.phone}:${code}`)
}

export function randomCode(): string {
  return String(randomInt(0, 10_000)).padStart(4, '0')
}

/** Stores a new code; the newest code of a phone and purpose is the only one that counts. */
export async function storeCode(db: Db, phone: Phone, purpose: SmsPurpose, code: string, now: number): Promise<number> {
  const [row] = await db
    .insert(smsCodes)
    .values({
      enCode: phone.enCode,
      phone: phone.phone,
      purpose,
      codeHash: codeHash(phone, purpose, code),
      expiresAt: new Date(now + CODE_TTL_MS),
      createdAt: new Date(now)
    })
    .returning({ id: smsCodes.id })
  if (!row) throw new Error('sms code insert returned nothing')
  return row.id
}

/** For a code that never reached the phone (the gateway failed). */
export async function voidCode(db: Db, id: number, now: number): Promise<void> {
  await db
    .update(smsCodes)
    .set({ usedAt: new Date(now) })
    .where(eq(smsCodes.id, id))
}

/**
 * Checks a submitted code against the newest one sent. A wrong code costs one of five
 * attempts (the fifth voids the code); a right one is returned for `consumeCode`, which
 * the caller runs inside the transaction that acts on it.
 */
export async function checkCode(db: Db, phone: Phone, purpose: SmsPurpose, code: string, now: number): Promise<number> {
  const [row] = await db
    .select()
    .from(smsCodes)
    .where(and(eq(smsCodes.enCode, phone.enCode), eq(smsCodes.phone, phone.phone), eq(smsCodes.purpose, purpose)))
    .orderBy(desc(smsCodes.id))
    .limit(1)
  if (!row) throw new ApiError(50011002, '请先获取验证码')
  if (row.usedAt) throw new ApiError(50011002, '验证码已失效，请重新获取')
  if (row.attempts >= MAX_WRONG_ATTEMPTS) throw new ApiError(50011003, '验证码错误次数过多，请重新获取')
  if (row.expiresAt.getTime() <= now) throw new ApiError(50011002, '验证码已过期，请重新获取')

  const right = timingSafeEqual(Buffer.from(codeHash(phone, purpose, code), 'hex'), Buffer.from(row.codeHash, 'hex'))
  if (right) return row.id

  // Conditional increment: concurrent guesses can never spend more than five attempts.
  const [counted] = await db
    .update(smsCodes)
    .set({ attempts: sql`${smsCodes.attempts} + 1` })
    .where(and(eq(smsCodes.id, row.id), isNull(smsCodes.usedAt), lt(smsCodes.attempts, MAX_WRONG_ATTEMPTS)))
    .returning({ attempts: smsCodes.attempts })
  if (!counted || counted.attempts >= MAX_WRONG_ATTEMPTS) {
    throw new ApiError(50011003, '验证码错误次数过多，请重新获取')
  }
  throw new ApiError(50011001, `验证码错误，还可以再试 ${MAX_WRONG_ATTEMPTS - counted.attempts} 次`)
}

/** Marks a checked code used; loses (50011002) if a concurrent request used or voided it first. */
export async function consumeCode(tx: Tx, id: number, now: number): Promise<void> {
  const used = await tx
    .update(smsCodes)
    .set({ usedAt: new Date(now) })
    .where(and(eq(smsCodes.id, id), isNull(smsCodes.usedAt), lt(smsCodes.attempts, MAX_WRONG_ATTEMPTS), gt(smsCodes.expiresAt, new Date(now))))
    .returning({ id: smsCodes.id })
  if (used.length === 0) throw new ApiError(50011002, '验证码已失效，请重新获取')
}
