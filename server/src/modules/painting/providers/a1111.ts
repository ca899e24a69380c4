import { type ChannelPool, taskChannelId } from '../../../replies/channels-pool.js'
import { type PaintingProvider, ProviderError, type SubmitContext, sleep } from './provider.js'

/**
 * AUTOMATIC1111's web UI API (`--api`): `POST /sdapi/v1/txt2img` and `/sdapi/v1/img2img` (init_images,
 * mask, denoising_strength, inpainting_fill, mask_blur) answer once the picture is done,
 * so this process watches `GET /sdapi/v1/progress` meanwhile. The UI runs one job at a time: the job
 * queue runs one of its jobs at a time across every node (`globalConcurrency`), and calls made here
 * directly also wait their turn (status SUBMITTED) instead of piling onto the UI's queue.
 * With `channels` (kind `sd`), a picture goes to the first channel in order, and a 429, a 5xx or a
 * refused connection of the drawing call moves it to the next (the UI drew nothing for it).
 */
export interface A1111Options {
  baseUrl: string
  /** `user:pass` of `--api-auth`. */
  auth: string | undefined
  /** How often progress is read while a picture is drawn. */
  progressIntervalMs: number
  /** Gives up on one picture after this long. */
  timeoutMs: number
  fetch?: typeof fetch
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  /** The `sd` channels (their key is `user:pass`): baseUrl and auth are then not used. */
  channels?: ChannelPool
}

interface Target {
  base: string
  headers: Record<string, string>
  /** From the channel pool; absent for baseUrl + auth. */
  channelId?: number | null
  id?: number
}

function targetOf(baseUrl: string, auth: string | undefined): Omit<Target, 'channelId' | 'id'> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' }
  if (auth) headers.Authorization = `Basic ${Buffer.from(auth).toString('base64')}`
  return { base: baseUrl.replace(/\/+$/, ''), headers }
}

interface Txt2ImgResponse {
  images?: unknown
  parameters?: Record<string, unknown>
  /** JSON text: parsed a second time. */
  info?: unknown
}

/** `info` is a JSON string inside the JSON answer; returns {} when it is not. */
export function parseInfo(info: unknown): { seed?: number; infotexts?: string[] } {
  if (typeof info === 'object' && info !== null) return info as { seed?: number }
  if (typeof info !== 'string') return {}
  try {
    const value = JSON.parse(info) as unknown
    return typeof value === 'object' && value !== null ? (value as { seed?: number }) : {}
  } catch {
    return {}
  }
}

