// The launcher's text colour on a page-chosen `color` (bubble.tsx): loaded only when one is set.

/** Dark or light ink for text on `rgb(...)`, by relative luminance; undefined when unknown. */
export function inkOn(rgb: string): string | undefined {
  const m = /rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)/.exec(rgb)
  if (!m) return undefined
  const [r, g, b] = [m[1], m[2], m[3]].map((v) => {
    const c = Number(v) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.4 ? '#17181c' : '#ffffff'
}
