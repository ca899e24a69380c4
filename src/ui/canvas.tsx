import type { ReactNode } from 'react'

/**
 * A tool element's root (docs/decisions/0018-themes.md, "The element's background"): it paints
 * the theme's background, `--lingxi-bg`, over the element's whole height, so every heading and
 * line a tool draws outside its cards (本次创作, 热点资讯, a logged-out prompt…) is on a background
 * of its own theme whatever the page behind it is: dark text on a dark partner page, light on a
 * white one, never. `--lingxi-bg: transparent` shows the page instead (the partner then picks the
 * theme that reads on it). `part="base"` takes the partner's padding and corners.
 */
export function Canvas({ children }: { children: ReactNode }) {
  return (
    <div part="base" className="min-h-full bg-bg">
      {children}
    </div>
  )
}
