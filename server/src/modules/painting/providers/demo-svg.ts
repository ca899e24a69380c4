import sharp from 'sharp'

// The demo painter's pictures (demo.ts, demo-edits.ts): SVG drawn from a prompt and a seed,
// rendered by sharp, each with the "DEMO 示例" mark.

export function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`)

/** One picture as SVG: a gradient sky, hills and shapes whose colours and places follow from prompt + seed. */
export function cellSvg(prompt: string, seed: number, w: number, h: number, mark = false, plain = false): string {
  const rand = prng(hash(prompt) ^ seed)
  const hue = Math.floor(rand() * 360)
  const hue2 = (hue + 40 + Math.floor(rand() * 120)) % 360
  const id = `g${seed.toString(36)}`
  const shapes: string[] = []
  const count = 5 + Math.floor(rand() * 5)
  for (let i = 0; i < count; i++) {
    const x = rand() * w
    const y = rand() * h * 0.7
    const r = (0.05 + rand() * 0.18) * Math.min(w, h)
    const c = `hsl(${(hue + Math.floor(rand() * 180)) % 360},${55 + Math.floor(rand() * 35)}%,${45 + Math.floor(rand() * 30)}%)`
    shapes.push(
      rand() < 0.6
        ? `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${r.toFixed(1)}" fill="${c}" fill-opacity="${(0.35 + rand() * 0.5).toFixed(2)}"/>`
        : `<rect x="${(x - r).toFixed(1)}" y="${(y - r).toFixed(1)}" width="${(r * 2).toFixed(1)}" height="${(r * 1.4).toFixed(1)}" rx="${(r * 0.2).toFixed(1)}" fill="${c}" fill-opacity="${(0.3 + rand() * 0.4).toFixed(2)}" transform="rotate(${Math.floor(rand() * 90) - 45} ${x.toFixed(1)} ${y.toFixed(1)})"/>`
    )
  }
  const hill = (base: number, amp: number, colour: string) => {
    const points: string[] = [`0,${h}`]
    for (let i = 0; i <= 8; i++) points.push(`${((w * i) / 8).toFixed(1)},${(h * base - rand() * h * amp).toFixed(1)}`)
    points.push(`${w},${h}`)
    return `<polygon points="${points.join(' ')}" fill="${colour}"/>`
  }
  const label = plain ? '' : escapeXml(Array.from(prompt.trim()).slice(0, 18).join('') || 'Lingxi')
  const font = Math.max(10, Math.round(Math.min(w, h) / 16))
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">
<defs><linearGradient id="${id}" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,72%)"/><stop offset="1" stop-color="hsl(${hue2},60%,30%)"/></linearGradient></defs>
<rect width="${w}" height="${h}" fill="url(#${id})"/>
${shapes.join('\n')}
${hill(0.78, 0.18, `hsl(${hue2},45%,22%)`)}
${hill(0.92, 0.12, `hsl(${(hue2 + 30) % 360},40%,14%)`)}
${label ? `<text x="${w / 2}" y="${h - font}" font-family="Noto Sans CJK SC, Noto Sans SC, sans-serif" font-size="${font}" fill="#ffffff" fill-opacity="0.85" text-anchor="middle">${label}</text>` : ''}
${mark ? markSvg(w, h, true) : ''}
</svg>`
}

function markSvg(w: number, h: number, inner = false): string {
  const size = Math.max(12, Math.round(Math.min(w, h) / 22))
  const bw = size * 6.2
  const bh = size * 1.7
  const body = `<rect x="${size * 0.6}" y="${size * 0.6}" width="${bw}" height="${bh}" rx="${size * 0.4}" fill="#17181c" fill-opacity="0.72"/>
<text x="${size * 0.6 + bw / 2}" y="${size * 0.6 + bh * 0.7}" font-family="Noto Sans CJK SC, Noto Sans SC, sans-serif" font-size="${size}" font-weight="700" fill="#fbab00" text-anchor="middle">DEMO 示例</text>`
  return inner ? body : `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${body}</svg>`
}

export function gridSvg(cells: string[], w: number, h: number): string {
  const cw = w / 2
  const ch = h / 2
  const nested = cells.map((svg, i) => svg.replace('<svg ', `<svg x="${(i % 2) * cw}" y="${Math.floor(i / 2) * ch}" `))
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${nested.join('')}${markSvg(w, h, true)}</svg>`
}

export async function render(svg: string): Promise<Buffer> {
  return sharp(Buffer.from(svg)).png().toBuffer()
}

export async function withMark(png: Buffer, w: number, h: number): Promise<Buffer> {
  return sharp(png)
    .composite([{ input: Buffer.from(markSvg(w, h)), left: 0, top: 0 }])
    .png()
    .toBuffer()
}
