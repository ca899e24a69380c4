/**
 * The `lingxi(...)` commands that need Lingxi's core, loaded by the loader on the first such call
 * (and for such calls queued before it arrived). `on`, `open`, `close` and `load` run in the
 * loader itself. Unknown commands are reported on the console, never thrown at the page.
 */
import { logout, startSession } from '../core/auth'
import { currentSession, openLogin } from '../core/stores'

type Handler = (...args: unknown[]) => unknown

const handlers: Record<string, Handler> = {
  /** Opens the login dialog. */
  login: () => openLogin(),
  /** Logs out every Lingxi element on the page. */
  logout: () => logout(),
  /** Resolves who is logged in once the session is known (a restored one confirmed by the server), or null. */
  session: async () => {
    await startSession()
    return currentSession()
  }
}

export function run([command, ...args]: [string, ...unknown[]]): unknown {
  startSession()
  const handler = handlers[command]
  if (!handler) {
    console.warn(`[lingxi] unknown command: ${String(command)}`)
    return undefined
  }
  return handler(...args)
}
