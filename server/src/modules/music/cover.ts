import sharp from 'sharp'
import { random } from './compose.js'

/** A 512×512 PNG cover for a demo song: a gradient and rings from the seed, labelled DEMO. */
export async function demoCover(seed: number): Promise<Uint8Array> {
  const rnd = random(seed ^ 0x51ed270b)
  const hue = Math.floor(rnd() * 360)
  const hue2 = (hue + 40 + Math.floor(rnd() * 80)) % 360
  const rings = Array.from({ length: 5 }, (_, i) => {
    const cx = Math.round(96 + rnd() * 320)
    const cy = Math.round(96 + rnd() * 260)
    const r = Math.round(30 + rnd() * 120)
    const opacity = (0.12 + rnd() * 0.25).toFixed(2)
    return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="none" stroke="#fff" stroke-width="${2 + i * 2}" opacity="${opacity}"/>`
  }).join('')
  const bars = Array.from({ length: 24 }, (_, i) => {
    const h = Math.round(10 + rnd() * 60)
    return `<rect x="${64 + i * 16}" y="${420 - h}" width="10" height="${h}" rx="3" fill="#fff" opacity="0.55"/>`
  }).join('')
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" viewBox="0 0 512 512">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="hsl(${hue},70%,55%)"/><stop offset="1" stop-color="hsl(${hue2},65%,35%)"/>
  </linearGradient></defs>
  <rect width="512" height="512" fill="url(#g)"/>${rings}${bars}
  <rect x="24" y="24" width="112" height="40" rx="20" fill="#000" opacity="0.35"/>
  <text x="80" y="51" font-family="DejaVu Sans, Arial, sans-serif" font-size="20" font-weight="700" fill="#fff" text-anchor="middle">DEMO</text>
  <text x="256" y="470" font-family="DejaVu Sans, Arial, sans-serif" font-size="22" fill="#fff" opacity="0.85" text-anchor="middle" letter-spacing="6">LINGXI MUSIC</text>
</svg>`
  const png = await sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer()
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength)
}
