import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'

/**
 * A fake gcui-art/suno-api on loopback speaking its real JSON (upstreams.md):
 * `POST /api/generate`, `POST /api/custom_generate`, `POST /api/extend_audio` (audio_id required) → AudioInfo[] (two clips),
 * `GET /api/get?ids=a,b` → AudioInfo[], `POST /api/generate_lyrics` → `{text, title, status}`,
 * errors as `{error}` with the HTTP status (402: no credits). Each GET of a clip moves it one
 * step along its script (submitted → queued → streaming → complete by default).
 */
export type ClipScript = ('submitted' | 'queued' | 'streaming' | 'complete' | 'error')[]

export type SubmitBehaviour =
  | { kind: 'ok'; scripts?: [ClipScript, ClipScript]; delayMs?: number }
  | { kind: 'error'; status: number; error: string }
  | { kind: 'malformed' }
  | { kind: 'empty' }
  | { kind: 'silent' }

export interface AudioInfo {
  id: string
  title: string
  image_url: string
  lyric: string
  audio_url: string
  video_url: string
  created_at: string
  model_name: string
  status: string
  gpt_description_prompt: string
  prompt: string
  type: string
  tags: string
  negative_tags: string
  duration: string
  error_message: string | null
}

export interface SunoRequest {
  method: string
  path: string
  body: Record<string, unknown> | null
}

export interface FakeSuno {
  url: string
  requests: SunoRequest[]
  /** The next submit's behaviour (then back to ok). */
  nextSubmit(behaviour: SubmitBehaviour): void
  /** Every GET /api/get answers this until cleared. */
  failGets(behaviour: { status: number; error: string } | 'malformed' | null): void
  /** GETs of /api/get being answered at once, at most (a poll must never overlap itself). */
  maxConcurrentGets(): number
  /** Audio downloads fail with this status until cleared. */
  failDownloads(status: number | null): void
  clips: Map<string, { info: AudioInfo; script: ClipScript; step: number }>
  close(): Promise<void>
}

/** Bytes that start like an MP3 file (ID3 tag), for the audio downloads. */
export function fakeMp3(id: string): Buffer {
  return Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'binary'), Buffer.from(`fake mp3 of ${id}`), Buffer.alloc(2048, 0xff)])
}

