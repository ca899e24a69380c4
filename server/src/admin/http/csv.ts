import type { Context } from 'hono'

/** One cell: quoted, and a leading = + - @ defused, since the file is opened in spreadsheets. */
export const csvCell = (value: unknown): string => {
  const text = value === null || value === undefined ? '' : String(value)
  return `"${(/^[=+\-@]/.test(text) ? `'${text}` : text).replace(/"/g, '""')}"`
}

/**
 * A CSV download of the console: UTF-8 with a byte-order mark (Excel then reads Chinese right),
 * CRLF lines, every cell through csvCell.
 */
export function csvResponse(c: Context, filename: string, header: readonly string[], rows: readonly (readonly unknown[])[]): Response {
  const lines = [header, ...rows].map((row) => row.map(csvCell).join(','))
  return c.body(`\ufeff${lines.join('\r\n')}\r\n`, 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${filename}"`
  })
}
