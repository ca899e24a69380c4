import { z } from 'zod'
import { type Api, defineRoute } from '../http/api.js'

const userInfo = z.object({
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
    async ({ auth }) => {
      const a = auth.account
      return {
        accountId: a.id,
        userId: a.id,
        phone: a.phone,
        nickName: a.nickName,
        avatarUrl: a.avatarUrl,
        state: a.state === 1 ? 1 : 0,
        tokens: a.tokens,
        mjCount: a.mjCount,
        sunoCount: a.sunoCount,
        permissionCodes: a.permissionCodes
      }
    }
  )
}
