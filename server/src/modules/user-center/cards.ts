import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { and, eq, gt, isNull, or } from 'drizzle-orm'
import { grant, lock } from '../../allowances/ledger.js'
import type { AllowanceRegistry } from '../../allowances/registry.js'
import type { Db } from '../../db/database.js'
import { type Grants, type RechargeCard, rechargeCards, rechargeLog } from '../../db/schema.js'
import { ApiError } from '../../errors.js'

/** Crockford's base32: no I, L, O or U, so a code read aloud or retyped survives. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
export const CODE_LENGTH = 16

/** A fresh code of 16 characters (80 random bits) in groups of four: `7K3M-QW9D-X2PA-Q2XD`. */
export function generateCardCode(): string {
  const bytes = randomBytes(10)
  let bits = 0n
  for (const b of bytes) bits = (bits << 8n) | BigInt(b)
  let out = ''
  for (let i = CODE_LENGTH - 1; i >= 0; i--) out += ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)]
  return out.match(/.{4}/g)!.join('-')
}

/** The 16 characters of a code as typed (any case, spaces or dashes, O for 0, I/L for 1); null when malformed. */
export function normaliseCardCode(input: string): string | null {
  const plain = input.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1')
  if (plain.length !== CODE_LENGTH) return null
  for (const ch of plain) if (!ALPHABET.includes(ch)) return null
  return plain
}

export function hashCardCode(plain: string): string {
  return createHash('sha256').update(`lingxi-card:${plain}`).digest('hex')
}

export function maskCardCode(plain: string): string {
  return `${plain.slice(0, 4)}-****-****-${plain.slice(-4)}`
}

/** The amounts worth storing: whole numbers ≥ 0, zeros left out; at least one above 0. */
function cardGrants(grants: Readonly<Grants>): Grants {
  const kept: Grants = {}
  for (const [kind, amount] of Object.entries(grants)) {
    if (!Number.isSafeInteger(amount) || amount < 0) throw new Error(`a card grants whole numbers ≥ 0, not ${amount} ${kind}`)
    if (amount > 0) kept[kind] = amount
  }
  if (Object.keys(kept).length === 0) throw new Error('a card must grant something')
  return kept
}

/** Creates `count` cards; returns the codes (printed once: only hashes are stored). */
export async function createCards(
  db: Db,
  o: { grants: Readonly<Grants>; count: number; expiresAt: Date | null; now?: Date }
): Promise<{ codes: string[]; cards: RechargeCard[] }> {
  const at = o.now ?? new Date()
  const grants = cardGrants(o.grants)
  const codes = Array.from({ length: o.count }, generateCardCode)
  const cards = await db
    .insert(rechargeCards)
    .values(
      codes.map((code) => {
        const plain = normaliseCardCode(code) ?? ''
        return {
          id: randomUUID(),
          codeHash: hashCardCode(plain),
          codeMask: maskCardCode(plain),
          grants,
          expiresAt: o.expiresAt,
          createdAt: at
        }
      })
    )
    .returning()
  return { codes, cards }
}

export const CARD_UNKNOWN = '充值卡号不存在，请检查后重新输入'
export const CARD_USED = '该充值卡已被使用'
export const CARD_EXPIRED = '该充值卡已过期'

/**
 * Redeems a card for an account in one transaction: the card is claimed by a conditional update
 * (of two people racing, exactly one gets the row), then the ledger (a log line per kind, in the
 * registry's order) and the recharge log. Answers the new balances by wire field.
 */
export async function redeemCard(db: Db, registry: AllowanceRegistry, accountId: string, plain: string, at: Date): Promise<Record<string, number>> {
  const hash = hashCardCode(plain)
  return db.transaction(async (tx) => {
    const [card] = await tx
      .update(rechargeCards)
      .set({ redeemedAt: at, redeemedBy: accountId })
      .where(and(eq(rechargeCards.codeHash, hash), isNull(rechargeCards.redeemedAt), or(isNull(rechargeCards.expiresAt), gt(rechargeCards.expiresAt, at))))
      .returning()
    if (!card) {
      const [known] = await tx.select().from(rechargeCards).where(eq(rechargeCards.codeHash, hash))
      if (!known) throw new ApiError(40000001, CARD_UNKNOWN)
      if (known.redeemedAt) throw new ApiError(40000001, CARD_USED)
      throw new ApiError(40000001, CARD_EXPIRED)
    }
    const rank = (kind: string) => {
      const i = registry.kinds.findIndex((k) => k.id === kind)
      return i < 0 ? registry.kinds.length : i
    }
    const grants = Object.entries(card.grants)
      .filter(([, amount]) => amount > 0)
      .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : 1))
    // Several kinds change: their rows are locked up front, in the one order every writer keeps.
    const rows = await lock(
      tx,
      [accountId],
      grants.map(([kind]) => kind)
    )
    if (rows.length === 0) throw new ApiError(40400001, '账号不存在')
    const reason = `充值卡 ${card.codeMask}`
    for (const [kind, amount] of grants) await grant(tx, accountId, kind, amount, reason, at)
    await tx.insert(rechargeLog).values({ accountId, cardId: card.id, codeMask: card.codeMask, grants: card.grants, createdAt: at })
    return registry.balances(tx, accountId)
  })
}
