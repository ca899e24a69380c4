// Types of scripts/elements.mjs, for the tests that import it.
import type { ToolElement } from '../src/widgets/derive'

export declare const elements: ToolElement[]
export declare const entries: ToolElement[]
