import type { ImageInput, PaintingProvider, PaintingUpdate, SubmitContext, SubmitResult } from './provider.js'
import { ProviderError } from './provider.js'

/**
 * novicezk/midjourney-proxy (and the plus / trueai superset, and new-api's relay of it):
 * `/mj/submit/*` to start, `/mj/task/{id}/fetch` and `/mj/task/list-by-condition` to read, the
 * `mj-api-secret` header, and the notifyHook callback (see upstreams.md).
 */
export interface MidjourneyProxyOptions {
  /** Base URL without `/mj`. */
  baseUrl: string
  apiSecret: string | undefined
  /** The callback URL for one task (signed), or undefined when callbacks are off. */
  notifyHook: (taskId: string) => string | undefined
  /** Per request. */
  timeoutMs?: number
  fetch?: typeof fetch
}

/** The Task object of midjourney-proxy, as fetch returns it and the notifyHook receives it. */
export interface ProxyTask {
  id: string
  action?: string | null
  status?: string | null
  prompt?: string | null
  promptEn?: string | null
  description?: string | null
  state?: string | null
  submitTime?: number | null
  startTime?: number | null
  finishTime?: number | null
  imageUrl?: string | null
  progress?: string | null
  failReason?: string | null
  properties?: Record<string, unknown> | null
  /** plus / trueai only. */
  buttons?: { customId?: string; label?: string; emoji?: string; type?: number; style?: number }[] | null
}

interface SubmitAnswer {
  code: number
  description?: string
  result?: string | null
  properties?: Record<string, unknown> | null
}

/** Submit codes (ReturnCode.java) → what the person reads. */
export function submitRefusal(answer: SubmitAnswer): string | undefined {
  const said = (answer.description ?? '').trim()
  switch (answer.code) {
    case 1:
    case 21:
    case 22:
      return undefined
    case 23:
      return '绘画队列已满，请稍后再试'
    case 24: {
      const word = answer.properties?.bannedWord
      return typeof word === 'string' && word !== '' ? `提示词可能包含敏感词「${word}」，请修改后再试` : '提示词可能包含敏感词，请修改后再试'
    }
    case 3:
      return `绘画服务找不到所需资源${said ? `：${said}` : ''}`
    case 4:
      return `绘画参数有误${said ? `：${said}` : ''}`
    case 9:
      return `绘画服务异常${said ? `：${said}` : ''}，请稍后再试`
    default:
      return `绘画服务拒绝了请求（代码 ${answer.code}${said ? `，${said}` : ''}）`
  }
}

const dataUrl = (image: ImageInput) => `data:${image.contentType};base64,${Buffer.from(image.body).toString('base64')}`

/** "46%" → 46; "" or junk → 0. */
export function parseProgress(value: string | null | undefined): number {
  const n = Number.parseFloat((value ?? '').replace('%', ''))
  return Number.isFinite(n) ? Math.max(0, Math.min(100, Math.round(n))) : 0
}

/** DESCRIBE's finalPrompt "1️⃣ Cat --ar 5:4\n\n2️⃣ …" → the four prompts. */
export function splitDescribe(text: string): string[] {
  return text
    .split(/\s*[1-9]\uFE0F?\u20E3\s*/u)
    .map((part) => part.trim())
    .filter((part) => part !== '')
}

