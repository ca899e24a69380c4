/**
 * Splits a text/event-stream into the `data` of each event (fields other than data are not
 * used by chat completions; comment lines, e.g. keep-alives, are skipped).
 */
export function createSseDataParser() {
  let buffer = ''
  let data: string[] = []
  return {
    /** Feeds decoded text; returns the data of every event completed by it. */
    push(text: string): string[] {
      buffer += text
      const out: string[] = []
      let start = 0
      for (;;) {
        const nl = buffer.indexOf('\n', start)
        if (nl < 0) break
        let line = buffer.slice(start, nl)
        start = nl + 1
        if (line.endsWith('\r')) line = line.slice(0, -1)
        if (line === '') {
          if (data.length > 0) out.push(data.join('\n'))
          data = []
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line[5] === ' ' ? 6 : 5))
        }
        // ":" comments, "event:", "id:", "retry:" are ignored.
      }
      buffer = buffer.slice(start)
      return out
    }
  }
}
