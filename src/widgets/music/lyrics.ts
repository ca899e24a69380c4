// The lyrics view's timing: suno-api gives lyrics without times, so each sung line gets a share of
// the song by its length, between a short intro and outro. Section markers ([Verse], [Chorus]) are
// headings, never timed.

export interface LyricLine {
  text: string
  /** A section marker ([Verse]): shown as a heading, not sung. */
  section: boolean
  /** Seconds the line starts at; null for headings and blank lines. */
  start: number | null
}

const SECTION = /^\s*[[【(（].*[\]】)）]\s*$/

/** Intro and outro, as shares of the song, that no line is sung in. */
const INTRO = 0.06
const OUTRO = 0.06

/** The lines of a lyric with their start times over `duration` seconds (none when it is unknown). */
export function timeLyrics(lyric: string, duration: number | null): LyricLine[] {
  const lines = lyric.replace(/\r\n?/g, '\n').split('\n')
  const sung = lines.filter((l) => l.trim() !== '' && !SECTION.test(l))
  const weight = (l: string) => Math.max(4, [...l.trim()].length)
  const total = sung.reduce((n, l) => n + weight(l), 0)
  const usable = duration && duration > 0 ? duration * (1 - INTRO - OUTRO) : 0
  let at = duration && duration > 0 ? duration * INTRO : 0
  return lines.map((text) => {
    const blank = text.trim() === ''
    const section = !blank && SECTION.test(text)
    if (blank || section || !usable || total === 0) return { text: text.trim(), section, start: null }
    const start = at
    at += (weight(text) / total) * usable
    return { text: text.trim(), section: false, start: Math.round(start * 100) / 100 }
  })
}

/** The index of the line sung at `time` (the last timed line started by then), or -1 before the first. */
export function currentLine(lines: LyricLine[], time: number): number {
  let found = -1
  for (let i = 0; i < lines.length; i++) {
    const start = lines[i]!.start
    if (start === null) continue
    if (start > time) break
    found = i
  }
  return found
}
