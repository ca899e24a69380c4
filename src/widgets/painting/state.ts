import type { BlendDimensions, GalleryItem, PaintingFeatures, PaintingTask, Paged, SdOptions, TaskAction, TaskButton, TaskStatus } from '@lingxi/server/wire'
import { atom, map } from 'nanostores'
import { accountChannelOpen, onAccountEvent } from '../../core/account-events'
import { getJson, request } from '../../core/api'
import { emit } from '../../core/emit'
import { shared } from '../../core/shared'
import { $token } from '../../core/stores'
import { EVENT_NAVIGATE } from '../../core/wire'

// Shapes and calls: docs/painting-wire.md; the wire objects are the server's (`@lingxi/server/wire`, type-only).

export type { BlendDimensions, PaintingFeatures, PaintingTask, SdOptions, TaskAction, TaskButton, TaskStatus }

/** A published work of `gallery/list`; `author` is the masked nickname. */
export type GalleryWork = GalleryItem

export interface SdInput {
  prompt: string
  negativePrompt?: string
  width: number
  height: number
  steps: number
  cfgScale: number
  sampler: string
  seed?: number
}

/** `sd/img2img`: a picture (and, to inpaint, a mask) plus txt2img's settings; the size is the picture's. */
export interface Img2ImgInput extends Omit<SdInput, 'width' | 'height'> {
  image: string
  mask?: string
  denoisingStrength: number
  inpaintingFill?: number
  maskBlur?: number
}

/** Extra fields of an action: custom zoom (zoom, prompt), vary region (mask, prompt). */
export interface ActionExtra {
  zoom?: number
  prompt?: string
  mask?: string
}

export type PagedList<T> = Paged<T>

/** /config/MJHelper.json: categories of words, Chinese labels, English values. */
export interface MjHelperConfig {
  categories: { name: string; items: { label: string; value: string }[] }[]
}

/** Limits of the wire and the spec. */
export const PAINTING_LIMITS = {
  promptMax: 2000,
  referenceImages: 5,
  blendMin: 2,
  blendMax: 5,
  /** The working list of /mj is reset once it holds this many jobs (spec section 9). */
  workList: 12,
  historyPageSize: 10,
  galleryPageSize: 20,
  sdSizeMin: 256,
  sdSizeMax: 1536,
  sdStepsMax: 60,
  sdCfgMax: 20
} as const
/** Polling interval for unfinished jobs while the account channel is closed. */
export const PAINTING_POLL_MS = 3000

export const STATUS_TEXT: Record<TaskStatus, string> = {
  NOT_START: '排队中',
  SUBMITTED: '已提交',
  IN_PROGRESS: '绘制中',
  SUCCESS: '已完成',
  FAILURE: '失败',
  INTERRPUT: '已停止',
  TIMEOUT: '已超时'
}

export const ACTION_TEXT: Record<TaskAction, string> = {
  IMAGINE: '绘图',
  UPSCALE: '放大',
  VARIATION: '变体',
  REROLL: '重绘',
  PAN: '平移',
  DESCRIBE: '识图',
  BLEND: '混图',
  TXT2IMG: 'SD 绘图',
  ZOOM: '缩小扩图',
  VARY: '微调',
  VARY_REGION: '局部重绘',
  UPSCALE_HD: '高清放大',
  SHORTEN: '精简提示词',
  SWAP_FACE: '换脸',
  IMG2IMG: 'SD 图生图',
  INPAINT: 'SD 局部重绘'
}

const RANK: Record<TaskStatus, number> = {
  NOT_START: 0,
  SUBMITTED: 1,
  IN_PROGRESS: 3,
  SUCCESS: 4,
  FAILURE: 4,
  INTERRPUT: 4,
  TIMEOUT: 4
}

export const isTaskFinished = (task: Pick<PaintingTask, 'status'>): boolean => RANK[task.status] === 4

