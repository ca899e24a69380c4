import sharp from 'sharp'

/**
 * The demo painter's edits of an existing picture (zoom out, vary, vary region, upscale subtle /
 * creative, face swap, img2img, inpaint) and shorten. Offline, deterministic for a seed, and
 * obviously not a model's work: every picture gets the "DEMO 示例" mark from `mark`.
 */
export interface DemoDrawing {
  /** New content of this size for a seed (gradient sky, hills, shapes). */
  fill(w: number, h: number, seed: number): Promise<Buffer>
  /** Adds the DEMO mark. */
  mark(png: Buffer, w: number, h: number): Promise<Buffer>
  /** A number from a string (FNV-1a). */
  hash(text: string): number
}

const GRID_LONG = 1024
const HD_LONG = 2048

async function sizeOf(image: Buffer | Uint8Array): Promise<{ w: number; h: number }> {
  const meta = await sharp(image).metadata()
  return { w: meta.width ?? 512, h: meta.height ?? 512 }
}

/** A grid cell size for a picture of w×h: the grid's long side is GRID_LONG. */
function cellOf(w: number, h: number) {
  const scale = GRID_LONG / 2 / Math.max(w, h)
  return { cw: Math.max(16, Math.round(w * scale)), ch: Math.max(16, Math.round(h * scale)) }
}

async function grid(d: DemoDrawing, cells: Buffer[], cw: number, ch: number): Promise<Buffer> {
  const tiled = await sharp({ create: { width: cw * 2, height: ch * 2, channels: 3, background: '#17181c' } })
    .composite(cells.map((input, i) => ({ input, left: (i % 2) * cw, top: Math.floor(i / 2) * ch })))
    .png()
    .toBuffer()
  return d.mark(tiled, cw * 2, ch * 2)
}

/** Zoom out: the picture shrunk by `zoom` in the middle of new surroundings (its own blurred colours plus new shapes). */
export async function zoomOut(d: DemoDrawing, base: Buffer, zoom: number, seed: number): Promise<Buffer> {
  const { w, h } = await sizeOf(base)
  const { cw, ch } = cellOf(w, h)
  const iw = Math.max(8, Math.round(cw / zoom))
  const ih = Math.max(8, Math.round(ch / zoom))
  const inner = await sharp(base).resize(iw, ih, { fit: 'fill' }).png().toBuffer()
  const around = await sharp(base).resize(cw, ch, { fit: 'fill' }).blur(12).png().toBuffer()
  const cells = await Promise.all(
    [0, 1, 2, 3].map(async (i) => {
      const shapes = await sharp(await d.fill(cw, ch, d.hash(`${seed}:${i}`)))
        .removeAlpha()
        .ensureAlpha(0.45)
        .png()
        .toBuffer()
      return sharp(around)
        .composite([
          { input: shapes, left: 0, top: 0 },
          { input: inner, left: Math.round((cw - iw) / 2), top: Math.round((ch - ih) / 2) }
        ])
        .png()
        .toBuffer()
    })
  )
  return grid(d, cells, cw, ch)
}

/** Vary: four takes on the picture, a little (subtle) or clearly (strong) different. */
export async function vary(d: DemoDrawing, base: Buffer, strong: boolean, seed: number): Promise<Buffer> {
  const { w, h } = await sizeOf(base)
  const { cw, ch } = cellOf(w, h)
  const spread = strong ? 70 : 14
  const cells = await Promise.all(
    [0, 1, 2, 3].map(async (i) => {
      const s = d.hash(`${seed}:${i}`)
      let img = sharp(base)
        .resize(cw, ch, { fit: 'fill' })
        .modulate({ hue: (s % (spread * 2)) - spread, saturation: strong ? 0.7 + (s % 7) / 10 : 0.95 + (s % 3) / 30 })
      if (strong && i % 2 === 1) img = img.flop()
      const out = await img.png().toBuffer()
      if (!strong) return out
      const shapes = await sharp(await d.fill(cw, ch, s))
        .removeAlpha()
        .ensureAlpha(0.3)
        .png()
        .toBuffer()
      return sharp(out)
        .composite([{ input: shapes, left: 0, top: 0 }])
        .png()
        .toBuffer()
    })
  )
  return grid(d, cells, cw, ch)
}

/** New content where the mask is white, the picture where it is black. `strength` 0..1 blends the new content in. */
async function paintIn(d: DemoDrawing, base: Buffer, mask: Uint8Array | null, w: number, h: number, seed: number, strength: number, blur = 0): Promise<Buffer> {
  const picture = await sharp(base).resize(w, h, { fit: 'fill' }).removeAlpha().png().toBuffer()
  let alpha = mask
    ? sharp(mask).resize(w, h, { fit: 'fill' }).greyscale()
    : sharp({ create: { width: w, height: h, channels: 3, background: '#ffffff' } }).greyscale()
  if (blur > 0) alpha = alpha.blur(Math.max(0.3, blur / 2))
  const a = await alpha.linear(strength, 0).extractChannel(0).toColourspace('b-w').png().toBuffer()
  const fresh = await sharp(await d.fill(w, h, seed))
    .removeAlpha()
    .joinChannel(a)
    .png()
    .toBuffer()
  return sharp(picture)
    .composite([{ input: fresh, left: 0, top: 0 }])
    .png()
    .toBuffer()
}

