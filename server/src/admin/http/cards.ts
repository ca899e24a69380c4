import { randomUUID } from 'node:crypto'
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { AllowanceRegistry } from '../../allowances/registry.js'
import { accounts, cardBatchCards, cardBatches, rechargeCards } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute, requirePermission } from '../../http/api.js'
import { createCards } from '../../modules/user-center/cards.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'
import { csvResponse } from './csv.js'
import { cardBatch, cardRow } from './wire.js'

type CardStatus = z.infer<typeof cardRow>['status']
const CARD_LIST_MAX = 10_000
const anyCard = cardRow
  .omit({ redeemedBy: true })
  .extend({ grants: z.record(z.string(), z.number()), expiresAt: z.string().nullable(), createTime: z.string() })
  .meta({ id: 'AdminAnyCard' })
const batchId = z.string({ error: 'batchId 不能为空' }).uuid({ error: 'batchId 格式不正确' })

async function batchRows(api: Api, where?: ReturnType<typeof eq>) {
  const rows = await api.db
    .select({
      batch: cardBatches,
      redeemed: sql<number>`count(${rechargeCards.redeemedAt})::int`,
      voided: sql<number>`count(${cardBatchCards.voidedAt})::int`
    })
    .from(cardBatches)
    .leftJoin(cardBatchCards, eq(cardBatchCards.batchId, cardBatches.id))
    .leftJoin(rechargeCards, eq(rechargeCards.id, cardBatchCards.cardId))
    .where(where)
    .groupBy(cardBatches.id)
    .orderBy(desc(cardBatches.createdAt))
    .limit(200)
  return rows.map((r) => ({
    batchId: r.batch.id,
    note: r.batch.note,
    grants: r.batch.grants,
    count: r.batch.count,
    redeemed: Number(r.redeemed),
    voided: Number(r.voided),
    expiresAt: r.batch.expiresAt?.toISOString() ?? null,
    createTime: r.batch.createdAt.toISOString()
  }))
}

async function cardsOf(api: Api, id: string) {
  const rows = await api.db
    .select({ card: rechargeCards, voidedAt: cardBatchCards.voidedAt, enCode: accounts.enCode, phone: accounts.phone })
    .from(cardBatchCards)
    .innerJoin(rechargeCards, eq(rechargeCards.id, cardBatchCards.cardId))
    .leftJoin(accounts, eq(accounts.id, rechargeCards.redeemedBy))
    .where(eq(cardBatchCards.batchId, id))
    .orderBy(rechargeCards.seq)
  const now = api.now()
  return rows.map(({ card, voidedAt, enCode, phone }) => {
    const status: CardStatus = card.redeemedAt ? 'redeemed' : voidedAt ? 'voided' : card.expiresAt && card.expiresAt.getTime() <= now ? 'expired' : 'unused'
    return {
      cardId: card.id,
      codeMask: card.codeMask,
      status,
      redeemedBy: card.redeemedBy,
      redeemedPhone: phone ? `+${enCode} ${phone}` : null,
      redeemedAt: card.redeemedAt?.toISOString() ?? null
    }
  })
}

