import { z } from 'zod'

/** The operator API's answers (documented in /api/openapi.json under the `admin` tag). */
export const adminUser = z
  .object({
    accountId: z.string(),
    /** '' for a partner's user (no phone): see `partner`. */
    phone: z.string(),
    /** The partner (single sign-on) that identified this account, and its own user id. */
    partner: z.object({ id: z.string(), sub: z.string() }).nullable(),
    nickName: z.string(),
    state: z.number(),
    disabled: z.boolean(),
    permissionCodes: z.array(z.string()),
    createTime: z.string()
  })
  .meta({ id: 'AdminUser' })

export const adminUserDetail = adminUser
  .extend({
    disabledReason: z.string().nullable(),
    /** Spendable balances by wire field (tokens, mjCount, sunoCount, …). */
    balances: z.record(z.string(), z.number()),
    balanceLog: z.array(z.object({ id: z.number(), kind: z.string(), amount: z.number(), balance: z.number(), reason: z.string(), createTime: z.string() })),
    rechargeLog: z.array(
      z.object({ id: z.number(), cardId: z.string(), codeMask: z.string(), grants: z.record(z.string(), z.number()), createTime: z.string() })
    ),
    sessions: z.array(
      z.object({
        id: z.number(),
        platform: z.string(),
        createTime: z.string(),
        expiresAt: z.string(),
        active: z.boolean(),
        revokeReason: z.string().nullable()
      })
    )
  })
  .meta({ id: 'AdminUserDetail' })

export const balanceChange = z.object({ accountId: z.string(), kind: z.string(), amount: z.number(), balance: z.number() }).meta({ id: 'AdminBalanceChange' })

export const cardBatch = z
  .object({
    batchId: z.string(),
    note: z.string(),
    grants: z.record(z.string(), z.number()),
    count: z.number(),
    redeemed: z.number(),
    voided: z.number(),
    expiresAt: z.string().nullable(),
    createTime: z.string()
  })
  .meta({ id: 'AdminCardBatch' })

export const cardRow = z
  .object({
    cardId: z.string(),
    codeMask: z.string(),
    status: z.enum(['unused', 'redeemed', 'expired', 'voided']),
    redeemedBy: z.string().nullable(),
    redeemedPhone: z.string().nullable(),
    redeemedAt: z.string().nullable()
  })
  .meta({ id: 'AdminCard' })