/** Vary region: four grids cells, each with the masked area drawn anew. */
export async function varyRegion(d: DemoDrawing, base: Buffer, mask: Uint8Array, seed: number): Promise<Buffer> {
  const { w, h } = await sizeOf(base)
  const { cw, ch } = cellOf(w, h)
  const cells = await Promise.all([0, 1, 2, 3].map((i) => paintIn(d, base, mask, cw, ch, d.hash(`${seed}:${i}`), 1, 2)))
  return grid(d, cells, cw, ch)
}

/** Upscale subtle (sharper) or creative (sharper, livelier colours): twice the size, long side at most 2048. */
export async function upscaleHd(d: DemoDrawing, base: Buffer, creative: boolean): Promise<Buffer> {
  const { w, h } = await sizeOf(base)
  const scale = Math.min(2, HD_LONG / Math.max(w, h))
  const bw = Math.round(w * scale)
  const bh = Math.round(h * scale)
  let img = sharp(base)
    .resize(bw, bh, { kernel: 'lanczos3' })
    .sharpen({ sigma: creative ? 1.6 : 0.8 })
  if (creative) img = img.modulate({ saturation: 1.3, brightness: 1.04 })
  return d.mark(await img.png().toBuffer(), bw, bh)
}

/** Face swap: the middle of the face picture, in a soft circle, on the upper middle of the target. */
export async function swapFace(d: DemoDrawing, source: Uint8Array, target: Uint8Array): Promise<Buffer> {
  const { w, h } = await sizeOf(target)
  const r = Math.max(8, Math.round(Math.min(w, h) * 0.18))
  const face = await sharp(source)
    .resize(r * 2, r * 2, { fit: 'cover', position: 'attention' })
    .composite([
      {
        input: Buffer.from(
          `<svg xmlns="http://www.w3.org/2000/svg" width="${r * 2}" height="${r * 2}"><defs><radialGradient id="f"><stop offset="0.75" stop-color="#fff"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><circle cx="${r}" cy="${r}" r="${r}" fill="url(#f)"/></svg>`
        ),
        blend: 'dest-in'
      }
    ])
    .png()
    .toBuffer()
  const out = await sharp(target)
    .composite([{ input: face, left: Math.round(w / 2 - r), top: Math.round(h * 0.3 - r) }])
    .png()
    .toBuffer()
  return d.mark(out, w, h)
}

/** img2img / inpaint: new content blended in by the denoising strength, only inside the mask when there is one. */
export async function img2img(
  d: DemoDrawing,
  image: Uint8Array,
  mask: Uint8Array | null,
  p: { width: number; height: number; denoisingStrength: number; maskBlur: number },
  seed: number
): Promise<Buffer> {
  const out = await paintIn(d, Buffer.from(image), mask, p.width, p.height, seed, p.denoisingStrength, mask ? p.maskBlur : 0)
  return d.mark(out, p.width, p.height)
}

const FILLER = new Set([
  'a',
  'an',
  'the',
  'of',
  'with',
  'and',
  'in',
  'on',
  'very',
  'highly',
  'extremely',
  'beautiful',
  'detailed',
  'masterpiece',
  'best',
  'quality'
])

/** Shorten: five shorter prompts, from the essential words only to most of them (parameters kept). */
export function shorten(prompt: string): string[] {
  const paramAt = prompt.search(/(^|\s)--[a-z]/i)
  const text = (paramAt >= 0 ? prompt.slice(0, paramAt) : prompt).trim()
  const params = paramAt >= 0 ? ` ${prompt.slice(paramAt).trim()}` : ''
  const phrases = text
    .split(/[,，、;；]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
  const essential = phrases.map((p) =>
    p
      .split(/\s+/)
      .filter((word) => !FILLER.has(word.toLowerCase()))
      .join(' ')
  )
  const out: string[] = []
  const add = (s: string) => {
    const v = `${s.trim()}${params}`.trim()
    if (s.trim() && !out.includes(v)) out.push(v)
  }
  add(essential.slice(0, 1).join(', '))
  add(essential.slice(0, 2).join(', '))
  add(essential.slice(0, Math.max(1, Math.ceil(essential.length / 2))).join(', '))
  add(essential.filter((p) => p !== '').join(', '))
  add(phrases.slice(0, Math.max(1, phrases.length - 1)).join(', '))
  return out.slice(0, 5)
}