/** What a button does, in Chinese, for screen readers and tooltips. */
export function buttonTitle(button: TaskButton): string {
  switch (button.action) {
    case 'UPSCALE':
      return `放大第 ${button.index} 张`
    case 'VARIATION':
      return `以第 ${button.index} 张做变体`
    case 'REROLL':
      return '重新生成'
    case 'PAN':
      return `向${{ left: '左', right: '右', up: '上', down: '下' }[button.direction ?? 'left']}平移扩展`
    case 'PROMPT':
      return `用第 ${button.index} 条提示词绘图`
    case 'ZOOM':
      return button.mode === 'custom' ? '自定义缩小倍数扩展画面' : `缩小 ${button.mode === '2x' ? '2' : '1.5'} 倍扩展画面`
    case 'VARY':
      return button.mode === 'strong' ? '较大幅度变化' : '细微变化'
    case 'VARY_REGION':
      return '涂抹区域后局部重绘'
    case 'UPSCALE_HD':
      return button.mode === 'creative' ? '高清放大（创意）' : '高清放大（细腻）'
  }
}

// ---- calls ----

const mj = <T>(path: string, body: object) => request<T>(`/painting/${path}`, body)

export const painting = {
  imagine: (prompt: string, images: string[] = []) => mj<PaintingTask>('imagine', images.length ? { prompt, images } : { prompt }),
  action: (taskId: string, button: Pick<TaskButton, 'action' | 'index' | 'direction' | 'mode'>, extra: ActionExtra = {}) => {
    const body: Record<string, unknown> = { taskId, action: button.action, ...extra }
    if (button.index !== undefined) body.index = button.index
    if (button.direction !== undefined) body.direction = button.direction
    if (button.mode !== undefined) body.mode = button.mode
    return mj<PaintingTask>('action', body)
  },
  shorten: (prompt: string) => mj<PaintingTask>('shorten', { prompt }),
  swapFace: (source: string, target: string) => mj<PaintingTask>('swap-face', { source, target }),
  features: () => mj<PaintingFeatures>('features', {}),
  translate: (prompt: string) => mj<{ promptEn: string; translated: boolean; missing: string[] }>('translate', { prompt }),
  img2img: (input: Img2ImgInput) => request<PaintingTask>('/sd/img2img', input),
  describe: (image: string) => mj<PaintingTask>('describe', { image }),
  blend: (images: string[], dimensions: BlendDimensions) => mj<PaintingTask>('blend', { images, dimensions }),
  get: (taskId: string) => mj<PaintingTask>('task/get', { taskId }),
  list: (pageNum: number, pageSize: number = PAINTING_LIMITS.historyPageSize, kind?: 'mj' | 'sd') =>
    mj<PagedList<PaintingTask>>('task/list', kind ? { pageNum, pageSize, kind } : { pageNum, pageSize }),
  stop: (taskId: string) => mj<PaintingTask>('task/stop', { taskId }),
  sdOptions: () => request<SdOptions>('/sd/options', {}),
  txt2img: (input: SdInput) => request<PaintingTask>('/sd/txt2img', input),
  gallery: (pageNum: number, pageSize: number = PAINTING_LIMITS.galleryPageSize) => request<PagedList<GalleryWork>>('/gallery/list', { pageNum, pageSize }),
  publish: (taskId: string) => request<PaintingTask>('/gallery/publish', { taskId }),
  unpublish: (taskId: string) => request<PaintingTask>('/gallery/unpublish', { taskId }),
  helper: () => getJson<MjHelperConfig>('/config/MJHelper.json')
}

/** Keeps the well-formed categories of MJHelper.json (a broken file shows what it can). */
export function readMjHelper(raw: unknown): MjHelperConfig {
  const categories = (raw as MjHelperConfig | null)?.categories
  if (!Array.isArray(categories)) return { categories: [] }
  return {
    categories: categories
      .filter((c) => c && typeof c.name === 'string' && Array.isArray(c.items))
      .map((c) => ({
        name: c.name,
        items: c.items.filter((i) => i && typeof i.label === 'string' && typeof i.value === 'string' && i.value.trim())
      }))
      .filter((c) => c.items.length > 0)
  }
}

// ---- the task store ----