export function registerCardRoutes(api: Api, allowances: AllowanceRegistry): void {
  const base = { tag: TAG, permission: ADMIN_PERMISSION, auth: true as const }
  const grants = z
    .record(
      z.string().refine((id) => allowances.get(id) !== undefined, { error: `grants 的额度种类只能是 ${allowances.kinds.map((k) => k.id).join('、')}` }),
      z.number({ error: 'grants 的数量必须是整数' }).int({ error: 'grants 的数量必须是整数' }).min(0, { error: 'grants 的数量不能小于 0' }).max(100_000_000)
    )
    .refine((g) => Object.values(g).some((n) => n > 0), { error: '充值卡至少要给一种额度' })

  defineRoute(
    api,
    '/api/admin/cards/batches',
    { ...base, summary: 'Recharge-card batches, newest first', body: z.object({}), response: z.object({ list: z.array(cardBatch) }) },
    async () => ({
      list: await batchRows(api)
    })
  )

  defineRoute(
    api,
    '/api/admin/cards/list',
    {
      ...base,
      summary: `Every recharge card, in or outside a batch, oldest first (what \`lingxi-admin cards list\` prints; at most ${CARD_LIST_MAX})`,
      body: z.object({}),
      response: z.object({ list: z.array(anyCard) })
    },
    async () => {
      const now = api.now()
      const rows = await api.db
        .select({ card: rechargeCards, voidedAt: cardBatchCards.voidedAt, enCode: accounts.enCode, phone: accounts.phone })
        .from(rechargeCards)
        .leftJoin(cardBatchCards, eq(cardBatchCards.cardId, rechargeCards.id))
        .leftJoin(accounts, eq(accounts.id, rechargeCards.redeemedBy))
        .orderBy(rechargeCards.seq)
        .limit(CARD_LIST_MAX)
      return {
        list: rows.map(({ card, voidedAt, enCode, phone }) => ({
          cardId: card.id,
          codeMask: card.codeMask,
          grants: card.grants,
          status: (card.redeemedAt ? 'redeemed' : voidedAt ? 'voided' : card.expiresAt && card.expiresAt.getTime() <= now ? 'expired' : 'unused') as CardStatus,
          redeemedPhone: phone ? `+${enCode} ${phone}` : null,
          redeemedAt: card.redeemedAt?.toISOString() ?? null,
          expiresAt: card.expiresAt?.toISOString() ?? null,
          createTime: card.createdAt.toISOString()
        }))
      }
    }
  )

  defineRoute(
    api,
    '/api/admin/cards/create',
    {
      ...base,
      summary: 'Creates a batch of cards; the codes are in this answer only (only their hashes are stored)',
      body: z.object({
        grants,
        count: z.number().int().min(1, { error: 'count 至少为 1' }).max(1000, { error: 'count 最多 1000' }),
        expiresDays: z.number().int().min(1).max(3650).optional(),
        note: z.string().trim().max(200, { error: 'note 最多 200 个字' }).optional()
      }),
      response: z.object({ batch: cardBatch, codes: z.array(z.string()) })
    },
    async ({ body, auth }) => {
      const at = new Date(api.now())
      const expiresAt = body.expiresDays ? new Date(at.getTime() + body.expiresDays * 86_400_000) : null
      const id = randomUUID()
      // Made in one transaction with the batch, so a failure leaves no card outside a batch.
      const codes = await api.db.transaction(async (tx) => {
        await tx
          .insert(cardBatches)
          .values({ id, note: body.note ?? '', grants: body.grants, count: body.count, expiresAt, createdBy: auth.account.id, createdAt: at })
        const made = await createCards(tx as unknown as Parameters<typeof createCards>[0], { grants: body.grants, count: body.count, expiresAt, now: at })
        await tx.insert(cardBatchCards).values(made.cards.map((card) => ({ cardId: card.id, batchId: id })))
        await audit(tx, auth, { action: 'cards.create', target: id, after: { grants: body.grants, count: body.count, expiresAt, note: body.note ?? '' } }, at)
        return made.codes
      })
      const [batch] = await batchRows(api, eq(cardBatches.id, id))
      return { batch: batch!, codes }
    }
  )

  defineRoute(
    api,
    '/api/admin/cards/batch',
    {
      ...base,
      summary: 'The cards of one batch: masked code, status, who redeemed it and when',
      body: z.object({ batchId }),
      response: z.object({ batch: cardBatch, cards: z.array(cardRow) })
    },
    async ({ body }) => {
      const [batch] = await batchRows(api, eq(cardBatches.id, body.batchId))
      if (!batch) throw new ApiError(40400001, '充值卡批次不存在')
      return { batch, cards: await cardsOf(api, body.batchId) }
    }
  )

  defineRoute(
    api,
    '/api/admin/cards/void',
    {
      ...base,
      summary: 'Voids the unused cards of a batch (all, or those named); a voided card redeems nothing',
      body: z.object({ batchId, cardIds: z.array(z.string().max(64)).max(1000).optional() }),
      response: z.object({ voided: z.number() })
    },
    async ({ body, auth }) => {
      const at = new Date(api.now())
      const voided = await api.db.transaction(async (tx) => {
        const [batch] = await tx.select().from(cardBatches).where(eq(cardBatches.id, body.batchId)).for('update')
        if (!batch) throw new ApiError(40400001, '充值卡批次不存在')
        const members = tx
          .select({ id: cardBatchCards.cardId })
          .from(cardBatchCards)
          .where(and(eq(cardBatchCards.batchId, batch.id), isNull(cardBatchCards.voidedAt)))
        // Expired now, in the statement that checks it is unredeemed: a redemption racing it either
        // came first (the card stays redeemed) or finds it expired.
        const rows = await tx
          .update(rechargeCards)
          .set({ expiresAt: at })
          .where(and(inArray(rechargeCards.id, members), isNull(rechargeCards.redeemedAt), body.cardIds ? inArray(rechargeCards.id, body.cardIds) : undefined))
          .returning({ id: rechargeCards.id })
        const ids = rows.map((r) => r.id)
        if (ids.length > 0) await tx.update(cardBatchCards).set({ voidedAt: at }).where(inArray(cardBatchCards.cardId, ids))
        await audit(tx, auth, { action: 'cards.void', target: batch.id, after: { voided: ids } }, at)
        return ids.length
      })
      return { voided }
    }
  )

  const csvPath = '/api/admin/cards/batches/{batchId}/csv'
  api.docs.push({ method: 'get', path: csvPath, tag: TAG, summary: 'A batch as CSV (masked codes, status, redeemer)', auth: true, contentType: 'text/csv' })
  api.app.get('/api/admin/cards/batches/:batchId/csv', requirePermission(api, ADMIN_PERMISSION), async (c) => {
    const id = c.req.param('batchId')
    if (!batchId.safeParse(id).success) throw new ApiError(40000001, 'batchId 格式不正确')
    const [batch] = await batchRows(api, eq(cardBatches.id, id))
    if (!batch) throw new ApiError(40400001, '充值卡批次不存在')
    const kinds = allowances.kinds.map((k) => k.id)
    const header = ['card_id', 'code_mask', ...kinds, 'status', 'redeemed_by', 'redeemed_phone', 'redeemed_at', 'expires_at', 'note']
    const rows = (await cardsOf(api, id)).map((card) => [
      card.cardId,
      card.codeMask,
      ...kinds.map((k) => batch.grants[k] ?? 0),
      card.status,
      card.redeemedBy,
      card.redeemedPhone,
      card.redeemedAt,
      batch.expiresAt,
      batch.note
    ])
    return csvResponse(c, `cards-${id}.csv`, header, rows)
  })
}
