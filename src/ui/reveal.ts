/**
 * Brings what a submit just added into view once it is drawn (on a phone it lands below the fold):
 * `find` is asked each frame, for about a second, until it returns the element. Nothing moves when
 * the element already shows between the header and the bottom bar; smooth unless the person
 * prefers reduced motion. Give the element a scroll margin for the sticky header (`scroll-mt-20`).
 */
export function revealWhenDrawn(find: () => Element | null | undefined, frames = 60): void {
  if (typeof requestAnimationFrame === 'undefined') return
  const step = (left: number) => {
    const element = find()
    if (!element) {
      if (left > 0) requestAnimationFrame(() => step(left - 1))
      return
    }
    const { top, bottom } = element.getBoundingClientRect()
    if (top >= 64 && bottom <= innerHeight - 64) return
    const reduced = typeof matchMedia !== 'undefined' && matchMedia('(prefers-reduced-motion: reduce)').matches
    element.scrollIntoView?.({ block: 'start', behavior: reduced ? 'auto' : 'smooth' })
  }
  requestAnimationFrame(() => step(frames))
}

/** The element matching `selector` in the same document or shadow root as `near`. */
export function besides(near: Node | null | undefined, selector: string): Element | null {
  const root = near?.getRootNode() as Document | ShadowRoot | undefined
  return root?.querySelector?.(selector) ?? null
}
