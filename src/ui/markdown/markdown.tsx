import { useEffect, useRef, useState } from 'react'
import type { MarkdownRenderer } from './renderer'

let loading: Promise<typeof import('./renderer')> | undefined

/** Starts loading the renderer chunk (e.g. when a chat opens, before the first answer arrives). */
export function preloadMarkdown(): Promise<typeof import('./renderer')> {
  loading ??= import('./renderer').catch((error: unknown) => {
    loading = undefined // a later mount may retry a failed chunk
    throw error
  })
  return loading
}

export interface MarkdownProps {
  /** The markdown source: the whole answer so far. */
  text: string
  /** True while the answer is still arriving: a cursor blinks at its end, open blocks stay plain. */
  streaming: boolean
  className?: string
}

/**
 * An assistant message rendered as markdown. The renderer (parser, incremental renderer, styles)
 * is a separate chunk; until it has loaded the raw text shows as it is, so nothing is ever blank.
 */
export function Markdown({ text, streaming, className }: MarkdownProps) {
  const ref = useRef<HTMLDivElement>(null)
  const renderer = useRef<MarkdownRenderer | null>(null)
  const [ready, setReady] = useState(false)
  const latest = useRef({ text, streaming })
  latest.current = { text, streaming }

  useEffect(() => {
    let alive = true
    preloadMarkdown().then(
      (m) => {
        if (!alive || !ref.current) return
        const r = m.createRenderer(ref.current)
        renderer.current = r
        r.update(latest.current.text, !latest.current.streaming)
        setReady(true)
      },
      () => {}
    )
    return () => {
      alive = false
      renderer.current?.destroy()
      renderer.current = null
    }
  }, [])

  // The renderer, once made, starts from the latest text itself (above).
  useEffect(() => {
    renderer.current?.update(text, !streaming)
  }, [text, streaming])

  return (
    <div className={className}>
      <div ref={ref} />
      {!ready && (
        <div style={{ whiteSpace: 'pre-wrap', overflowWrap: 'break-word' }}>
          {text}
          {streaming && (
            <span aria-hidden="true" style={{ color: 'var(--color-primary, #fbab00)' }}>
              ▍
            </span>
          )}
        </div>
      )}
    </div>
  )
}
