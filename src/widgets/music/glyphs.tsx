import { isWebUrl } from './actions'

/** The player's line glyphs (24×24, currentColor): drawn here so no icon font is ever loaded. */
const d = {
  play: 'M8 5.5v13l11-6.5z',
  pause: 'M8 5h3v14H8z M13 5h3v14h-3z',
  next: 'M6 6l9 6-9 6z M18 6v12',
  previous: 'M18 6l-9 6 9 6z M6 6v12',
  download: 'M12 4v11 M7 10l5 5 5-5 M5 20h14',
  lyrics: 'M4 6h16 M4 10h16 M4 14h10 M4 18h7',
  trash: 'M4 7h16 M9 7V4h6v3 M6 7l1 13h10l1-13',
  close: 'M6 6l12 12 M18 6L6 18',
  note: 'M9 18V5l11-2v13 M9 18a3 3 0 11-6 0 3 3 0 016 0z M20 16a3 3 0 11-6 0 3 3 0 016 0z',
  spark: 'M12 3l1.8 5.2L19 10l-5.2 1.8L12 17l-1.8-5.2L5 10l5.2-1.8z',
  more: 'M7 12a1.6 1.6 0 1 1-3.2 0a1.6 1.6 0 1 1 3.2 0z M13.6 12a1.6 1.6 0 1 1-3.2 0a1.6 1.6 0 1 1 3.2 0z M20.2 12a1.6 1.6 0 1 1-3.2 0a1.6 1.6 0 1 1 3.2 0z',
  share: 'M8 12h8 M12 8l4 4-4 4 M4 5v14h16'
} as const

export type GlyphName = keyof typeof d

export function Glyph({ name, className = 'size-5', filled }: { name: GlyphName; className?: string; filled?: boolean }) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={className}
      fill={filled ? 'currentColor' : 'none'}
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={d[name]} />
    </svg>
  )
}

/** A square cover: the song's image, or a gradient with a note while it has none. */
export function Cover({ url, className }: { url: string | null; className: string }) {
  if (isWebUrl(url)) return <img src={url} alt="" loading="lazy" className={`${className} object-cover bg-raised`} />
  return (
    <span aria-hidden="true" className={`${className} grid place-items-center bg-gradient-to-br from-primary/40 to-raised text-primary`}>
      <Glyph name="note" className="w-1/2 h-1/2" />
    </span>
  )
}

/** The demo composer's songs say so. */
export function DemoBadge() {
  return (
    <span title="离线演示生成的示例歌曲，并非 Suno 创作" className="shrink-0 px-1.5 py-px rounded border border-primary/50 text-primary text-[11px] leading-4">
      示例
    </span>
  )
}

export function IconButton({
  label,
  glyph,
  onClick,
  disabled,
  className = 'size-9',
  filled,
  pressed,
  expanded
}: {
  label: string
  glyph: GlyphName
  onClick: () => void
  disabled?: boolean
  className?: string
  filled?: boolean
  pressed?: boolean
  expanded?: boolean
}) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      aria-disabled={disabled || undefined}
      aria-pressed={pressed}
      aria-expanded={expanded}
      onClick={() => {
        if (!disabled) onClick()
      }}
      className={`${className} shrink-0 grid place-items-center rounded-full text-muted hover:text-ink hover:bg-raised aria-disabled:opacity-40 aria-disabled:hover:bg-transparent aria-pressed:text-primary aria-expanded:text-primary`}
    >
      <Glyph name={glyph} filled={filled} className="size-5" />
    </button>
  )
}
