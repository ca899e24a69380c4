import { ConfigError } from './config.js'
import { DataDirBusyError } from './db/data-dir-lock.js'
import { startServer } from './server.js'
import { onShutdownSignals } from './shutdown.js'

function explain(error: unknown): string {
  if (error instanceof ConfigError) return error.message
  if (error instanceof DataDirBusyError) {
    return [
      `The embedded database is in use: ${error.message}.`,
      'PGlite allows one process per data directory. Stop that process, or point DATA_DIR elsewhere.'
    ].join('\n')
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'EADDRINUSE') return `The port is already in use: ${(error as Error).message}. Set PORT to a free port.`
  if (code === 'EACCES') return `Not allowed to listen: ${(error as Error).message}.`
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}

try {
  const running = await startServer()
  // SIGTERM / SIGINT: stop taking requests, finish those in flight, end generations, close within 10 s.
  onShutdownSignals(running)
} catch (error) {
  console.error(`Lingxi could not start.\n${explain(error)}`)
  process.exit(1)
}
