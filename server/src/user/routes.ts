import { z } from 'zod'
import type { Account } from '../db/schema.js'
import { type Api, defineRoute } from '../http/api.js'
import { WECHAT_EN_CODE } from '../wechat/login.js'

export const userInfo = z.object({
  accountId: z.string(),
  userId: z.string(),
  phone: z.string(),
  nickName: z.string(),
  avatarUrl: z.string(),
  state: z.union([z.literal(0), z.literal(1)]),
  tokens: z.number(),
  mjCount: z.number(),
  sunoCount: z.number(),
  permissionCodes: z.array(z.string())
})

export function registerUserRoutes(api: Api): void {
  defineRoute(
    api,
    '/api/v1/user/info',
    { tag: 'user', summary: 'The logged-in account', body: z.object({}), auth: true, response: userInfo },
    async ({ auth }) => toUserInfo(auth.account)
  )
}

export function toUserInfo(a: Account): z.infer<typeof userInfo> {
  return {
    accountId: a.id,
    userId: a.id,
    // Accounts made by WeChat login have a placeholder until a phone is bound: show none.
    phone: a.enCode === WECHAT_EN_CODE ? '' : a.phone,
    nickName: a.nickName,
    avatarUrl: a.avatarUrl,
    state: a.state === 1 ? 1 : 0,
    tokens: a.tokens,
    mjCount: a.mjCount,
    sunoCount: a.sunoCount,
    permissionCodes: a.permissionCodes
  }
}
