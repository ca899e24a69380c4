import { z } from 'zod'

/**
 * `user/info` without its allowances: the account and its permission codes. The answer adds a
 * number per allowance kind of the app's modules (user/routes.ts); the wire type names those of
 * the default module list (wire.ts).
 */
export const userInfoBase = z.object({
  accountId: z.string(),
  userId: z.string(),
  phone: z.string(),
  nickName: z.string(),
  avatarUrl: z.string(),
  state: z.union([z.literal(0), z.literal(1)]),
  permissionCodes: z.array(z.string())
})
