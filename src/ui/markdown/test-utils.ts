import './test-dom'
import { createRenderer, type MarkdownRenderer, type RendererOptions } from './renderer'

/** A renderer in a fresh open shadow root, as the chat element gives it. */
export function mount(options?: RendererOptions): {
  host: HTMLElement
  shadow: ShadowRoot
  container: HTMLElement
  root: HTMLElement
  renderer: MarkdownRenderer
} {
  const host = document.createElement('div')
  document.body.append(host)
  const shadow = host.attachShadow({ mode: 'open' })
  const container = document.createElement('div')
  shadow.append(container)
  const renderer = createRenderer(container, options)
  const root = container.querySelector<HTMLElement>('.lx-md')!
  return { host, shadow, container, root, renderer }
}

/** The whole text at once, finished. */
export function renderOnce(text: string, options?: RendererOptions): HTMLElement {
  const { root, renderer } = mount(options)
  renderer.update(text, true)
  return root
}

/** Feeds `text` in deltas of `step` characters, calling `each` after every update, then finishes. */
export function stream(renderer: MarkdownRenderer, text: string, step: number, each?: (prefix: string) => void): void {
  for (let i = step; i < text.length + step; i += step) {
    const prefix = text.slice(0, Math.min(i, text.length))
    renderer.update(prefix, false)
    each?.(prefix)
  }
  renderer.update(text, true)
}

/** Lets pending dynamic imports and their follow-ups settle. */
export async function settle(ms = 30): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, ms))
}
