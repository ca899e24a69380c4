/**
 * Splits a text/event-stream into the `data` of each event (fields other than data are not
 * used by chat completions; comment lines, e.g. keep-alives, are skipped).
 *
 * Lines end with CRLF, LF or a bare CR (the SSE spec allows all three). A CR is taken as a line
 * end as soon as it arrives, so an event ended by CRs is not held back until more text comes;
 * an LF right after it (possibly at the start of the next chunk) belongs to the same line end.
 */
export function createSseDataParser() {
  let buffer = ''
  let data: string[] = []
  /** The last text ended with a CR: an LF at the start of the next one is part of that line end. */
  let afterCr = false
  return {
    /** Feeds decoded text; returns the data of every event completed by it. */
    push(text: string): string[] {
      // An empty text (a chunk that ended inside a multi-byte character) settles nothing.
      if (afterCr && text !== '') {
        if (text.startsWith('\n')) text = text.slice(1)
        afterCr = false
      }
      buffer += text
      const out: string[] = []
      let start = 0
      // The next LF and CR at or after start (-1: none left); each is searched for only once it is passed.
      let lf = -2
      let cr = -2
      for (;;) {
        if (lf !== -1 && lf < start) lf = buffer.indexOf('\n', start)
        if (cr !== -1 && cr < start) cr = buffer.indexOf('\r', start)
        let end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr)
        if (end < 0) break
        const line = buffer.slice(start, end)
        if (buffer[end] === '\r') {
          if (end + 1 === buffer.length) afterCr = true
          else if (buffer[end + 1] === '\n') end++
        }
        start = end + 1
        if (line === '') {
          if (data.length > 0) out.push(data.join('\n'))
          data = []
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line[5] === ' ' ? 6 : 5))
        } else if (line === 'data') {
          // A field name alone has an empty value.
          data.push('')
        }
        // ":" comments, "event:", "id:", "retry:" are ignored.
      }
      buffer = buffer.slice(start)
      return out
    }
  }
}
