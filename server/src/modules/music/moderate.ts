import { assertTexts, type FieldCheck, type Moderator } from '../../moderation/index.js'
import type { GenerateInput } from './provider.js'
import type { MusicRuntime } from './runtime.js'

/** What a song request shows or sends upstream: the description, or the lyrics, style, title and excluded styles. */
function fieldsOf(input: GenerateInput): FieldCheck[] {
  if (input.mode === 'describe') return [{ kind: 'prompt', text: input.prompt, source: 'music.describe', what: '歌曲描述' }]
  if (input.mode === 'extend')
    return [
      { kind: 'prompt', text: input.lyric, source: 'music.extend', what: '续写歌词' },
      { kind: 'prompt', text: input.tags, source: 'music.extend', what: '风格标签' },
      { kind: 'name', text: input.title, source: 'music.extend', what: '歌名' }
    ]
  return [
    { kind: 'prompt', text: input.lyric, source: 'music.custom', what: '歌词' },
    { kind: 'prompt', text: input.tags, source: 'music.custom', what: '风格标签' },
    { kind: 'name', text: input.title, source: 'music.custom', what: '歌名' },
    { kind: 'prompt', text: input.negativeTags, source: 'music.custom', what: '排除风格' }
  ]
}

/**
 * The runtime the routes use: a song request is checked before it is charged or sent upstream
 * (routes.ts checks the free lyrics description itself).
 */
export function checkedMusicRuntime(runtime: MusicRuntime, moderator: Moderator): MusicRuntime {
  if (!moderator.enabled) return runtime
  return {
    ...runtime,
    async submit(accountId, input, via) {
      await assertTexts(moderator, accountId, fieldsOf(input))
      return runtime.submit(accountId, input, via)
    }
  }
}
