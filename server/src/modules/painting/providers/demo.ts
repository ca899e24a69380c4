import sharp, { type Metadata, type Stats } from 'sharp'
import type { PanDirection } from '../wire.js'
import { type DemoDrawing, img2img, shorten, swapFace, upscaleHd, vary, varyRegion, zoomOut } from './demo-edits.js'
import { cellSvg, gridSvg, hash, render, withMark } from './demo-svg.js'
import { type PaintingJob, type PaintingProvider, type PaintingUpdate, ProviderError, type SubmitContext, sleep } from './provider.js'

/**
 * The offline demo painter: no keys, no network. Draws deterministic pictures from the prompt and
 * seed (the same prompt with `--seed 42` always gives the same grid), each with a visible
 * "DEMO 示例" mark so nobody mistakes them for a model's work. Supports every action.
 */
export interface DemoOptions {
  /** How long a job takes, spread over a few progress steps (0 in tests). */
  delayMs: number
  /** Waits between steps; tests may hold a job here. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  random?: () => number
}

const STEPS = [8, 27, 49, 73, 94]
/** Long side of a grid, and of an upscaled single image. */
const GRID_LONG = 1024

export function createDemoPainter(options: DemoOptions): PaintingProvider {
  const wait = options.sleep ?? sleep
  const random = options.random ?? Math.random
  return {
    name: 'demo',
    demo: true,
    async features() {
      return { actions: true, shorten: true, faceSwap: true }
    },
    async submit(ctx) {
      const seed = jobSeed(ctx.job, random)
      // The drawing goes on after the submit answer, like any upstream's.
      ctx.background(Promise.resolve().then(() => run(ctx, seed)))
      return { upstreamId: null, upstream: { seed } }
    }
  }

  async function run(ctx: SubmitContext, seed: number) {
    try {
      await ctx.report({ status: 'SUBMITTED', progress: 0 })
      for (const progress of STEPS) {
        await wait(options.delayMs / (STEPS.length + 1), ctx.signal)
        if (ctx.signal.aborted) return
        await ctx.report({ status: 'IN_PROGRESS', progress })
      }
      await wait(options.delayMs / (STEPS.length + 1), ctx.signal)
      if (ctx.signal.aborted) return
      await ctx.report(await draw(ctx, seed))
    } catch (error) {
      if (ctx.signal.aborted) return
      const message = error instanceof ProviderError ? error.message : '演示绘画失败，请重试'
      await ctx.report({ status: 'FAILURE', progress: 0, failReason: message }).catch(() => {})
    }
  }
}

function jobSeed(job: PaintingJob, random: () => number): number {
  if (job.action === 'IMAGINE' && job.seed !== undefined) return job.seed >>> 0
  if ((job.action === 'TXT2IMG' || job.action === 'IMG2IMG' || job.action === 'INPAINT') && job.params.seed >= 0) return job.params.seed >>> 0
  if (job.action === 'UPSCALE' || job.action === 'VARIATION' || job.action === 'PAN') {
    // Actions on a picture follow from it: U2 of the same grid is the same picture.
    const parentSeed = Number(job.parent.upstream?.seed ?? hash(job.parent.id))
    return hash(`${parentSeed}:${job.action}:${job.action === 'PAN' ? job.direction : job.index}`)
  }
  return Math.floor(random() * 0xffffffff) >>> 0
}

async function draw(ctx: SubmitContext, seed: number): Promise<PaintingUpdate> {
  const job = ctx.job
  const done = (body: Buffer, extra: Partial<PaintingUpdate> = {}): PaintingUpdate => ({
    status: 'SUCCESS',
    progress: 100,
    image: { body: new Uint8Array(body), contentType: 'image/png' },
    upstream: { seed },
    ...extra
  })
  switch (job.action) {
    case 'IMAGINE': {
      const [w, h] = sizeFor(job.aspect, GRID_LONG)
      const text = job.prompt
      const cells = [0, 1, 2, 3].map((i) => cellSvg(text, hash(`${seed}:${i}`), w / 2, h / 2))
      return done(await render(gridSvg(cells, w, h)), { promptEn: job.prompt })
    }
    case 'REROLL': {
      const { w, h } = parentSize(job.parent)
      const cells = [0, 1, 2, 3].map((i) => cellSvg(job.parent.promptEn || job.parent.prompt, hash(`${seed}:${i}`), w / 2, h / 2))
      return done(await render(gridSvg(cells, w, h)), { promptEn: job.parent.promptEn })
    }
    case 'UPSCALE': {
      const grid = await parentImage(ctx, job.parent)
      const quadrant = await crop(grid, job.index)
      const meta = await sharp(quadrant).metadata()
      const w = (meta.width ?? 256) * 2
      const h = (meta.height ?? 256) * 2
      const big = await sharp(quadrant).resize(w, h).png().toBuffer()
      return done(await withMark(big, w, h), { promptEn: job.parent.promptEn })
    }
    case 'VARIATION': {
      const grid = await parentImage(ctx, job.parent)
      const quadrant = await crop(grid, job.index)
      const meta = await sharp(quadrant).metadata()
      const cw = meta.width ?? 256
      const ch = meta.height ?? 256
      const cells = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          sharp(quadrant)
            .modulate({ hue: (hash(`${seed}:${i}`) % 90) - 45, saturation: 0.8 + (i % 3) * 0.15 })
            .flop(i % 2 === 1)
            .png()
            .toBuffer()
        )
      )
      return done(await withMark(await tile(cells, cw, ch), cw * 2, ch * 2), { promptEn: job.parent.promptEn })
    }
    case 'PAN': {
      const base = await parentImage(ctx, job.parent)
      const meta = await sharp(base).metadata()
      const bw = meta.width ?? 512
      const bh = meta.height ?? 512
      const cells = await Promise.all(
        [0, 1, 2, 3].map((i) => extend(base, bw, bh, job.direction, job.parent.promptEn || job.parent.prompt, hash(`${seed}:${i}`)))
      )
      const [ew, eh] = job.direction === 'left' || job.direction === 'right' ? [Math.round(bw * 1.5), bh] : [bw, Math.round(bh * 1.5)]
      const scale = GRID_LONG / 2 / Math.max(ew, eh)
      const cw = Math.max(1, Math.round(ew * scale))
      const ch = Math.max(1, Math.round(eh * scale))
      const small = await Promise.all(cells.map((cell) => sharp(cell).resize(cw, ch).png().toBuffer()))
      return done(await withMark(await tile(small, cw, ch), cw * 2, ch * 2), { promptEn: job.parent.promptEn })
    }
    case 'DESCRIBE': {
      const prompts = await describe(job.image.body)
      return { status: 'SUCCESS', progress: 100, prompts, promptEn: prompts.join('\n\n'), upstream: { seed } }
    }
    case 'BLEND': {
      const [w, h] = job.dimensions === 'PORTRAIT' ? [682, GRID_LONG] : job.dimensions === 'LANDSCAPE' ? [GRID_LONG, 682] : [GRID_LONG, GRID_LONG]
      const cw = w / 2
      const ch = h / 2
      const cells = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          blendCell(
            job.images.map((img) => img.body),
            i,
            cw,
            ch
          )
        )
      )
      return done(await withMark(await tile(cells, cw, ch), w, h))
    }
    case 'TXT2IMG': {
      const { width, height, prompt } = job.params
      return done(await render(cellSvg(prompt, seed, width, height, true)), { promptEn: prompt, params: { ...job.params, seed } })
    }
    case 'ZOOM':
      return done(await zoomOut(drawingFor(job.prompt), await parentImage(ctx, job.parent), job.zoom, seed), { promptEn: job.prompt })
    case 'VARY':
      return done(await vary(drawingFor(job.parent.promptEn || job.parent.prompt), await parentImage(ctx, job.parent), job.strong, seed), {
        promptEn: job.parent.promptEn
      })
    case 'VARY_REGION':
      return done(await varyRegion(drawingFor(job.prompt), await parentImage(ctx, job.parent), job.mask.body, seed), { promptEn: job.prompt })
    case 'UPSCALE_HD':
      return done(await upscaleHd(drawingFor(''), await parentImage(ctx, job.parent), job.creative), { promptEn: job.parent.promptEn })
    case 'SHORTEN': {
      const prompts = shorten(job.prompt)
      if (prompts.length === 0) throw new ProviderError('提示词太短，无法再精简')
      return { status: 'SUCCESS', progress: 100, prompts, promptEn: job.prompt, upstream: { seed } }
    }
    case 'SWAP_FACE':
      return done(await swapFace(drawingFor(''), job.source.body, job.target.body))
    case 'IMG2IMG':
    case 'INPAINT':
      return done(await img2img(drawingFor(job.params.prompt), job.image.body, job.mask?.body ?? null, job.params, seed), {
        promptEn: job.params.prompt,
        params: { ...job.params, seed }
      })
  }
}

