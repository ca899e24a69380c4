import { t } from './i18n'

/**
 * The chat's own line icons (24×24, currentColor). Not ui/icons: its table holds every tool's
 * icons, a chunk the bubble would download for one of them.
 */
const paths = {
  chat: 'M4 5h16v11H8l-4 4V5z M8 9h8 M8 12h5',
  plus: 'M12 5v14 M5 12h14',
  pin: 'M9 4h6 M10 4l-.5 6L6 14h12l-3.5-4L14 4 M12 14v6',
  edit: 'M4 20h4L19 9l-4-4L4 16z M14 6l4 4',
  trash: 'M4 7h16 M9 7V4h6v3 M6 7l1 13h10l1-13',
  eraser: 'M8 20h12 M4.5 15.5l9-9 5 5-9 9H8z M9 11l5 5',
  sliders: 'M4 7h9 M17 7h3 M4 17h3 M11 17h9 M15 5v4 M9 15v4',
  list: 'M4 6h16 M4 12h16 M4 18h10',
  down: 'M12 5v14 M6 13l6 6 6-6',
  send: 'M12 19V5 M6 11l6-6 6 6',
  stop: 'M8 8h8v8H8z',
  retry: 'M20 12a8 8 0 11-2.4-5.7 M20 4v5h-5',
  copy: 'M9 9h11v11H9z M5 15H4V4h11v1',
  close: 'M6 6l12 12 M18 6L6 18',
  chevron: 'M6 9l6 6 6-6',
  share: 'M12 15V4 M8 8l4-4 4 4 M5 12v8h14v-8',
  text: 'M5 6h14 M5 11h14 M5 16h9',
  flag: 'M6 21V4 M6 4h11l-2 4 2 4H6'
}

export type GlyphName = keyof typeof paths

export function Glyph({ name, className = 'size-4' }: { name: GlyphName; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={className}
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={paths[name]} />
    </svg>
  )
}

/** Lingxi's mark, as ui/icons draws it: copied here so the open panel needs no chunk of shared icons. */
export function Logo({ className = 'size-8' }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true">
      <rect width="32" height="32" rx="9" fill="var(--color-primary)" />
      <path d="M9 23c4-1 7-4.5 8.5-9.5L20 7l1.5 7c.8 3.8-1.5 7.8-5.5 9H9z" fill="var(--color-primary-ink)" />
      <circle cx="21" cy="22" r="2" fill="var(--color-primary-ink)" />
    </svg>
  )
}

/** A square icon button with an accessible name (and the same text as a tooltip), in the chat's language (i18n.ts). */
export function IconButton({
  icon,
  label,
  onClick,
  className = '',
  ...rest
}: { icon: GlyphName; label: string; onClick: () => void; className?: string } & Record<string, unknown>) {
  label = t(label)
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      className={`size-8 shrink-0 grid place-items-center rounded-lg text-muted hover:text-ink hover:bg-raised disabled:opacity-40 ${className}`}
      {...rest}
    >
      <Glyph name={icon} />
    </button>
  )
}

/** A role's avatar: an emoji, or an image when it is a URL. */
export function RoleAvatar({ avatar, className = 'size-7 text-base' }: { avatar: string | null | undefined; className?: string }) {
  if (!avatar) return null
  if (/^(https?:)?\//.test(avatar)) return <img src={avatar} alt="" className={`${className} shrink-0 rounded-full object-cover`} />
  return (
    <span aria-hidden="true" className={`${className} shrink-0 grid place-items-center rounded-full bg-raised leading-none`}>
      {avatar}
    </span>
  )
}