export function createA1111(options: A1111Options): PaintingProvider {
  const doFetch = options.fetch ?? fetch
  const wait = options.sleep ?? sleep
  const pool = options.channels
  async function targets(): Promise<Target[]> {
    if (!pool) return [targetOf(options.baseUrl, options.auth)]
    const list = (await pool.order()).map((c) => ({ ...targetOf(c.baseUrl, pool.key(c)), channelId: taskChannelId(c), id: c.id }))
    if (list.length === 0) throw new ProviderError('没有可用的 Stable Diffusion 渠道，请联系管理员')
    return list
  }
  const record = (target: Target, ok: boolean, started: number) => {
    if (pool && target.id !== undefined) pool.record(target.id, { ok, latencyMs: Date.now() - started })
  }
  // One job at a time, like the UI itself.
  let queue: Promise<void> = Promise.resolve()

  async function drawOne(ctx: SubmitContext) {
    const job = ctx.job
    if (job.action !== 'TXT2IMG' && job.action !== 'IMG2IMG' && job.action !== 'INPAINT') throw new ProviderError('Stable Diffusion 不支持这种任务')
    const p = job.params
    const common = {
      prompt: p.prompt,
      negative_prompt: p.negativePrompt,
      seed: p.seed,
      sampler_name: p.sampler,
      batch_size: 1,
      n_iter: 1,
      steps: p.steps,
      cfg_scale: p.cfgScale,
      width: p.width,
      height: p.height,
      send_images: true,
      save_images: false
    }
    const b64 = (body: Uint8Array) => Buffer.from(body).toString('base64')
    // img2img: the picture (and mask: white is redrawn) as base64, how far to move from it, and the inpaint settings.
    const request =
      job.action === 'TXT2IMG'
        ? { path: '/sdapi/v1/txt2img', body: common }
        : {
            path: '/sdapi/v1/img2img',
            body: {
              ...common,
              init_images: [b64(job.image.body)],
              resize_mode: 0,
              denoising_strength: job.params.denoisingStrength,
              ...(job.mask
                ? {
                    mask: b64(job.mask.body),
                    mask_blur: job.params.maskBlur,
                    inpainting_fill: job.params.inpaintingFill,
                    inpaint_full_res: false,
                    inpainting_mask_invert: 0
                  }
                : {})
            }
          }
    const tries = await targets()
    let target = tries[0]!
    const controller = new AbortController()
    // The person stopped it (or it timed out): the UI stops drawing too, since this job is the one it runs.
    const stop = () => {
      controller.abort()
      void doFetch(`${target.base}/sdapi/v1/interrupt`, { method: 'POST', headers: target.headers, signal: AbortSignal.timeout(5000) }).catch(() => {})
    }
    ctx.signal.addEventListener('abort', stop, { once: true })
    const timer = setTimeout(() => controller.abort(new ProviderError('Stable Diffusion 绘图超时', true)), options.timeoutMs)
    let finished = false
    const watch = (async () => {
      while (!finished && !controller.signal.aborted) {
        await wait(options.progressIntervalMs, controller.signal)
        if (finished || controller.signal.aborted) return
        try {
          const res = await doFetch(`${target.base}/sdapi/v1/progress?skip_current_image=true`, { headers: target.headers, signal: controller.signal })
          if (!res.ok) continue
          const body = (await res.json()) as { progress?: number }
          const progress = typeof body.progress === 'number' ? Math.round(body.progress * 100) : 0
          if (!finished) await ctx.report({ status: 'IN_PROGRESS', progress: Math.max(1, Math.min(99, progress)) })
        } catch {
          // Progress is a nicety; the picture itself decides the outcome.
        }
      }
    })()
    try {
      await ctx.report({ status: 'IN_PROGRESS', progress: 0 })
      let res: Response | undefined
      for (const [i, next] of tries.entries()) {
        target = next
        const started = Date.now()
        const last = i === tries.length - 1
        try {
          res = await doFetch(`${target.base}${request.path}`, {
            method: 'POST',
            headers: target.headers,
            signal: controller.signal,
            body: JSON.stringify(request.body)
          })
        } catch (error) {
          if (ctx.signal.aborted) return
          const reason = controller.signal.reason
          if (reason instanceof ProviderError) throw reason
          const timedOut = error instanceof Error && error.name === 'TimeoutError'
          if (!timedOut) record(target, false, started)
          if (!last && !timedOut) continue
          throw new ProviderError(timedOut ? 'Stable Diffusion 绘图超时' : '无法连接 Stable Diffusion 服务，请稍后再试')
        }
        const failed = res.status === 429 || res.status >= 500
        record(target, !failed, started)
        if (!failed || last) break
        // This UI drew nothing for it: the next channel draws it.
        await res.body?.cancel().catch(() => {})
      }
      if (!res) throw new ProviderError('无法连接 Stable Diffusion 服务，请稍后再试')
      if (res.status === 401) throw new ProviderError('Stable Diffusion 服务拒绝访问（账号或密码不正确），请联系管理员')
      if (!res.ok) {
        let detail = ''
        try {
          const body = (await res.json()) as { detail?: unknown; error?: unknown; errors?: unknown }
          detail = [body.error, body.detail, body.errors].filter((x) => typeof x === 'string' && x !== '').join('：')
        } catch {}
        throw new ProviderError(`Stable Diffusion 出错（HTTP ${res.status}），请稍后再试`, false, detail.slice(0, 2000))
      }
      let body: Txt2ImgResponse
      try {
        body = (await res.json()) as Txt2ImgResponse
      } catch {
        throw new ProviderError('Stable Diffusion 返回了无法识别的内容')
      }
      finished = true
      const first = Array.isArray(body.images) ? body.images[0] : undefined
      if (typeof first !== 'string' || first === '') throw new ProviderError('Stable Diffusion 没有返回图片')
      const image = Buffer.from(first.replace(/^data:[^,]*,/, ''), 'base64')
      const info = parseInfo(body.info)
      await ctx.report({
        status: 'SUCCESS',
        progress: 100,
        image: { body: new Uint8Array(image), contentType: 'image/png' },
        promptEn: p.prompt,
        params: { ...p, seed: typeof info.seed === 'number' ? info.seed : p.seed },
        ...(target.channelId !== undefined ? { channelId: target.channelId } : {})
      })
    } finally {
      finished = true
      clearTimeout(timer)
      ctx.signal.removeEventListener('abort', stop)
      controller.abort()
      await watch
    }
  }

  return {
    name: 'a1111',
    demo: false,
    globalConcurrency: 1,
    ...(pool ? { available: async () => (await pool.order()).length > 0 } : {}),
    async samplers() {
      let res: Response
      try {
        const [target] = await targets()
        res = await doFetch(`${target!.base}/sdapi/v1/samplers`, { headers: target!.headers, signal: AbortSignal.timeout(10_000) })
      } catch {
        throw new ProviderError('无法连接 Stable Diffusion 服务，请稍后再试')
      }
      if (!res.ok) throw new ProviderError(`Stable Diffusion 出错（HTTP ${res.status}），请稍后再试`)
      const list = (await res.json().catch(() => null)) as { name?: unknown }[] | null
      if (!Array.isArray(list)) throw new ProviderError('Stable Diffusion 返回了无法识别的内容')
      return list.map((s) => s?.name).filter((n): n is string => typeof n === 'string' && n !== '')
    },
    async submit(ctx) {
      const turn = queue.then(async () => {
        if (ctx.signal.aborted) return
        try {
          await drawOne(ctx)
        } catch (error) {
          if (ctx.signal.aborted) return
          const message = error instanceof ProviderError ? error.message : 'Stable Diffusion 绘图失败，请稍后再试'
          await ctx.report({ status: 'FAILURE', progress: 0, failReason: message }).catch(() => {})
        }
      })
      queue = turn.catch(() => {})
      ctx.background(turn)
      return { upstreamId: null }
    }
  }
}
