import type { EdgeStep } from './edge.js'
import { ApiError } from '../errors.js'

/** Longer paths are refused: the longest real one (a signed upload of a 300-character key) is far shorter. */
export const MAX_PATH_LENGTH = 2048

const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/
// C0 controls and DEL: never part of an id, key or file name. U+0000 also cannot be stored in PostgreSQL text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it looks for
const CONTROL = /[\u0000-\u001f\u007f]/

/** `%` without two hex digits after it, or escapes that are not UTF-8 (`%FF`, `%E0%A4%A`): undefined. */
function decodeSegment(segment: string): string | undefined {
  if (BAD_ESCAPE.test(segment)) return undefined
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/**
 * Every path parameter (`:requestId`, `:taskId`, `/files/*`, the signed upload key, the site's file
 * paths) comes out of the request path, so the path is checked once, here, before any route runs:
 * malformed percent-encoding, a control character (`%00` above all), a `..` segment hidden in an
 * escape (`..%2F`) or an overlong path answer 40000001 (HTTP 400) and change nothing, instead of
 * reaching a query or the file system as a string the routes never expected.
 */
export const checkPathStep: EdgeStep = {
  before(c) {
    // The URL as received, still escaped (the runtime already resolved literal `.` and `..` segments).
    const url = c.req.url
    const start = url.indexOf('/', url.indexOf('://') + 3)
    let end = url.length
    for (const mark of ['?', '#']) {
      const at = url.indexOf(mark, start)
      if (at >= 0 && at < end) end = at
    }
    const path = start < 0 ? '/' : url.slice(start, end)
    if (path.length > MAX_PATH_LENGTH) throw new ApiError(40000001, `请求路径过长（最多 ${MAX_PATH_LENGTH} 个字符）`)
    // Without an escape the path holds only what a URL may hold as it is: nothing to decode.
    if (path.includes('%')) {
      for (const segment of path.split('/')) {
        if (!segment.includes('%')) continue
        const decoded = decodeSegment(segment)
        if (decoded === undefined) throw new ApiError(40000001, '请求路径的百分号编码不正确')
        if (CONTROL.test(decoded)) throw new ApiError(40000001, '请求路径不能包含控制字符（如 %00）')
        if (decoded.split(/[/\\]/).some((part) => part === '..')) throw new ApiError(40000001, '请求路径不能包含 ..')
      }
    }
    return undefined
  }
}
