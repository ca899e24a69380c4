/** Line icons (24×24, currentColor), drawn here so no icon font or CDN is ever loaded. */
const paths: Record<string, string> = {
  chat: 'M4 5h16v11H8l-4 4V5z M8 9h8 M8 12h5',
  painting:
    'M12 3a9 9 0 100 18c1 0 1.5-.8 1.5-1.5 0-1.2-1-1.3-1-2.5 0-.8.7-1.5 1.5-1.5H16a5 5 0 005-5c0-4.1-4-7.5-9-7.5z M7.5 11.5h.01 M10 7.5h.01 M15 7.5h.01',
  music: 'M9 18V5l11-2v13 M9 18a3 3 0 11-6 0 3 3 0 016 0z M20 16a3 3 0 11-6 0 3 3 0 016 0z',
  hot: 'M12 21c4 0 7-2.8 7-7 0-3-2-5.5-3.5-7-.3 2-1.5 3-2.5 3.5C13 7 11.5 4.5 9 3c.5 3-1.5 5-3 7a7.4 7.4 0 00-1 4c0 4.2 3 7 7 7z',
  gallery: 'M4 4h16v16H4z M4 15l4.5-4.5 4 4L16 11l4 4 M9 8.5h.01',
  role: 'M12 12a4 4 0 100-8 4 4 0 000 8z M4 20c1.2-3.5 4.3-5 8-5s6.8 1.5 8 5',
  image: 'M12 16V4 M7 9l5-5 5 5 M4 15v5h16v-5',
  orders: 'M7 4h10l1 3v13H6V7l1-3z M9 11h6 M9 15h6',
  quality: 'M12 3l2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1-4.4-4.3 6.1-.9L12 3z',
  user: 'M12 12a4 4 0 100-8 4 4 0 000 8z M4 21c1-4 4-6 8-6s7 2 8 6',
  center: 'M4 6h16 M4 12h16 M4 18h10',
  logout: 'M15 4h4v16h-4 M10 8l-4 4 4 4 M6 12h10',
  phone: 'M7 3h10v18H7z M11 18h2',
  copy: 'M9 9h11v11H9z M5 15H4V4h11v1',
  chevron: 'M6 9l6 6 6-6',
  wechat:
    'M9 4C5 4 2 6.6 2 9.8c0 1.8 1 3.4 2.6 4.5L4 16.5l2.6-1.3c.8.2 1.6.4 2.4.4 M22 14.2C22 11.3 19.3 9 16 9s-6 2.3-6 5.2 2.7 5.2 6 5.2c.7 0 1.3-.1 2-.3l2.3 1.2-.6-2c1.4-1 2.3-2.4 2.3-4.1z',
  search: 'M11 18a7 7 0 100-14 7 7 0 000 14z M20 20l-4-4',
  spark: 'M12 3v4 M12 17v4 M3 12h4 M17 12h4 M6 6l2.5 2.5 M15.5 15.5L18 18 M6 18l2.5-2.5 M15.5 8.5L18 6',
  home: 'M4 11l8-7 8 7v9h-5v-6H9v6H4z'
}

export function Icon({ name, className = 'size-5' }: { name: string; className?: string }) {
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
      <path d={paths[name] ?? paths.spark} />
    </svg>
  )
}

/** Lingxi's mark: a stylised rhinoceros-horn spark in the primary colour. */
export function Logo({ className = 'size-8' }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true">
      <rect width="32" height="32" rx="9" fill="var(--color-primary)" />
      <path d="M9 23c4-1 7-4.5 8.5-9.5L20 7l1.5 7c.8 3.8-1.5 7.8-5.5 9H9z" fill="var(--color-primary-ink)" />
      <circle cx="21" cy="22" r="2" fill="var(--color-primary-ink)" />
    </svg>
  )
}

export function Spinner({ label = '加载中' }: { label?: string }) {
  return (
    <div role="status" className="grid place-items-center gap-3 py-16 text-muted">
      <div className="lx-spinner" />
      <span className="text-sm">{label}…</span>
    </div>
  )
}
