import { copyText } from '../../core/format'
import type { Image } from '../../core/upload'
import { imageLink, LINK_FORMATS, type LinkFormat } from './state'

/** Copy as URL, Markdown or HTML. */
export function CopyButtons({ image, compact }: { image: Image; compact?: boolean }) {
  const copy = (format: LinkFormat) => void copyText(imageLink(image, format))
  return (
    // compact (a card): the buttons share the row by their text and wrap on a narrow card; the
    // name holds the text shown (WCAG 2.5.3), never an abbreviation of it
    <fieldset aria-label="复制链接" className={`flex items-center gap-1 min-w-0 ${compact ? 'flex-wrap' : 'flex-1'}`}>
      {LINK_FORMATS.map(({ format, label }) => (
        <button
          key={format}
          type="button"
          onClick={() => copy(format)}
          aria-label={`复制 ${label} 链接`}
          title={`复制 ${label}`}
          className={`h-8 rounded-md border border-line text-muted whitespace-nowrap hover:border-primary hover:text-primary ${compact ? 'flex-auto px-1 text-[11px]' : 'px-3 text-xs'}`}
        >
          {label}
        </button>
      ))}
    </fieldset>
  )
}

export function SmallButton({ label, d, onClick, danger }: { label: string; d: string; onClick: () => void; danger?: boolean }) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      className={`size-8 shrink-0 grid place-items-center rounded-md text-muted hover:bg-raised ${danger ? 'hover:text-danger' : 'hover:text-ink'}`}
    >
      <svg
        viewBox="0 0 24 24"
        className="size-4"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
      >
        <path d={d} />
      </svg>
    </button>
  )
}
