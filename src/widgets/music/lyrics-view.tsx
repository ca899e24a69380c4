import { useEffect, useMemo, useRef } from 'react'
import { currentLine, timeLyrics } from './lyrics'

/**
 * The lyrics of the playing song, following it: each sung line is timed by its length (lyrics.ts),
 * the current one highlighted and scrolled into the middle of the panel. The panel is not a live
 * region (a screen reader is not read every line); the current line carries aria-current.
 */
export function LyricsView({ lyric, instrumental, duration, time }: { lyric: string; instrumental: boolean; duration: number | null; time: number }) {
  const lines = useMemo(() => timeLyrics(lyric, duration), [lyric, duration])
  const at = currentLine(lines, time)
  const box = useRef<HTMLElement>(null)
  useEffect(() => {
    const panel = box.current
    const line = panel?.querySelector<HTMLElement>(`[data-line="${at}"]`)
    if (!panel || !line) return
    // Scrolls the panel only (never the page): the line to the middle of what the panel shows.
    const offset = line.getBoundingClientRect().top - panel.getBoundingClientRect().top
    const top = panel.scrollTop + offset - panel.clientHeight / 2 + line.clientHeight / 2
    // A jump (a seek) moves at once; the next line of a playing song glides.
    const far = Math.abs(offset - panel.clientHeight / 2) > panel.clientHeight
    panel.scrollTo({ top: Math.max(0, top), behavior: far ? 'auto' : 'smooth' })
  }, [at])
  if (!lyric.trim()) {
    return (
      <p data-testid="lyrics" className="mt-3 rounded-lg bg-raised p-4 text-sm text-muted">
        {instrumental ? '纯音乐，无歌词' : '暂无歌词'}
      </p>
    )
  }
  return (
    <section
      ref={box}
      aria-label="歌词"
      aria-live="off"
      data-testid="lyrics"
      tabIndex={-1}
      className="relative mt-3 max-h-72 overflow-y-auto rounded-lg bg-raised px-4 py-6 text-sm leading-7 text-center"
    >
      {lines.map((line, i) =>
        line.text === '' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
          <div key={i} className="h-3" />
        ) : (
          <p
            // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
            key={i}
            data-line={i}
            data-testid={line.section ? undefined : 'lyric-line'}
            aria-current={i === at || undefined}
            className={
              line.section ? 'mt-2 text-xs text-muted' : i === at ? 'text-primary font-semibold text-base transition-colors' : 'text-ink/80 transition-colors'
            }
          >
            {line.text}
          </p>
        )
      )}
    </section>
  )
}
