import { AdminError } from './commands.js'

/** What lingxi-admin needs to talk to a running server (admin/remote.ts). */
export interface RemoteIo {
  out(line: string): void
  err(line: string): void
  env: Record<string, string | undefined>
  /** Tests pass the app's fetch. */
  fetch?: typeof fetch
}

interface Envelope<T> {
  code: number
  message: string
  data: T
}

/** POSTs to one operator route and answers its data. */
export type Call = <T>(path: string, body: object) => Promise<T>

/**
 * The operator API's caller. A refusal is an AdminError with the server's (Chinese) message: exit
 * code 2 for bad input (HTTP 400: the command line can be fixed), 1 for the rest.
 */
export function remoteCaller(io: RemoteIo, target: { url: string; token: string }): Call {
  return async <T>(path: string, body: object): Promise<T> => {
    let res: Response
    try {
      res = await (io.fetch ?? fetch)(`${target.url}/api/admin/${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${target.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body)
      })
    } catch (error) {
      throw new AdminError(`Could not reach the server at ${target.url}: ${(error as Error).message}`)
    }
    const answer = (await res.json().catch(() => null)) as Envelope<T> | null
    if (!answer || typeof answer.code !== 'number') throw new AdminError(`The server at ${target.url} did not answer as Lingxi (HTTP ${res.status})`)
    if (answer.code !== 2000) throw new AdminError(`The server refused: ${answer.message} (${answer.code})`, res.status === 400 ? 2 : 1)
    return answer.data
  }
}
