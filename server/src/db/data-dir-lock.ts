import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'

export type LockOwner = 'server' | 'lingxi-admin'

interface LockInfo {
  pid: number
  host: string
  owner: LockOwner
  since: string
}

/** Another live process holds the embedded database. */
export class DataDirBusyError extends Error {
  constructor(
    readonly lockFile: string,
    readonly holder: LockInfo
  ) {
    super(`${lockFile} is held by ${holder.owner} (pid ${holder.pid} on ${holder.host}, since ${holder.since})`)
    this.name = 'DataDirBusyError'
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const processStart = Date.now() - process.uptime() * 1000

// Our own pid in a lock written before this process started: a container restart reused it.
function before(since: string): boolean {
  const t = Date.parse(since)
  return Number.isNaN(t) || t < processStart
}

/**
 * PGlite lets one process at a time use a data directory; a second one would corrupt it.
 * Server and CLI both take this lock file before opening it. A lock left by a dead process
 * (same host and its pid gone, or our own pid from before we started) is taken over.
 */
export function lockDataDir(dir: string, owner: LockOwner): { release(): void } {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'lingxi.lock')
  const info: LockInfo = { pid: process.pid, host: hostname(), owner, since: new Date().toISOString() }

  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number
    try {
      fd = openSync(file, 'wx')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      let holder: LockInfo | undefined
      try {
        holder = JSON.parse(readFileSync(file, 'utf8')) as LockInfo
      } catch {
        // Unreadable: a crash between create and write. Treat as stale.
      }
      const stale = !holder || (holder.host === info.host && (holder.pid === process.pid ? before(holder.since) : !alive(holder.pid)))
      if (!stale && holder) throw new DataDirBusyError(file, holder)
      try {
        unlinkSync(file)
      } catch {}
      continue
    }
    writeSync(fd, JSON.stringify(info))
    closeSync(fd)
    return {
      release() {
        try {
          const current = JSON.parse(readFileSync(file, 'utf8')) as LockInfo
          if (current.pid === info.pid && current.since === info.since) unlinkSync(file)
        } catch {}
      }
    }
  }
  throw new Error(`Could not take the lock ${file}`)
}
