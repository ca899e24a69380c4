import { assertTexts, type Moderator } from '../../moderation/index.js'
import type { PaintingRuntime } from './types.js'

/**
 * The runtime the routes use: a new task's prompt (and SD's negative prompt) is checked before it
 * is charged or sent upstream. Follow-ups (U/V/reroll/pan) reuse their checked parent's prompt;
 * custom zoom and vary region may bring a prompt of their own, which is checked too.
 */
export function checkedRuntime(runtime: PaintingRuntime, moderator: Moderator): PaintingRuntime {
  if (!moderator.enabled) return runtime
  return {
    ...runtime,
    async create(input) {
      const job = input.job
      if (input.parentId && (job.action === 'ZOOM' || job.action === 'VARY_REGION')) {
        await assertTexts(moderator, input.accountId, [{ kind: 'prompt', text: job.prompt, source: `painting.${input.kind}`, what: '提示词' }])
      }
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