/** What demo-edits.ts draws with, for one prompt. */
function drawingFor(prompt: string): DemoDrawing {
  return {
    fill: (w, h, seed) => render(cellSvg(prompt || 'Lingxi', seed, w, h, false, true)),
    mark: withMark,
    hash
  }
}

async function parentImage(ctx: SubmitContext, parent: { imageKey: string | null }): Promise<Buffer> {
  const body = parent.imageKey ? await ctx.readImage(parent.imageKey) : null
  if (!body) throw new ProviderError('原图已不存在，无法继续操作')
  return Buffer.from(body)
}

function parentSize(parent: { width: number | null; height: number | null }) {
  return { w: parent.width ?? GRID_LONG, h: parent.height ?? GRID_LONG }
}

/** MJ's numbering: 1 top left, 2 top right, 3 bottom left, 4 bottom right. */
async function crop(grid: Buffer, index: number): Promise<Buffer> {
  const meta = await sharp(grid).metadata()
  const w = Math.floor((meta.width ?? 2) / 2)
  const h = Math.floor((meta.height ?? 2) / 2)
  const i = Math.min(4, Math.max(1, index)) - 1
  return sharp(grid)
    .extract({ left: (i % 2) * w, top: Math.floor(i / 2) * h, width: w, height: h })
    .png()
    .toBuffer()
}

