import { assertTexts, type Moderator } from '../../moderation/index.js'
import type { PaintingRuntime } from './types.js'

/**
 * The runtime the routes use: a new task's prompt (and SD's negative prompt) is checked before it
 * is charged or sent upstream. Follow-ups (U/V/reroll/pan) reuse their checked parent's prompt.
 */
export function checkedRuntime(runtime: PaintingRuntime, moderator: Moderator): PaintingRuntime {
  if (!moderator.enabled) return runtime
  return {
    ...runtime,
    async create(input) {
      if (!input.parentId) {
        const negative = input.params?.negativePrompt
        await assertTexts(moderator, input.accountId, [
          { kind: 'prompt', text: input.prompt, source: `painting.${input.kind}`, what: '提示词' },
          { kind: 'prompt', text: typeof negative === 'string' ? negative : '', source: `painting.${input.kind}`, what: '反向提示词' }
        ])
      }
      return runtime.create(input)
    }
  }
}
