import { describe, expect, it } from 'vitest'
import { currentLine, timeLyrics } from './lyrics'

describe('lyrics timed by line', () => {
  const lyric = '[Verse]\n一二三四\n五六七八九十\n\n[Chorus]\n啦啦'
  it('times sung lines by their length between the intro and the outro; headings and blanks untimed', () => {
    const lines = timeLyrics(lyric, 100)
    expect(lines.map((l) => [l.text, l.section, l.start])).toEqual(
      [
        ['[Verse]', true, null],
        ['一二三四', false, 6],
        ['五六七八九十', false, 6 + (4 / 14) * 88],
        ['', false, null],
        ['[Chorus]', true, null],
        ['啦啦', false, 6 + (10 / 14) * 88]
      ].map(([t, s, n]) => [t, s, typeof n === 'number' ? Math.round(n * 100) / 100 : n])
    )
  })
  it('follows the time: none before the first line, then the last line started', () => {
    const lines = timeLyrics(lyric, 100)
    expect(currentLine(lines, 0)).toBe(-1)
    expect(currentLine(lines, 6)).toBe(1)
    expect(currentLine(lines, 40)).toBe(2)
    expect(currentLine(lines, 99)).toBe(5)
  })
  it('leaves every line untimed while the duration is unknown', () => {
    expect(timeLyrics(lyric, null).every((l) => l.start === null)).toBe(true)
    expect(currentLine(timeLyrics(lyric, null), 10)).toBe(-1)
  })
})