/** A proxy Task → Lingxi's update; undefined for states Lingxi does not move on (NOT_START, MODAL …). */
export function updateOf(task: ProxyTask): PaintingUpdate | undefined {
  const progress = parseProgress(task.progress)
  const upstream: Record<string, unknown> = {}
  if (Array.isArray(task.buttons)) {
    upstream.buttons = task.buttons
      .filter((b) => typeof b?.customId === 'string')
      .map((b) => ({ customId: b.customId, label: b.label ?? '', emoji: b.emoji ?? '' }))
  }
  if (typeof task.action === 'string') upstream.action = task.action
  const promptEn = typeof task.promptEn === 'string' && task.promptEn !== '' ? { promptEn: task.promptEn } : {}
  switch (task.status) {
    case 'SUBMITTED':
      return { status: 'SUBMITTED', progress: 0, upstream, ...promptEn }
    case 'IN_PROGRESS':
      return { status: 'IN_PROGRESS', progress: Math.min(progress, 99), upstream, ...promptEn }
    case 'SUCCESS': {
      const update: PaintingUpdate = { status: 'SUCCESS', progress: 100, upstream, ...promptEn }
      if (task.action === 'DESCRIBE') {
        const final = task.properties?.finalPrompt
        const prompts = typeof final === 'string' ? splitDescribe(final) : []
        if (prompts.length < 4) return { status: 'FAILURE', progress: 0, failReason: '绘画服务没有返回四条描述', upstream }
        update.prompts = prompts.slice(0, 4)
        update.promptEn = prompts.slice(0, 4).join('\n\n')
        return update
      }
      if (task.action === 'SHORTEN') {
        const final = task.properties?.finalPrompt
        const prompts = typeof final === 'string' ? splitDescribe(final) : []
        if (prompts.length === 0) return { status: 'FAILURE', progress: 0, failReason: '绘画服务没有返回精简后的提示词', upstream }
        update.prompts = prompts.slice(0, 5)
        return update
      }
      if (!task.imageUrl) return { status: 'FAILURE', progress: 0, failReason: '绘画服务没有返回图片', upstream }
      update.image = { url: task.imageUrl }
      return update
    }
    case 'FAILURE':
    case 'CANCEL':
      return { status: 'FAILURE', progress: 0, failReason: failReasonOf(task.failReason), upstream }
    default:
      return undefined
  }
}

function failReasonOf(reason: string | null | undefined): string {
  const text = (reason ?? '').trim()
  if (text === '') return '绘画失败，次数已退回'
  if (/banned|敏感/i.test(text)) return `提示词可能包含敏感内容，绘画失败（${text.slice(0, 200)}）`
  return `绘画失败：${text.slice(0, 300)}`
}

/** Buttons of the plus proxy: the customId of a button, when the upstream gave buttons. */
export function customIdFor(
  upstream: Record<string, unknown> | null,
  job: { action: string; index?: number; direction?: string; mode?: string }
): string | undefined {
  const buttons = upstream?.buttons
  if (!Array.isArray(buttons)) return undefined
  const ids = buttons.map((b) => (b as { customId?: string }).customId ?? '')
  const find = (test: (id: string) => boolean) => ids.find(test)
  switch (job.action) {
    case 'UPSCALE':
      return find((id) => id.startsWith(`MJ::JOB::upsample::${job.index}::`))
    case 'VARIATION':
      return find((id) => id.startsWith(`MJ::JOB::variation::${job.index}::`))
    case 'REROLL':
      return find((id) => id.startsWith('MJ::JOB::reroll::'))
    case 'PAN':
      return find((id) => id.startsWith(`MJ::JOB::pan_${job.direction}::`))
    // Zoom out: Outpaint 50 is 2x, 75 is 1.5x; CustomZoom opens a modal (the prompt with --zoom).
    case 'ZOOM':
      return job.mode === 'custom'
        ? find((id) => id.startsWith('MJ::CustomZoom::'))
        : find((id) => id.startsWith(`MJ::Outpaint::${job.mode === '2x' ? 50 : 75}::`))
    case 'VARY':
      return find((id) => id.startsWith(`MJ::JOB::${job.mode === 'strong' ? 'high' : 'low'}_variation::`))
    // Vary region opens a modal that takes the mask.
    case 'VARY_REGION':
      return find((id) => id.startsWith('MJ::Inpaint::'))
    case 'UPSCALE_HD':
      return find((id) => new RegExp(`^MJ::JOB::upsample_v\\d+_2x_${job.mode === 'creative' ? 'creative' : 'subtle'}::`).test(id))
    default:
      return undefined
  }
}

/** The modal of a plus proxy's task waits for these (custom zoom, vary region). */
const MODAL_ACTIONS = new Set(['ZOOM_CUSTOM', 'VARY_REGION'])
/** Probed features are read again after this long. */
const FEATURES_TTL_MS = 10 * 60_000

