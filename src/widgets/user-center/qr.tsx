import { useEffect, useState } from 'react'

/**
 * A QR code drawn here from its text (uqr, loaded only when a code is shown — never a foreign QR
 * service): one SVG path of the dark modules on a white quiet zone, readable in either theme.
 */
export function QrCode({ text, label, className = 'size-48' }: { text: string; label: string; className?: string }) {
  const [shape, setShape] = useState<{ size: number; d: string } | null>(null)
  useEffect(() => {
    let live = true
    import('uqr')
      .then(({ encode }) => {
        const { data, size } = encode(text, { ecc: 'M', border: 2 })
        let d = ''
        data.forEach((row, y) => {
          row.forEach((dark, x) => {
            if (dark) d += `M${x} ${y}h1v1h-1z`
          })
        })
        if (live) setShape({ size, d })
      })
      .catch(() => live && setShape(null))
    return () => {
      live = false
    }
  }, [text])
  if (!shape) return <div role="img" aria-label={label} aria-busy="true" className={`${className} rounded-lg bg-white/90 animate-pulse`} />
  return (
    <svg
      role="img"
      aria-label={label}
      data-testid="pay-qr"
      viewBox={`0 0 ${shape.size} ${shape.size}`}
      shapeRendering="crispEdges"
      className={`${className} rounded-lg`}
    >
      <rect width={shape.size} height={shape.size} fill="#fff" />
      <path d={shape.d} fill="#000" />
    </svg>
  )
}