/** Every task this page knows, by id: answers, channel events and polls all land here. */
export const $paintingTasks = /* @__PURE__ */ shared('$paintingTasks', () => map<Record<string, PaintingTask>>({}))

/** The ids on /mj's working area, oldest first; reset once it reaches PAINTING_LIMITS.workList. */
export const $workList = /* @__PURE__ */ shared('$workList', () => atom<string[]>([]))

/**
 * A prompt handed to /mj from elsewhere (the helper's 发送到绘画, the gallery's 做同款); the /mj
 * composer takes it once and clears it.
 */
export const $paintingDraft = /* @__PURE__ */ shared('$paintingDraft', () => atom<string | null>(null))

/** Stores a task unless what is stored is newer: statuses never move backwards, nor progress within one. */
export function putTask(task: PaintingTask): PaintingTask {
  if (!task || typeof task.taskId !== 'string') return task
  const before = $paintingTasks.get()[task.taskId]
  if (before) {
    const a = RANK[before.status] ?? 0
    const b = RANK[task.status] ?? 0
    if (b < a) return before
    if (b === a && a !== 4 && task.progress < before.progress) return before
    if (a === 4 && b === 4 && before.status !== task.status && task.updateTime < before.updateTime) return before
  }
  $paintingTasks.setKey(task.taskId, task)
  return task
}

/** Adds a new job to the working list, starting it afresh when it is full (spec section 9). */
export function addToWorkList(taskId: string): void {
  const list = $workList.get()
  if (list.includes(taskId)) return
  $workList.set(list.length >= PAINTING_LIMITS.workList ? [taskId] : [...list, taskId])
}

export function clearWorkList(): void {
  $workList.set([])
}

/** Starts a job (any submit call) and puts it on the working list. */
export async function submitTask(call: Promise<PaintingTask>): Promise<PaintingTask> {
  const task = putTask(await call)
  addToWorkList(task.taskId)
  return task
}

function unfinishedIds(): string[] {
  return Object.values($paintingTasks.get())
    .filter((t) => !isTaskFinished(t))
    .map((t) => t.taskId)
}

/**
 * Keeps unfinished tasks current: the account channel's `painting` events, and task/get every
 * PAINTING_POLL_MS for each unfinished task while the channel is closed. Returns the stop function.
 */
export function watchPainting(pollMs: number = PAINTING_POLL_MS): () => void {
  // Once per page: another account (or none) forgets this one's jobs.
  shared('painting.session', () => {
    let current = $token.get()
    $token.listen((token) => {
      if (token === current) return
      current = token
      resetPainting()
    })
    return true
  })
  const off = onAccountEvent('painting', (data) => {
    const task = data as PaintingTask
    if (task && typeof task.taskId === 'string' && typeof task.status === 'string') putTask(task)
  })
  const $open = accountChannelOpen()
  let busy = false
  const timer = setInterval(async () => {
    if ($open.get() || busy) return
    const ids = unfinishedIds()
    if (!ids.length) return
    busy = true
    try {
      await Promise.all(ids.map((id) => painting.get(id).then(putTask, () => undefined)))
    } finally {
      busy = false
    }
  }, pollMs)
  return () => {
    off()
    clearInterval(timer)
  }
}

/** Hands a prompt to /mj: stores it as the draft and asks the page to show /mj (`lingxi-navigate`). */
export function sendPromptToMj(prompt: string): void {
  $paintingDraft.set(prompt)
  emit(EVENT_NAVIGATE, { path: `/mj?prompt=${encodeURIComponent(prompt)}` })
}

/** The file name offered for a downloaded image. */
export function imageFileName(task: Pick<PaintingTask, 'taskId' | 'imageUrl'>): string {
  const ext = /\.(png|jpe?g|webp|gif)(?:$|\?)/i.exec(task.imageUrl ?? '')?.[1] ?? 'png'
  return `lingxi-${task.taskId}.${ext.toLowerCase()}`
}

/** Resets the painting stores (logout, tests). */
export function resetPainting(): void {
  $paintingTasks.set({})
  $workList.set([])
  $paintingDraft.set(null)
}