/** A submit answer → the upstream task id; ProviderError (Chinese) when refused. */
function submitted(answer: SubmitAnswer): SubmitResult {
  if (typeof answer?.code !== 'number') throw new ProviderError('绘画服务返回了无法识别的内容')
  const refusal = submitRefusal(answer)
  if (refusal) throw new ProviderError(refusal)
  if (typeof answer.result !== 'string' || answer.result === '') throw new ProviderError('绘画服务没有返回任务编号')
  const upstream: Record<string, unknown> = {}
  if (answer.code === 22 && typeof answer.properties?.numberOfQueues === 'number') upstream.queued = answer.properties.numberOfQueues
  return { upstreamId: answer.result, upstream }
}

/** A prompt for custom zoom: its own --zoom (if any) gives way to the chosen one. */
const stripZoom = (prompt: string) => prompt.replace(/\s--zoom\s+\S+/g, '').trim()

export function createMidjourneyProxy(options: MidjourneyProxyOptions): PaintingProvider {
  const base = options.baseUrl.replace(/\/+$/, '').replace(/\/mj$/, '')
  const doFetch = options.fetch ?? fetch
  const timeoutMs = options.timeoutMs ?? 30_000

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' }
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    if (options.apiSecret) headers['mj-api-secret'] = options.apiSecret
    let res: Response
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs)
      })
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError'
      // A timeout may have reached the proxy (it could have taken the task): only a refused connection is safe to send elsewhere.
      throw new ProviderError(timedOut ? '绘画服务响应超时，请稍后再试' : '无法连接绘画服务，请稍后再试', timedOut, undefined, !timedOut)
    }
    if (res.status === 401 || res.status === 403) throw new ProviderError('绘画服务拒绝访问（密钥不正确），请联系管理员')
    if (!res.ok) {
      await res.body?.cancel().catch(() => {})
      throw new ProviderError(`绘画服务出错（HTTP ${res.status}），请稍后再试`, false, undefined, res.status === 429 || res.status >= 500)
    }
    try {
      return (await res.json()) as T
    } catch {
      throw new ProviderError('绘画服务返回了无法识别的内容')
    }
  }

  async function submit(ctx: SubmitContext): Promise<SubmitResult> {
    const job = ctx.job
    const hook = options.notifyHook(ctx.taskId)
    const common = { state: ctx.taskId, ...(hook ? { notifyHook: hook } : {}) }
    let path: string
    let body: Record<string, unknown>
    switch (job.action) {
      case 'IMAGINE':
        path = '/mj/submit/imagine'
        body = { prompt: job.prompt, base64Array: job.images.map(dataUrl), ...common }
        break
      case 'ZOOM':
      case 'VARY':
      case 'VARY_REGION':
      case 'UPSCALE_HD': {
        const parentId = job.parent.upstreamId
        if (!parentId) throw new ProviderError('原任务不在绘画服务中，无法继续操作')
        const mode =
          job.action === 'ZOOM'
            ? job.mode
            : job.action === 'VARY'
              ? job.strong
                ? 'strong'
                : 'subtle'
              : job.action === 'UPSCALE_HD'
                ? job.creative
                  ? 'creative'
                  : 'subtle'
                : undefined
        const customId = customIdFor(job.parent.upstream, { action: job.action, ...(mode ? { mode } : {}) })
        if (!customId) throw new ProviderError('当前绘画服务不支持此操作（需要支持按钮的 midjourney-proxy plus）')
        const modal = MODAL_ACTIONS.has(job.action === 'ZOOM' && job.mode === 'custom' ? 'ZOOM_CUSTOM' : job.action)
        const answer = await submitted(await call<SubmitAnswer>('POST', '/mj/submit/action', { taskId: parentId, customId, ...common }))
        if (!modal) return answer
        // The action opened a modal (status MODAL): the prompt (and mask) go to /submit/modal.
        const prompt = job.action === 'ZOOM' ? `${stripZoom(job.prompt)} --zoom ${job.zoom}` : job.action === 'VARY_REGION' ? job.prompt : ''
        const modalBody: Record<string, unknown> = { taskId: answer.upstreamId, prompt, ...common }
        if (job.action === 'VARY_REGION') modalBody.maskBase64 = Buffer.from(job.mask.body).toString('base64')
        const done = await submitted(await call<SubmitAnswer>('POST', '/mj/submit/modal', modalBody))
        return { upstreamId: done.upstreamId, upstream: { ...answer.upstream, ...done.upstream } }
      }
      case 'SHORTEN':
        path = '/mj/submit/shorten'
        body = { prompt: job.prompt, ...common }
        break
      case 'SWAP_FACE':
        path = '/mj/insight-face/swap'
        body = { sourceBase64: dataUrl(job.source), targetBase64: dataUrl(job.target), ...common }
        break
      case 'UPSCALE':
      case 'VARIATION':
      case 'REROLL':
      case 'PAN': {
        const parentId = job.parent.upstreamId
        if (!parentId) throw new ProviderError('原任务不在绘画服务中，无法继续操作')
        const customId = customIdFor(job.parent.upstream, {
          action: job.action,
          ...(job.action === 'UPSCALE' || job.action === 'VARIATION' ? { index: job.index } : {}),
          ...(job.action === 'PAN' ? { direction: job.direction } : {})
        })
        if (customId) {
          path = '/mj/submit/action'
          body = { taskId: parentId, customId, ...common }
        } else if (job.action === 'PAN') {
          throw new ProviderError('当前绘画服务不支持平移（需要支持按钮的 midjourney-proxy plus）')
        } else {
          path = '/mj/submit/change'
          body = { taskId: parentId, action: job.action, ...(job.action === 'REROLL' ? {} : { index: job.index }), ...common }
        }
        break
      }
      case 'DESCRIBE':
        path = '/mj/submit/describe'
        body = { base64: dataUrl(job.image), ...common }
        break
      case 'BLEND':
        path = '/mj/submit/blend'
        body = { base64Array: job.images.map(dataUrl), dimensions: job.dimensions, ...common }
        break
      default:
        throw new ProviderError('Midjourney 不支持这种任务')
    }
    return submitted(await call<SubmitAnswer>('POST', path, body))
  }

  let features: { at: number; value: { actions: boolean; shorten: boolean; faceSwap: boolean } } | undefined

  /** Whether the proxy has a route: the open-source one answers 404 where the plus one checks the (empty) body. */
  async function has(path: string): Promise<boolean> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' }
    if (options.apiSecret) headers['mj-api-secret'] = options.apiSecret
    const res = await doFetch(`${base}${path}`, { method: 'POST', headers, body: '{}', signal: AbortSignal.timeout(Math.min(timeoutMs, 10_000)) })
    await res.body?.cancel().catch(() => {})
    return res.status !== 404 && res.status !== 405
  }

  return {
    name: 'midjourney-proxy',
    demo: false,
    submit,
    async features() {
      const now = Date.now()
      if (features && now - features.at < FEATURES_TTL_MS) return features.value
      try {
        const [actions, shorten, faceSwap] = await Promise.all([has('/mj/submit/action'), has('/mj/submit/shorten'), has('/mj/insight-face/swap')])
        features = { at: now, value: { actions, shorten, faceSwap } }
      } catch {
        // Unreachable now: nothing extra is offered, and it is asked again in a minute.
        features = { at: now - FEATURES_TTL_MS + 60_000, value: { actions: false, shorten: false, faceSwap: false } }
      }
      return features.value
    },
    async fetch(ids) {
      const result = new Map<string, PaintingUpdate>()
      if (ids.length === 0) return result
      const tasks = await call<ProxyTask[]>('POST', '/mj/task/list-by-condition', { ids })
      if (!Array.isArray(tasks)) throw new ProviderError('绘画服务返回了无法识别的内容')
      for (const task of tasks) {
        if (!task || typeof task.id !== 'string') continue
        const update = updateOf(task)
        if (update) result.set(task.id, update)
      }
      return result
    }
  }
}