async function tile(cells: Buffer[], cw: number, ch: number): Promise<Buffer> {
  return sharp({ create: { width: cw * 2, height: ch * 2, channels: 3, background: '#17181c' } })
    .composite(cells.map((input, i) => ({ input, left: (i % 2) * cw, top: Math.floor(i / 2) * ch })))
    .png()
    .toBuffer()
}

async function extend(base: Buffer, bw: number, bh: number, direction: PanDirection, prompt: string, seed: number): Promise<Buffer> {
  const horizontal = direction === 'left' || direction === 'right'
  const ew = horizontal ? Math.round(bw * 1.5) : bw
  const eh = horizontal ? bh : Math.round(bh * 1.5)
  // The new area continues the picture: its mirror image, softened, tinted by the seed, with a few new shapes.
  const mirrored = await sharp(base)
    .resize(ew, eh, { fit: 'fill' })
    .flop(horizontal)
    .flip(!horizontal)
    .blur(6)
    .modulate({ hue: (seed % 60) - 30 })
    .png()
    .toBuffer()
  const shapes = Buffer.from(
    cellSvg(prompt, seed, ew, eh, false, true)
      .replace(/<rect width="[^"]*" height="[^"]*" fill="url\(#[^)]*\)"\/>/, '')
      .replace(/<polygon[^>]*\/>/g, '')
  )
  const fill = await sharp(mirrored)
    .composite([{ input: shapes, left: 0, top: 0 }])
    .png()
    .toBuffer()
  const left = direction === 'left' ? ew - bw : 0
  const top = direction === 'up' ? eh - bh : 0
  return sharp(fill)
    .composite([{ input: base, left, top }])
    .png()
    .toBuffer()
}

