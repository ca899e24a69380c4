import { composeWav, hash, plan, random } from './compose.js'
import { demoCover } from './cover.js'
import { type Clip, type ClipStatus, type GenerateInput, type MusicProvider, MusicProviderError } from './provider.js'

/** The keyword a demo lyric sings about: the prompt's first few Chinese characters, or its first word. */
function keyword(prompt: string): string {
  const topic = prompt
    .trim()
    .replace(/^(请|帮我|给我|为我|写|做|创作|生成|来)+/, '')
    .replace(/^(一首|一段|一支|首)/, '')
    .replace(/^(关于|有关)/, '')
  const cjk = /[\u4e00-\u9fff]{2,}/.exec(topic)?.[0]?.split('的')[0]
  if (cjk && cjk.length >= 2) return [...cjk].slice(0, 4).join('')
  const any = /[\u4e00-\u9fff]{2,}/.exec(prompt)?.[0]
  if (any) return [...any].slice(0, 4).join('')
  const word = /[A-Za-z0-9]{2,}/.exec(prompt)?.[0]
  return word ? word.slice(0, 12) : '今天'
}

const VERSE = [
  '{k}在风里轻轻地唱',
  '窗外的光落在{k}身旁',
  '走过长长的街和小巷',
  '把{k}写进昨天的信上',
  '夜色温柔像一首老歌',
  '我们笑着数天上的星',
  '{k}是心里不灭的灯',
  '慢慢走也会到远方'
]
const CHORUS = ['啦啦啦 {k} 啦啦', '就让{k}陪我到天亮', '一起唱吧 一起唱', '{k}啊 {k} 别走远', '风吹过 心在飞翔']

/** Deterministic demo lyrics for a prompt, in Suno's [Verse]/[Chorus] layout. */
export function demoLyrics(prompt: string): { title: string; text: string } {
  const k = keyword(prompt)
  const rnd = random(hash(`lyrics:${prompt}`))
  const pick = (pool: string[], n: number) => {
    const lines: string[] = []
    const rest = [...pool]
    for (let i = 0; i < n && rest.length > 0; i++) lines.push(rest.splice(Math.floor(rnd() * rest.length), 1)[0]!.replaceAll('{k}', k))
    return lines
  }
  const chorus = pick(CHORUS, 2)
  const text = ['[Verse]', ...pick(VERSE, 4), '', '[Chorus]', ...chorus, '', '[Verse]', ...pick(VERSE, 4), '', '[Chorus]', ...chorus].join('\n')
  return { title: `${k}之歌`, text }
}

const TAG_SETS = ['pop, pentatonic, warm', 'folk, acoustic, calm', 'lofi, chill, soft', 'chinese traditional, guzheng style', 'synth pop, bright']

const CLIP_ID = /^demo-([0-9a-z]{1,12})-([0-9a-z]{1,8})-([0-9])$/

/** The offline demo composer: two clips per request, progressing through suno's statuses over `delayMs`. */
export function createDemoMusicProvider(options: { now: () => number; delayMs: number }): MusicProvider {
  const { now, delayMs } = options

  function status(createdAt: number): ClipStatus {
    const elapsed = now() - createdAt
    if (elapsed >= delayMs) return 'complete'
    if (elapsed >= delayMs * 0.35) return 'streaming'
    if (elapsed >= delayMs * 0.15) return 'queued'
    return 'submitted'
  }

  return {
    kind: 'demo',
    demo: true,
    async generate(input: GenerateInput) {
      const at = now()
      if (input.mode === 'extend' && !CLIP_ID.test(input.audioId)) throw new MusicProviderError('rejected', '演示歌曲不存在，无法续写')
      const basis =
        input.mode === 'describe'
          ? `d:${input.prompt}`
          : input.mode === 'extend'
            ? `e:${input.audioId}@${input.continueAt}\n${input.lyric}`
            : `c:${input.title}\n${input.tags}\n${input.lyric}`
      const lyrics = input.mode === 'describe' ? demoLyrics(input.prompt) : { title: input.title, text: input.lyric }
      const instrumental = input.mode !== 'extend' && input.instrumental
      return [0, 1].map((i): Clip => {
        const seed = hash(`${basis}#${instrumental ? 'i' : 'v'}#${i}`)
        return {
          id: `demo-${at.toString(36)}-${seed.toString(36)}-${i}`,
          title: input.mode === 'describe' ? `${lyrics.title}${i === 0 ? '' : ' II'}` : input.title,
          tags: input.mode === 'describe' ? TAG_SETS[seed % TAG_SETS.length]! : input.tags,
          lyric: instrumental ? '' : lyrics.text,
          prompt: input.mode === 'describe' ? input.prompt : input.lyric,
          status: 'submitted',
          audioUrl: null,
          imageUrl: null,
          duration: null,
          errorMessage: null
        }
      })
    },
    async get(ids) {
      return ids.map((id): Clip => {
        const match = CLIP_ID.exec(id)
        const base = { id, title: '', tags: '', lyric: '', prompt: '', audioUrl: null, imageUrl: null, duration: null }
        if (!match) return { ...base, status: 'error', errorMessage: '演示歌曲不存在' }
        const createdAt = Number.parseInt(match[1]!, 36)
        const seed = Number.parseInt(match[2]!, 36)
        const s = status(createdAt)
        const done = s === 'complete'
        return {
          ...base,
          status: s,
          duration: s === 'streaming' || done ? Math.round(plan(seed).durationSeconds * 10) / 10 : null,
          audioUrl: done ? `demo:audio:${seed.toString(36)}` : null,
          imageUrl: done ? `demo:image:${seed.toString(36)}` : null,
          errorMessage: null
        }
      })
    },
    async lyrics(prompt) {
      const { title, text } = demoLyrics(prompt)
      return { title, text }
    },
    async download(url, kind) {
      const match = /^demo:(audio|image):([0-9a-z]{1,8})$/.exec(url)
      if (!match || match[1] !== kind) throw new MusicProviderError('upstream', '演示文件不存在')
      const seed = Number.parseInt(match[2]!, 36)
      if (kind === 'audio') return { bytes: composeWav(seed).wav, contentType: 'audio/wav' }
      return { bytes: await demoCover(seed), contentType: 'image/png' }
    }
  }
}
