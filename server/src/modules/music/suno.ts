import { type Clip, type ClipStatus, CLIP_STATUSES, type GenerateInput, type MusicProvider, MusicProviderError } from './provider.js'

const MAX_AUDIO_BYTES = 50 * 1024 * 1024
const MAX_IMAGE_BYTES = 10 * 1024 * 1024

export interface SunoOptions {
  baseUrl: string
  apiKey?: string | undefined
  model: string
  /** generate / custom_generate / generate_lyrics may take this long (suno-api solves a captcha first). */
  submitTimeoutMs?: number
  /** get, and each download. */
  timeoutMs?: number
}

const str = (value: unknown) => (typeof value === 'string' ? value : '')

function toClip(raw: unknown): Clip | null {
  if (!raw || typeof raw !== 'object') return null
  const a = raw as Record<string, unknown>
  const id = str(a.id)
  if (id === '') return null
  const status = (CLIP_STATUSES as readonly string[]).includes(str(a.status)) ? (str(a.status) as ClipStatus) : 'queued'
  const duration = typeof a.duration === 'number' ? a.duration : Number.parseFloat(str(a.duration))
  return {
    id,
    title: str(a.title),
    tags: str(a.tags),
    lyric: str(a.lyric) || str(a.prompt),
    prompt: str(a.gpt_description_prompt) || str(a.prompt),
    status,
    audioUrl: str(a.audio_url) || null,
    imageUrl: str(a.image_url) || null,
    duration: Number.isFinite(duration) && duration > 0 ? duration : null,
    errorMessage: str(a.error_message) || null
  }
}

/**
 * gcui-art/suno-api: `POST /api/generate`, `POST /api/custom_generate`, `POST /api/extend_audio`
 * (audio_id + continue_at), `GET /api/get?ids=`, `POST /api/generate_lyrics`; errors are `{error}` with the HTTP status (402: no credits).
 */
export function createSunoProvider(options: SunoOptions): MusicProvider {
  const base = options.baseUrl.replace(/\/+$/, '')
  const submitTimeoutMs = options.submitTimeoutMs ?? 120_000
  const timeoutMs = options.timeoutMs ?? 30_000
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' }
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`

  async function call(path: string, init: { method: 'GET' | 'POST'; body?: unknown; timeoutMs: number }): Promise<unknown> {
    let res: Response
    try {
      res = await fetch(`${base}${path}`, {
        method: init.method,
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        signal: AbortSignal.timeout(init.timeoutMs)
      })
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') throw new MusicProviderError('timeout', '音乐服务响应超时，请稍后再试')
      throw new MusicProviderError('upstream', '音乐服务连接失败，请稍后再试', (error as Error).message, true)
    }
    let text: string
    try {
      text = await res.text()
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') throw new MusicProviderError('timeout', '音乐服务响应超时，请稍后再试')
      throw new MusicProviderError('upstream', '音乐服务的响应读取失败')
    }
    let body: unknown
    try {
      body = text === '' ? null : JSON.parse(text)
    } catch {
      throw new MusicProviderError('upstream', `音乐服务返回了无法识别的内容（HTTP ${res.status}）`, undefined, res.status === 429 || res.status >= 500)
    }
    if (!res.ok) {
      const detail = body && typeof body === 'object' ? str((body as Record<string, unknown>).error).slice(0, 200) : ''
      if (res.status === 402) throw new MusicProviderError('credits', '音乐服务的额度已用完，请联系管理员')
      if (res.status === 400 || res.status === 422) throw new MusicProviderError('rejected', `音乐服务拒绝了请求（HTTP ${res.status}）`, detail)
      throw new MusicProviderError('upstream', `音乐服务出错（HTTP ${res.status}）`, detail, res.status === 429 || res.status >= 500)
    }
    return body
  }

  const clips = (body: unknown): Clip[] => {
    if (!Array.isArray(body)) throw new MusicProviderError('upstream', '音乐服务返回的数据格式不正确')
    return body.map(toClip).filter((c): c is Clip => c !== null)
  }

  return {
    kind: 'suno',
    demo: false,
    async generate(input: GenerateInput) {
      if (input.mode === 'extend') {
        const body = {
          audio_id: input.audioId,
          prompt: input.lyric,
          continue_at: input.continueAt,
          tags: input.tags,
          title: input.title,
          model: options.model,
          wait_audio: false
        }
        const list = clips(await call('/api/extend_audio', { method: 'POST', body, timeoutMs: submitTimeoutMs }))
        if (list.length === 0) throw new MusicProviderError('upstream', '音乐服务没有返回任何歌曲')
        return list
      }
      const body =
        input.mode === 'describe'
          ? { prompt: input.prompt, make_instrumental: input.instrumental, model: options.model, wait_audio: false }
          : {
              prompt: input.instrumental ? '' : input.lyric,
              tags: input.tags,
              title: input.title,
              make_instrumental: input.instrumental,
              model: options.model,
              wait_audio: false,
              negative_tags: input.negativeTags
            }
      const list = clips(await call(input.mode === 'describe' ? '/api/generate' : '/api/custom_generate', { method: 'POST', body, timeoutMs: submitTimeoutMs }))
      if (list.length === 0) throw new MusicProviderError('upstream', '音乐服务没有返回任何歌曲')
      return list
    },
    async get(ids) {
      if (ids.length === 0) return []
      return clips(await call(`/api/get?ids=${ids.map(encodeURIComponent).join(',')}`, { method: 'GET', timeoutMs }))
    },
    async lyrics(prompt) {
      const body = await call('/api/generate_lyrics', { method: 'POST', body: { prompt }, timeoutMs: submitTimeoutMs })
      const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {}
      const text = str(record.text)
      if (text === '') throw new MusicProviderError('upstream', '音乐服务没有返回歌词')
      return { title: str(record.title), text }
    },
    async download(url, kind) {
      let parsed: URL
      try {
        parsed = new URL(url)
      } catch {
        throw new MusicProviderError('upstream', '音频地址无效')
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new MusicProviderError('upstream', '音频地址无效')
      const max = kind === 'audio' ? MAX_AUDIO_BYTES : MAX_IMAGE_BYTES
      let res: Response
      try {
        res = await fetch(parsed, { signal: AbortSignal.timeout(Math.max(timeoutMs, 60_000)) })
      } catch (error) {
        throw new MusicProviderError('upstream', `下载${kind === 'audio' ? '音频' : '封面'}失败：${(error as Error).message}`)
      }
      if (!res.ok || !res.body) throw new MusicProviderError('upstream', `下载${kind === 'audio' ? '音频' : '封面'}失败（HTTP ${res.status}）`)
      const chunks: Uint8Array[] = []
      let size = 0
      const reader = res.body.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        size += value.byteLength
        if (size > max) {
          await reader.cancel().catch(() => {})
          throw new MusicProviderError('upstream', `${kind === 'audio' ? '音频' : '封面'}文件过大`)
        }
        chunks.push(value)
      }
      const declared = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
      const byExt = /\.mp3(\?|$)/i.test(parsed.pathname) ? 'audio/mpeg' : /\.wav(\?|$)/i.test(parsed.pathname) ? 'audio/wav' : ''
      const contentType = kind === 'audio' ? (declared.startsWith('audio/') ? declared : byExt || 'audio/mpeg') : declared
      return { bytes: Buffer.concat(chunks), contentType }
    }
  }
}