export async function startFakeSuno(): Promise<FakeSuno> {
  const requests: SunoRequest[] = []
  const clips = new Map<string, { info: AudioInfo; script: ClipScript; step: number }>()
  let next: SubmitBehaviour | undefined
  let getFailure: { status: number; error: string } | 'malformed' | null = null
  let downloadFailure: number | null = null
  let openGets = 0
  let maxGets = 0
  const hanging = new Set<ServerResponse>()
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .jpeg()
    .toBuffer()
  let base = ''

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(body))
  }

  const view = (clip: { info: AudioInfo; script: ClipScript; step: number }): AudioInfo => {
    const status = clip.script[Math.min(clip.step, clip.script.length - 1)]!
    const info = { ...clip.info, status }
    if (status === 'streaming') info.audio_url = `${base}/stream/${info.id}`
    if (status === 'complete') {
      info.audio_url = `${base}/audio/${info.id}.mp3`
      info.image_url = `${base}/image/${info.id}.jpeg`
      info.duration = '176.2'
    }
    if (status === 'error') info.error_message = 'Unable to generate: content policy'
    return info
  }

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = ''
      req.on('data', (chunk) => (text += chunk))
      req.on('end', () => resolve(text))
    })

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const text = await readBody(req)
    let body: Record<string, unknown> | null = null
    try {
      body = text ? JSON.parse(text) : null
    } catch {}
    requests.push({ method: req.method ?? '', path: url.pathname + url.search, body })

    const extend = url.pathname === '/api/extend_audio'
    if (req.method === 'POST' && (url.pathname === '/api/generate' || url.pathname === '/api/custom_generate' || extend)) {
      if (extend && !body?.audio_id) return json(res, 400, { error: 'Audio ID is required' })
      const behaviour = next ?? { kind: 'ok' }
      next = undefined
      if (behaviour.kind === 'error') return json(res, behaviour.status, { error: behaviour.error })
      if (behaviour.kind === 'malformed') {
        res.writeHead(200, { 'Content-Type': 'text/html' })
        return res.end('<html>Internal Server Error</html>')
      }
      if (behaviour.kind === 'empty') return json(res, 200, [])
      if (behaviour.kind === 'silent') {
        hanging.add(res)
        return
      }
      const custom = url.pathname === '/api/custom_generate' || extend
      const scripts = behaviour.scripts ?? [
        ['submitted', 'queued', 'streaming', 'complete'],
        ['submitted', 'streaming', 'streaming', 'complete']
      ]
      const made = scripts.map((script) => {
        const id = randomUUID()
        const info: AudioInfo = {
          id,
          title: custom ? String(body?.title ?? '') : '',
          image_url: '',
          lyric: custom ? String(body?.prompt ?? '') : '',
          audio_url: '',
          video_url: '',
          created_at: new Date().toISOString(),
          model_name: String(body?.model ?? 'chirp-v3'),
          status: 'submitted',
          gpt_description_prompt: custom ? '' : String(body?.prompt ?? ''),
          prompt: custom ? String(body?.prompt ?? '') : '',
          type: 'gen',
          tags: custom ? String(body?.tags ?? '') : '',
          negative_tags: String(body?.negative_tags ?? ''),
          duration: '',
          error_message: null
        }
        const clip = { info, script, step: 0 }
        clips.set(id, clip)
        return clip
      })
      const answer = () => json(res, 200, made.map(view))
      if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs)
      else answer()
      return
    }

    if (req.method === 'GET' && url.pathname === '/api/get') {
      openGets++
      maxGets = Math.max(maxGets, openGets)
      await new Promise((resolve) => setTimeout(resolve, 15))
      openGets--
      if (getFailure === 'malformed') return json(res, 200, { clips: 'nope' })
      if (getFailure) return json(res, getFailure.status, { error: getFailure.error })
      const ids = (url.searchParams.get('ids') ?? '').split(',').filter(Boolean)
      const out: AudioInfo[] = []
      for (const id of ids) {
        const clip = clips.get(id)
        if (!clip) continue
        // Described songs get their title and lyrics once generating.
        if (clip.step >= 1 && !clip.info.title) {
          clip.info.title = '夏日晚风'
          clip.info.lyric = '[Verse]\n晚风吹过\n[Chorus]\n夏天的歌'
          clip.info.tags = 'pop, chinese'
        }
        out.push(view(clip))
        clip.step++
      }
      return json(res, 200, out)
    }

    if (req.method === 'POST' && url.pathname === '/api/generate_lyrics') {
      const prompt = String(body?.prompt ?? '')
      if (!prompt) return json(res, 400, { error: 'Prompt is required' })
      if (prompt.includes('402')) return json(res, 402, { error: 'Insufficient credits.' })
      return json(res, 200, { text: `[Verse]\n关于${prompt}\n[Chorus]\n啦啦啦`, title: `${prompt}之歌`, status: 'complete' })
    }

    if (req.method === 'GET' && url.pathname.startsWith('/audio/')) {
      if (downloadFailure) return json(res, downloadFailure, { error: 'gone' })
      const id = url.pathname.slice('/audio/'.length).replace(/\.mp3$/, '')
      res.writeHead(200, { 'Content-Type': 'audio/mpeg' })
      return res.end(fakeMp3(id))
    }
    if (req.method === 'GET' && url.pathname.startsWith('/image/')) {
      res.writeHead(200, { 'Content-Type': 'image/jpeg' })
      return res.end(jpeg)
    }
    return json(res, 404, { error: 'Not found' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  base = `http://127.0.0.1:${port}`
  return {
    url: base,
    requests,
    clips,
    nextSubmit: (b) => (next = b),
    failGets: (b) => (getFailure = b),
    maxConcurrentGets: () => maxGets,
    failDownloads: (s) => (downloadFailure = s),
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
