import sharp from 'sharp'

/** A black PNG of w×h with a white rectangle (the area to redraw), as a data URL. */
export async function maskDataUrl(w: number, h: number, rect = { left: 0.25, top: 0.25, width: 0.5, height: 0.5 }): Promise<string> {
  const black = sharp({ create: { width: w, height: h, channels: 3, background: '#000000' } })
  if (rect.width === 0) return `data:image/png;base64,${(await black.png().toBuffer()).toString('base64')}`
  const png = await black
    .composite([
      {
        input: await sharp({
          create: { width: Math.round(w * rect.width), height: Math.round(h * rect.height), channels: 3, background: '#ffffff' }
        })
          .png()
          .toBuffer(),
        left: Math.round(w * rect.left),
        top: Math.round(h * rect.top)
      }
    ])
    .png()
    .toBuffer()
  return `data:image/png;base64,${png.toString('base64')}`
}
