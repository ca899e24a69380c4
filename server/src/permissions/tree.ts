import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { paths } from '../paths.js'
import type { PermissionNode } from './wire.js'

export interface TemplateNode {
  permissionCode: string
  childList: TemplateNode[]
}

const templateNode: z.ZodType<TemplateNode> = z.lazy(() =>
  z.object({
    permissionCode: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
    childList: z.array(templateNode)
  })
)

/** The application's permission tree (server/config/permission-tree.json), read once. */
export function loadPermissionTemplate(file = join(paths.defaultConfigDir, 'permission-tree.json')): TemplateNode {
  return templateNode.parse(JSON.parse(readFileSync(file, 'utf8')))
}

let cached: TemplateNode | undefined
export function permissionTemplate(): TemplateNode {
  cached ??= loadPermissionTemplate()
  return cached
}

/** Every grantable code: all nodes below the application root. */
export function knownPermissionCodes(template = permissionTemplate()): string[] {
  const codes: string[] = []
  const walk = (node: TemplateNode) => {
    for (const child of node.childList) {
      codes.push(child.permissionCode)
      walk(child)
    }
  }
  walk(template)
  return codes
}

/** The children of `root`, each checked when the account holds its code. */
export function permissionTreeFor(root: TemplateNode, granted: readonly string[]): PermissionNode[] {
  const has = new Set(granted)
  const build = (node: TemplateNode): PermissionNode => ({
    permissionCode: node.permissionCode,
    checked: has.has(node.permissionCode) ? 1 : 0,
    childList: node.childList.map(build)
  })
  return root.childList.map(build)
}
