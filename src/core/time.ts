// Apart from format.ts, which every element loads: only the tools that show times carry this.

const pad = (n: number) => String(n).padStart(2, '0')

/** Epoch ms → 'YYYY-MM-DD HH:mm' in local time. */
export function formatTime(ms: number): string {
  const d = new Date(ms)
  if (Number.isNaN(d.getTime())) return ''
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}
