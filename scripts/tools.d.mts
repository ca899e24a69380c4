// Types of scripts/tools.mjs, for the TypeScript configs that import it (tsup, vitest).
import type { MenuRules } from '../src/core/permissions'
import type { Tool } from '../src/widgets/manifest'

export declare const tools: readonly Tool[]
export declare const menuDefine: string
export declare function menuRules(tools: readonly Tool[]): MenuRules
export declare function npmEntry(): string
