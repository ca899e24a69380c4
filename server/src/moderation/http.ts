import { ModerationUnavailable } from './types.js'

/** One request to a moderation service: its answer's status and JSON body, or ModerationUnavailable. */
export async function postJson(
  provider: string,
  url: string,
  init: { headers: Record<string, string>; body: string },
  timeoutMs: number
): Promise<{ status: number; body: unknown }> {
  let status: number
  let text: string
  try {
    const res = await fetch(url, { method: 'POST', headers: init.headers, body: init.body, signal: AbortSignal.timeout(timeoutMs) })
    status = res.status
    text = await res.text()
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
    throw new ModerationUnavailable(provider, timedOut ? `no answer in ${timeoutMs} ms` : `unreachable (${String(error).slice(0, 120)})`)
  }
  try {
    return { status, body: JSON.parse(text) as unknown }
  } catch {
    throw new ModerationUnavailable(provider, `HTTP ${status}, not JSON: ${text.slice(0, 120)}`)
  }
}

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
