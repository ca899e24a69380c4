import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm'
import { heldTokens } from '../chat/accounting.js'
import type { Db } from '../db/database.js'
import { accounts, type BalanceKind, balanceLog, type RechargeCard, rechargeCards, rechargeLog } from '../db/schema.js'
import { ApiError } from '../errors.js'

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
  const plain = input
    .toUpperCase()
    .replace(/[\s-]/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1')
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

export interface CardAmounts {
  tokens: number
  mjCount: number
  sunoCount: number
}

/** Creates `count` cards; returns the codes (printed once: only hashes are stored). */
export async function createCards(db: Db, amounts: CardAmounts & { count: number; expiresAt: Date | null; now?: Date }): Promise<{ codes: string[]; cards: RechargeCard[] }> {
  const at = amounts.now ?? new Date()
  const codes = Array.from({ length: amounts.count }, generateCardCode)
  const cards = await db
    .insert(rechargeCards)
    .values(
      codes.map((code) => {
        const plain = normaliseCardCode(code) ?? ''
        return {
          id: randomUUID(),
          codeHash: hashCardCode(plain),
          codeMask: maskCardCode(plain),
          tokens: amounts.tokens,
          mjCount: amounts.mjCount,
          sunoCount: amounts.sunoCount,
          expiresAt: amounts.expiresAt,
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
 * (of two people racing, exactly one gets the row), then balances, balance log and recharge log.
 */
export async function redeemCard(db: Db, accountId: string, plain: string, at: Date): Promise<CardAmounts> {
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
    const [account] = await tx
      .update(accounts)
      .set({
        tokens: sql`${accounts.tokens} + ${card.tokens}`,
        mjCount: sql`${accounts.mjCount} + ${card.mjCount}`,
        sunoCount: sql`${accounts.sunoCount} + ${card.sunoCount}`,
        updatedAt: at
      })
      .where(eq(accounts.id, accountId))
      .returning({ tokens: accounts.tokens, mjCount: accounts.mjCount, sunoCount: accounts.sunoCount })
    if (!account) throw new ApiError(40400001, '账号不存在')
    const reason = `充值卡 ${card.codeMask}`
    const entries: { kind: BalanceKind; amount: number; balance: number }[] = [
      // Tokens held by replies being generated are still the account's (see heldTokens).
      { kind: 'tokens', amount: card.tokens, balance: account.tokens + (await heldTokens(tx, accountId)) },
      { kind: 'mj', amount: card.mjCount, balance: account.mjCount },
      { kind: 'suno', amount: card.sunoCount, balance: account.sunoCount }
    ]
    const logged = entries.filter((e) => e.amount > 0)
    if (logged.length > 0) await tx.insert(balanceLog).values(logged.map((e) => ({ accountId, ...e, reason, createdAt: at })))
    await tx.insert(rechargeLog).values({
      accountId,
      cardId: card.id,
      codeMask: card.codeMask,
      tokens: card.tokens,
      mjCount: card.mjCount,
      sunoCount: card.sunoCount,
      createdAt: at
    })
    return account
  })
}
