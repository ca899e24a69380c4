import { z } from 'zod'

/** A node of `userPermission`'s `bodyList`; `childList` is always present. */
export interface PermissionNode {
  permissionCode: string
  checked: 0 | 1
  childList: PermissionNode[]
}

// Recursive, so named: the OpenAPI document refers to it as #/components/schemas/PermissionNode.
export const permissionNodeSchema: z.ZodType<PermissionNode> = z
  .lazy(() =>
    z.object({
      permissionCode: z.string(),
      checked: z.union([z.literal(0), z.literal(1)]),
      childList: z.array(permissionNodeSchema)
    })
  )
  .meta({ id: 'PermissionNode' })
