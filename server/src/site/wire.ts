import { z } from 'zod'

/** A menu entry of system.json, by permission code. */
export const permissionMetaSchema = z.object({ icon: z.string(), path: z.string(), permissionName: z.string() }).meta({ id: 'PermissionMeta' })

/**
 * `GET /config/system.json` as served: the operator's file with `wechatLogin` merged in by app.ts
 * (whether WeChat login is configured).
 */
export const systemConfigSchema = z
  .object({
    siteName: z.string().optional(),
    cookieDomain: z.string().optional(),
    /** Menu entries by permission code, in menu order. */
    permissionCodes: z.record(z.string(), permissionMetaSchema),
    /** Extra routes and the permission code that opens each. */
    pathMap: z.object({ production: z.record(z.string(), z.string()).optional() }).optional(),
    wechatLogin: z.boolean()
  })
  .meta({ id: 'SystemConfig' })