async function blendCell(images: Uint8Array[], i: number, cw: number, ch: number): Promise<Buffer> {
  const n = images.length
  const vertical = i % 2 === 0
  const band = Math.ceil((vertical ? cw : ch) / n)
  const parts = await Promise.all(
    images.map(async (_, j) => {
      const source = images[(j + i) % n]!
      const width = vertical ? Math.min(band, cw - j * band) : cw
      const height = vertical ? ch : Math.min(band, ch - j * band)
      if (width <= 0 || height <= 0) return null
      const input = await sharp(source).resize(width, height, { fit: 'cover' }).png().toBuffer()
      return { input, left: vertical ? j * band : 0, top: vertical ? 0 : j * band }
    })
  )
  return sharp({ create: { width: cw, height: ch, channels: 3, background: '#17181c' } })
    .composite(parts.filter((p) => p !== null))
    .modulate({ hue: i * 20 })
    .png()
    .toBuffer()
}

const SUBJECTS = [
  'a quiet mountain lake',
  'a neon city street at night',
  'an ancient temple in the clouds',
  'a cozy reading corner',
  'a fox in a snowy forest',
  'a lighthouse on a rocky shore',
  'a field of sunflowers',
  'a koi pond with lotus flowers'
]
const STYLES = [
  'watercolor painting',
  'cinematic photo',
  'studio ghibli style illustration',
  'ink wash painting',
  'isometric 3d render',
  'oil painting, impressionism',
  'flat vector art',
  'pixel art'
]
const LIGHT = ['soft morning light', 'golden hour', 'moody blue hour', 'dramatic rim lighting', 'overcast diffuse light', 'warm lantern glow']

/** Four prompts that follow from the picture's bytes and colours (always the same four for one picture). */
async function describe(body: Uint8Array): Promise<string[]> {
  let meta: Metadata
  let stats: Stats
  try {
    meta = await sharp(body).metadata()
    stats = await sharp(body).stats()
  } catch {
    throw new ProviderError('无法识别这张图片，请换一张再试')
  }
  const [r = 0, g = 0, b = 0] = stats.channels.map((c) => c.mean)
  const colour = r > g && r > b ? 'warm red and orange tones' : g > b ? 'lush green tones' : 'cool blue tones'
  const h = hash(Buffer.from(body).toString('base64').slice(0, 4096))
  const ratio = aspectOf(meta.width ?? 1, meta.height ?? 1)
  return [0, 1, 2, 3].map((i) => {
    const subject = SUBJECTS[(h + i * 3) % SUBJECTS.length]!
    const style = STYLES[(h >>> 3) % STYLES.length]!
    const light = LIGHT[(h + i) % LIGHT.length]!
    return `${subject}, ${style}, ${colour}, ${light} --ar ${ratio}`
  })
}

function aspectOf(w: number, h: number): string {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
  const g = gcd(w, h) || 1
  let aw = w / g
  let ah = h / g
  if (aw > 21 || ah > 21) {
    aw = Math.round((w / h) * 10)
    ah = 10
  }
  return `${aw}:${ah}`
}

/** A grid or picture size for `--ar W:H`, long side `long`, both sides even. */
export function sizeFor(aspect: string | undefined, long: number): [number, number] {
  const [aw, ah] = (aspect ?? '1:1').split(':').map(Number)
  const ratio = aw && ah && aw > 0 && ah > 0 ? aw / ah : 1
  const even = (n: number) => Math.max(64, Math.round(n / 4) * 4)
  return ratio >= 1 ? [long, even(long / ratio)] : [even(long * ratio), long]
}
