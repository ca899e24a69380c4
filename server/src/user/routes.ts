import { z } from 'zod'
import type { AllowanceRegistry } from '../allowances/registry.js'
import type { Db } from '../db/database.js'
import type { Account } from '../db/schema.js'
import { type Api, defineRoute } from '../http/api.js'
import { WECHAT_EN_CODE } from '../wechat/login.js'
import { userInfoBase } from './wire.js'

/** `user/info`: the account, a number per allowance kind of the registry (tokens, mjCount, sunoCount, …), its codes. */
export function userInfoSchema(allowances: AllowanceRegistry) {
  const { permissionCodes, ...identity } = userInfoBase.shape
  return z.object({ ...identity, ...allowances.shape, permissionCodes })
}

export function registerUserRoutes(api: Api, allowances: AllowanceRegistry): void {
  defineRoute(
    api,
    '/api/v1/user/info',
    { tag: 'user', summary: 'The logged-in account', body: z.object({}), auth: true, response: userInfoSchema(allowances) },
    async ({ auth }) => toUserInfo(api.db, allowances, auth.account)
  )
}

export async function toUserInfo(db: Db, allowances: AllowanceRegistry, a: Account): Promise<z.infer<ReturnType<typeof userInfoSchema>>> {
  return {
    accountId: a.id,
    userId: a.id,
    // Accounts made by WeChat login have a placeholder until a phone is bound: show none.
    phone: a.enCode === WECHAT_EN_CODE ? '' : a.phone,
    nickName: a.nickName,
    avatarUrl: a.avatarUrl,
    state: a.state === 1 ? 1 : 0,
    ...(await allowances.balances(db, a.id)),
    permissionCodes: a.permissionCodes
  }
}
