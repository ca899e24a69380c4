import { z } from 'zod'
import { ApiError } from '../errors.js'
import { type Api, defineRoute } from '../http/api.js'
import { requiredText } from '../http/fields.js'
import { permissionTemplate, permissionTreeFor } from './tree.js'
import { permissionNodeSchema } from './wire.js'

export function registerPermissionRoutes(api: Api): void {
  defineRoute(
    api,
    '/api/v1/userPermission',
    {
      tag: 'user',
      summary: "The application's permission tree, each node checked when the account holds it",
      body: z.object({ appPermissionCode: requiredText('appPermissionCode', { max: 64 }) }),
      auth: true,
      response: z.object({ bodyList: z.array(permissionNodeSchema) })
    },
    async ({ body, auth }) => {
      // Only the application code (the tree's root) names a tree; tool codes do not.
      const root = permissionTemplate()
      if (body.appPermissionCode !== root.permissionCode) throw new ApiError(40000001, 'appPermissionCode 不存在')
      return { bodyList: permissionTreeFor(root, auth.account.permissionCodes) }
    }
  )
}
