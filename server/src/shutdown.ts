/**
 * Graceful shutdown on SIGTERM / SIGINT: the server stops taking requests, lets the ones in
 * flight finish, ends running generations as interrput (saved; with Redis their streams get their
 * final event, so clients reconnect to another node and replay), then closes Redis and the
 * database. If that takes longer than `timeoutMs` (10 s), or a second signal comes, the process
 * exits with code 1 anyway.
 */
export interface Closable {
  close(): Promise<void>
}

export interface ShutdownOptions {
  timeoutMs?: number
  signals?: readonly NodeJS.Signals[]
  log?: (line: string) => void
  exit?: (code: number) => void
}

export const SHUTDOWN_TIMEOUT_MS = 10_000

export function onShutdownSignals(running: Closable, options: ShutdownOptions = {}): { stop(signal: string): Promise<number> } {
  const timeoutMs = options.timeoutMs ?? SHUTDOWN_TIMEOUT_MS
  const log = options.log ?? ((line: string) => console.error(line))
  const exit = options.exit ?? ((code: number) => process.exit(code))
  let stopping: Promise<number> | undefined

  const stop = (signal: string): Promise<number> => {
    if (stopping) {
      log(`${signal} again: exiting now`)
      exit(1)
      return stopping
    }
    const started = Date.now()
    log(`${signal}: shutting down (at most ${Math.round(timeoutMs / 1000)} s)`)
    const force = setTimeout(() => {
      log(`shutdown took longer than ${timeoutMs} ms: exiting`)
      exit(1)
    }, timeoutMs)
    force.unref()
    stopping = running.close().then(
      () => {
        clearTimeout(force)
        log(`stopped cleanly in ${Date.now() - started} ms`)
        exit(0)
        return 0
      },
      (error: unknown) => {
        clearTimeout(force)
        log(`shutdown after ${signal} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
        exit(1)
        return 1
      }
    )
    return stopping
  }
  for (const signal of options.signals ?? (['SIGTERM', 'SIGINT'] as const)) process.on(signal, () => void stop(signal))
  return { stop }
}
