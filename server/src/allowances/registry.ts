import { z } from 'zod'
import type { Db, Tx } from '../db/database.js'
import type { AllowanceDeclarer, AllowanceKind } from './kinds.js'
import { accountBalances } from './ledger.js'

/** A kind as the app knows it: its definition, who declares it, and what new accounts start with. */
interface RegisteredKind extends AllowanceKind {
  /** The module that declares it. */
  readonly module: string
  /** What a new account is given on its first login (config `start`, from START_TOKENS etc.). */
  readonly start: number
}

/**
 * The allowance kinds of one app: the union of what its modules declare, in list order (the order
 * of user/info's fields and of a card's log lines). Made once per app from the module list and
 * the config (app.ts, the operator CLI); shared code that needs every kind is given it.
 */
export interface AllowanceRegistry {
  readonly kinds: readonly RegisteredKind[]
  get(id: string): RegisteredKind | undefined
  /** A number per kind by wire field (`{tokens, mjCount, sunoCount}`): for the response schemas. */
  readonly shape: Readonly<Record<string, z.ZodNumber>>
  /** balanceLog's `kind`: one of the ids. */
  readonly kindSchema: z.ZodType<string>
  /** An account's spendable balances by wire field, 0 for a kind it never had: user/info, rechargeCardCode. */
  balances(db: Db | Tx, accountId: string): Promise<Record<string, number>>
  /** Amounts by kind id (a card's grants, balances) as wire fields, every kind present: rechargeLog, user/info. */
  fields(byId: ReadonlyMap<string, number> | Readonly<Record<string, number>>): Record<string, number>
}

const ID = /^[a-z][a-z0-9_]{0,31}$/
const FIELD = /^[a-z][A-Za-z0-9]{0,63}$/
/** Fields the wire objects that carry allowances already use, and the card CLI's own options. */
const RESERVED = new Set(['accountId', 'userId', 'phone', 'nickName', 'avatarUrl', 'state', 'permissionCodes', 'id', 'cardCode', 'createTime', 'count'])

/**
 * The registry of a module list. Refuses (at start, not at the first request) a malformed or twice
 * declared kind, a module that charges a kind no module declares, and a starting amount for one.
 */
export function createAllowanceRegistry(modules: readonly AllowanceDeclarer[], start: Readonly<Record<string, number>> = {}): AllowanceRegistry {
  const kinds: RegisteredKind[] = []
  for (const module of modules) {
    for (const kind of module.allowances ?? []) {
      if (!ID.test(kind.id) || RESERVED.has(kind.id))
        throw new Error(`module ${module.name}: "${kind.id}" cannot be an allowance kind id (lowercase letters, digits, _)`)
      if (!FIELD.test(kind.field) || RESERVED.has(kind.field))
        throw new Error(`module ${module.name}: "${kind.field}" cannot be the wire field of allowance ${kind.id}`)
      const clash = kinds.find((k) => k.id === kind.id || k.field === kind.field)
      if (clash) throw new Error(`modules ${clash.module} and ${module.name} both declare the allowance ${kind.id === clash.id ? kind.id : kind.field}`)
      kinds.push({ ...kind, module: module.name, start: start[kind.id] ?? 0 })
    }
  }
  const byId = new Map(kinds.map((k) => [k.id, k]))
  for (const module of modules) {
    if (module.allowanceKinds === 'all') continue
    for (const id of module.allowanceKinds) {
      if (!byId.has(id)) throw new Error(`module ${module.name} charges the allowance "${id}", which no module of the list declares`)
    }
  }
  for (const [id, amount] of Object.entries(start)) {
    if (amount > 0 && !byId.has(id)) throw new Error(`new accounts start with ${amount} of "${id}", which no module declares`)
  }
  const ids = kinds.map((k) => k.id)
  const fields = (amounts: ReadonlyMap<string, number> | Readonly<Record<string, number>>) => {
    const get = (id: string) => (amounts instanceof Map ? amounts.get(id) : (amounts as Record<string, number>)[id])
    return Object.fromEntries(kinds.map((k) => [k.field, get(k.id) ?? 0]))
  }
  return {
    kinds,
    get: (id) => byId.get(id),
    shape: Object.fromEntries(kinds.map((k) => [k.field, z.number().describe(k.label)])),
    kindSchema: ids.length > 0 ? z.enum(ids as [string, ...string[]]) : z.never(),
    async balances(db, accountId) {
      return fields(await accountBalances(db, accountId))
    },
    fields
  }
}
