import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import sharp from 'sharp'

/**
 * A fake AUTOMATIC1111 web UI API on loopback (modules/api/models.py): `POST /sdapi/v1/txt2img` and
 * `/sdapi/v1/img2img` (init_images, mask, denoising_strength; 422 with FastAPI's detail when wrong)
 * answers `{images: [base64 PNG], parameters, info}` where `info` is JSON *text*; `GET
 * /sdapi/v1/progress` reports `{progress 0..1, eta_relative, state, current_image, textinfo}`;
 * `POST /sdapi/v1/interrupt`; HTTP Basic auth when `auth` is given (401 otherwise).
 */
export type A1111Behaviour =
  | { kind: 'ok' }
  /** HTTP error with A1111's error body ({error, detail, body, errors}). */
  | { kind: 'error'; status: number; error: string; detail: string }
  /** Never answers txt2img (until interrupted or the client gives up). */
  | { kind: 'hang' }

export interface FakeA1111 {
  url: string
  auth: string | undefined
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: Record<string, unknown> | undefined }[]
  behaviour: A1111Behaviour
  /** What /progress reports (0..1). */
  progress: number
  /** txt2img waits for this before answering (tests read progress meanwhile). */
  hold: Promise<void> | undefined
  interrupts: number
  close(): Promise<void>
}

export async function startFakeA1111(options: { auth?: string } = {}): Promise<FakeA1111> {
  const sockets = new Set<Socket>()
  const fake: FakeA1111 = {
    url: '',
    auth: options.auth,
    requests: [],
    behaviour: { kind: 'ok' },
    progress: 0,
    hold: undefined,
    interrupts: 0,
    close: async () => {}
  }
  let releaseHang: (() => void) | undefined

  const server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (raw += chunk))
    req.on('end', () => void handle(req, res, raw))
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const json = (res: ServerResponse, status: number, body: unknown) => {
    if (res.destroyed) return
    res.writeHead(status, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(body))
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const path = (req.url ?? '').split('?')[0] ?? ''
    let body: Record<string, unknown> | undefined
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined
    } catch {
      body = undefined
    }
    fake.requests.push({ method: req.method ?? '', path, headers: req.headers, body })
    if (fake.auth && req.headers.authorization !== `Basic ${Buffer.from(fake.auth).toString('base64')}`) {
      res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Basic' })
      res.end(JSON.stringify({ detail: 'Incorrect username or password' }))
      return
    }
    if (req.method === 'GET' && path === '/sdapi/v1/progress') {
      return json(res, 200, {
        progress: fake.progress,
        eta_relative: 3.2,
        state: {
          skipped: false,
          interrupted: false,
          job: '',
          job_count: 1,
          job_timestamp: '20240101000000',
          job_no: 0,
          sampling_step: Math.round(fake.progress * 20),
          sampling_steps: 20
        },
        current_image: null,
        textinfo: null
      })
    }
    if (req.method === 'POST' && path === '/sdapi/v1/interrupt') {
      fake.interrupts += 1
      releaseHang?.()
      return json(res, 200, {})
    }
    if (req.method === 'GET' && path === '/sdapi/v1/samplers') {
      return json(res, 200, [
        { name: 'DPM++ 2M', aliases: ['k_dpmpp_2m'], options: {} },
        { name: 'Euler a', aliases: ['k_euler_a'], options: {} },
        { name: 'Restart', aliases: ['restart'], options: { scheduler: 'karras' } }
      ])
    }
    if (req.method === 'POST' && (path === '/sdapi/v1/txt2img' || path === '/sdapi/v1/img2img')) {
      const b = body ?? {}
      if (path === '/sdapi/v1/img2img') {
        // StableDiffusionImg2ImgProcessingAPI: init_images are base64 pictures; mask (inpaint) one more.
        const problem = await img2imgProblem(b)
        if (problem) return json(res, 422, { detail: [{ loc: ['body', problem.field], msg: problem.msg, type: 'value_error' }] })
      }
      const behaviour = fake.behaviour
      if (fake.hold) await fake.hold
      if (behaviour.kind === 'error') {
        return json(res, behaviour.status, { error: behaviour.error, detail: behaviour.detail, body: '', errors: '' })
      }
      if (behaviour.kind === 'hang') {
        await new Promise<void>((resolve) => {
          releaseHang = resolve
          res.on('close', resolve)
        })
        // Interrupted: A1111 still answers, with whatever it had (here: nothing useful).
        return json(res, 200, { images: [], parameters: b, info: '{}' })
      }
      const width = Number(b.width ?? 512)
      const height = Number(b.height ?? 512)
      const seed = Number(b.seed ?? -1) === -1 ? 1234567 : Number(b.seed)
      const png = await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 60 } } })
        .png()
        .toBuffer()
      const info = {
        prompt: b.prompt,
        all_prompts: [b.prompt],
        negative_prompt: b.negative_prompt ?? '',
        seed,
        all_seeds: [seed],
        subseed: 42,
        width,
        height,
        sampler_name: b.sampler_name,
        cfg_scale: b.cfg_scale,
        steps: b.steps,
        infotexts: [`${b.prompt}\nSteps: ${b.steps}, Sampler: ${b.sampler_name}, CFG scale: ${b.cfg_scale}, Seed: ${seed}, Size: ${width}x${height}`]
      }
      return json(res, 200, { images: [png.toString('base64')], parameters: b, info: JSON.stringify(info) })
    }
    json(res, 404, { detail: 'Not Found' })
  }

  async function img2imgProblem(b: Record<string, unknown>): Promise<{ field: string; msg: string } | undefined> {
    const init = b.init_images
    if (!Array.isArray(init) || init.length === 0 || typeof init[0] !== 'string') return { field: 'init_images', msg: 'field required' }
    try {
      await sharp(Buffer.from(init[0], 'base64')).metadata()
    } catch {
      return { field: 'init_images', msg: 'Invalid encoded image' }
    }
    if (typeof b.denoising_strength !== 'number' || b.denoising_strength < 0 || b.denoising_strength > 1) return { field: 'denoising_strength', msg: 'invalid' }
    if (b.mask !== undefined) {
      if (typeof b.mask !== 'string') return { field: 'mask', msg: 'str type expected' }
      try {
        const meta = await sharp(Buffer.from(b.mask, 'base64')).metadata()
        if (meta.format !== 'png') return { field: 'mask', msg: 'Invalid encoded image' }
      } catch {
        return { field: 'mask', msg: 'Invalid encoded image' }
      }
    }
    return undefined
  }

  fake.close = async () => {
    releaseHang?.()
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return fake
}
