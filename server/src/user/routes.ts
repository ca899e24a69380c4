import { z } from 'zod'
import { createBalanceCache, watchBalanceWrites } from '../allowances/balance-cache.js'
import { accountBalances } from '../allowances/ledger.js'
import type { AllowanceRegistry } from '../allowances/registry.js'
import type { Db } from '../db/database.js'
import type { Account } from '../db/schema.js'
import { type PhoneViewSettings, phoneFor } from '../auth/phone-view.js'
import { type Api, defineRoute } from '../http/api.js'
import { hasPlaceholderPhone } from '../auth/partner-origin.js'
import { userInfoBase } from './wire.js'

/** `user/info`: the account, a number per allowance kind of the registry (tokens, mjCount, sunoCount, …), its codes. */
export function userInfoSchema(allowances: AllowanceRegistry) {
  const { permissionCodes, ...identity } = userInfoBase.shape
  return z.object({ ...identity, ...allowances.shape, permissionCodes })
}

/**
 * `phoneView`: who sees the full phone number (auth/phone-view.ts); a partner page that is not
 * trusted gets it masked, like in the login answers (docs/decisions/0019-session-cookie.md).
 * The balances come from a cache that every balance change clears on every node (allowances/balance-cache.ts).
 */
export function registerUserRoutes(api: Api, allowances: AllowanceRegistry, phoneView: PhoneViewSettings): void {
  const balances = createBalanceCache({ now: api.now, bus: api.bus })
  watchBalanceWrites(api.db, balances)
  defineRoute(
    api,
    '/api/v1/user/info',
    {
      tag: 'user',
      summary: 'The logged-in account (the phone masked, 138****5678, for a partner page not in TRUSTED_ORIGINS)',
      body: z.object({}),
      auth: true,
      response: userInfoSchema(allowances)
    },
    async ({ c, auth }) => {
      const id = auth.account.id
      const info = userInfoOf(auth.account, allowances.fields(await balances.read(id, () => accountBalances(api.db, id))))
      return { ...info, phone: phoneFor(c, phoneView, info.phone) }
    }
  )
}

/** user/info's answer, the balances read from the database (not the cache): for answers right after a change. */
export async function toUserInfo(db: Db, allowances: AllowanceRegistry, a: Account): Promise<z.infer<ReturnType<typeof userInfoSchema>>> {
  return userInfoOf(a, await allowances.balances(db, a.id))
}

function userInfoOf(a: Account, balances: Record<string, number>): z.infer<ReturnType<typeof userInfoSchema>> {
  return {
    accountId: a.id,
    userId: a.id,
    // Accounts made by WeChat login have a placeholder until a phone is bound: show none.
    phone: hasPlaceholderPhone(a.enCode) ? '' : a.phone,
    nickName: a.nickName,
    avatarUrl: a.avatarUrl,
    state: a.state === 1 ? 1 : 0,
    ...balances,
    permissionCodes: a.permissionCodes
  }
}
