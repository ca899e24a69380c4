import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'

/**
 * PGlite in a worker thread (docs/decisions/0017-pglite-worker-and-session-cache.md). PGlite is
 * Postgres compiled to WASM: every query runs on the thread that owns it, so on the main thread a
 * query stops every stream and request until it returns. Here the main thread keeps only a proxy
 * with the part of PGlite's interface that drizzle's pglite driver and the migrator use (`query`,
 * `exec`, `transaction`), plus `dumpDataDir` and `close`; the database runs in its own thread and
 * only messages cross (structured clones of SQL, parameters and rows).
 *
 * Semantics are PGlite's own: queries run under PGlite's own locks, so they are serialised and a
 * query outside a transaction waits for an open one; each SQL text is parsed once, as a named
 * statement (below). Drizzle's parsers (identity for dates and
 * intervals, so its own mapping runs) are functions and cannot cross: the worker's PGlite has the
 * same set as its own, for every query (drizzle passes them on every query anyway).
 */

interface QueryResult {
  rows: unknown[]
  fields: { name: string; dataTypeID: number }[]
  affectedRows?: number
}

interface QueryOptions {
  rowMode?: 'array' | 'object'
  parsers?: Record<number, unknown>
}

export interface PgliteTx {
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult & { rows: T[] }>
  exec(sql: string): Promise<QueryResult[]>
  rollback(): Promise<void>
  readonly closed: boolean
}

export interface PgliteWorkerClient {
  readonly waitReady: Promise<void>
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult & { rows: T[] }>
  exec(sql: string): Promise<QueryResult[]>
  transaction<T>(fn: (tx: PgliteTx) => Promise<T>): Promise<T>
  dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob>
  close(): Promise<void>
  /** The worker's thread id (tests). */
  readonly threadId: number
}

// The worker's code, as a script: it has to run both from the TypeScript sources (tests) and
// from the bundle (dist/), so it is not a file of its own. It loads PGlite from the path the main
// thread resolved.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const TYPES_IDENTITY = [1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182]
const identity = (value) => value
const parsers = Object.fromEntries(TYPES_IDENTITY.map((oid) => [oid, identity]))
const plainError = (error) => {
  const out = { message: String(error && error.message ? error.message : error), props: {} }
  if (error && typeof error === 'object') {
    for (const key of Object.keys(error)) {
      const value = error[key]
      if (value === undefined || typeof value === 'function') continue
      if (key === 'params' || key === 'queryOptions') continue
      try { structuredClone(value); out.props[key] = value } catch {}
    }
    if (error.name) out.props.name = error.name
  }
  return out
}
;(async () => {
  const { PGlite, protocol, parse: pgResults } = await import(workerData.pgliteUrl)
  // Set once, not per query: PGlite merges per-query parsers into a copy of all its parsers
  // (hundreds, with every array type) on each query, which cost more than the query itself.
  const options = { parsers }
  if (workerData.startParams) options.startParams = workerData.startParams
  if (workerData.dataDir) options.dataDir = workerData.dataDir
  if (workerData.loadDataDir) options.loadDataDir = new Blob([workerData.loadDataDir.bytes], { type: workerData.loadDataDir.type })
  // workerData lives as long as the thread: the dump (copied into the Blob) is not kept twice.
  workerData.loadDataDir = undefined
  let db
  try {
    db = new PGlite(options)
    await db.waitReady
  } catch (error) {
    parentPort.postMessage({ id: 0, error: plainError(error) })
    return
  }
  const txs = new Map()
  const result = (r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows })

  // Queries as named statements, parsed once per SQL text: PGlite's query() parses and plans every
  // query anew, in six calls into the WASM module (parse, describe, bind, describe, execute, sync).
  // Here a query the worker has seen is one call (bind, describe, execute, sync), its parameters
  // serialised and its rows parsed by PGlite's own functions, under PGlite's own locks: 2-3x less
  // time per query (docs/decisions/0017-pglite-worker-and-session-cache.md).
  const serialize = protocol.serialize
  const statements = new Map()
  let statementCount = 0
  const concat = (parts) => {
    const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0))
    let at = 0
    for (const part of parts) {
      out.set(part, at)
      at += part.length
    }
    return out
  }
  const TAIL = [serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]
  async function statementFor(sql) {
    const known = statements.get(sql)
    if (known) {
      // The one used longest ago goes first when the cache is full.
      statements.delete(sql)
      statements.set(sql, known)
      return known
    }
    const name = 'lingxi_s' + ++statementCount
    const parts = [serialize.parse({ name, text: sql, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync()]
    if (statements.size >= workerData.statementsMax) {
      const [oldest, old] = statements.entries().next().value
      statements.delete(oldest)
      parts.unshift(serialize.close({ type: 'S', name: old.name }))
    }
    const { messages } = await db.execProtocol(concat(parts), { syncToFs: false })
    const statement = { name, types: pgResults.parseDescribeStatementResults(messages) }
    statements.set(sql, statement)
    return statement
  }
  async function runQuery(inTx, sql, params, rowMode) {
    const run = async () => {
      // Parameters serialised for the types of the statement they are bound to.
      const execute = (statement) => {
        const values = params.map((value, i) => {
          if (value === null || value === undefined) return null
          const serializer = db.serializers[statement.types[i]]
          return serializer ? serializer(value) : value.toString()
        })
        return db.execProtocol(concat([serialize.bind({ statement: statement.name, values }), ...TAIL]), { syncToFs: !inTx })
      }
      let response
      try {
        response = await execute(await statementFor(sql))
      } catch (error) {
        // A table the statement reads changed shape since it was parsed (a migration): parse it again, once.
        if (!(error && error.code === '0A000' && /cached plan/.test(error.message))) throw error
        statements.delete(sql)
        response = await execute(await statementFor(sql))
      }
      return pgResults.parseResults(response.messages, db.parsers, rowMode ? { rowMode } : undefined)[0]
    }
    // As PGlite's query(): outside a transaction it waits for an open one; inside, for the query before it.
    return inTx ? db._runExclusiveQuery(run) : db._runExclusiveTransaction(() => db._runExclusiveQuery(run))
  }
  // DDL through exec (migrations) may change what a parsed statement returns: start again after it.
  async function forgetStatements(target) {
    if (statements.size === 0) return
    statements.clear()
    await target.exec('DEALLOCATE ALL')
  }
  parentPort.postMessage({ id: 0, ok: true })
  const inflight = new Set()
  parentPort.on('message', (m) => {
    // What was asked before a close is answered first (a few seconds at most).
    const work = handle(m, m.op === 'close' ? [...inflight] : [])
    inflight.add(work)
    work.finally(() => inflight.delete(work))
  })
  async function handle(m, before) {
    try {
      let value
      const target = m.tx ? txs.get(m.tx) && txs.get(m.tx).tx : db
      if ((m.op === 'query' || m.op === 'exec') && !target) throw new Error('Transaction is closed')
      switch (m.op) {
        case 'query':
          value = result(await runQuery(Boolean(m.tx), m.sql, m.params || [], m.rowMode))
          break
        case 'exec':
          value = (await target.exec(m.sql)).map(result)
          await forgetStatements(target)
          break
        case 'begin': {
          let started
          const ready = new Promise((resolve) => (started = resolve))
          const done = db.transaction((tx) => new Promise((resolve, reject) => {
            txs.set(m.tx, { tx, resolve, reject, done: undefined })
            started()
          }))
          // A BEGIN that failed rejects done before the callback ran.
          await Promise.race([ready, done])
          done.catch(() => {})
          txs.get(m.tx).done = done
          value = true
          break
        }
        case 'commit':
        case 'rollback': {
          const entry = txs.get(m.tx)
          if (!entry) throw new Error('Transaction is closed')
          txs.delete(m.tx)
          if (m.op === 'commit') {
            entry.resolve()
            await entry.done
          } else {
            entry.reject(new Error('rollback'))
            await entry.done.catch(() => {})
          }
          value = true
          break
        }
        case 'dump': {
          const blob = await db.dumpDataDir(m.compression)
          value = { bytes: await blob.arrayBuffer(), type: blob.type }
          break
        }
        case 'close': {
          await Promise.race([Promise.allSettled(before), new Promise((r) => setTimeout(r, 5000))])
          await db.close()
          value = true
          break
        }
        default:
          throw new Error('unknown operation ' + m.op)
      }
      parentPort.postMessage({ id: m.id, value })
    } catch (error) {
      parentPort.postMessage({ id: m.id, error: plainError(error) })
    }
  }
})()
`

function revive(error: { message: string; props: Record<string, unknown> }): Error {
  const e = new Error(error.message)
  const { name, ...props } = error.props
  Object.assign(e, props)
  if (typeof name === 'string') e.name = name
  return e
}

/** Parsed statements the worker keeps (one per SQL text; Lingxi's queries are a few hundred). */
const STATEMENTS_MAX = 1000

export function startPgliteWorker(options: { dataDir?: string; loadDataDir?: Blob; startParams?: string[]; statementsMax?: number }): PgliteWorkerClient {
  const pgliteUrl = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  let next = 1
  let txCount = 0
  let closed = false
  let worker: Worker | undefined
  let failure: Error | undefined

  const waitReady = (async () => {
    const loadDataDir = options.loadDataDir ? { bytes: await options.loadDataDir.arrayBuffer(), type: options.loadDataDir.type } : undefined
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pgliteUrl,
        dataDir: options.dataDir,
        loadDataDir,
        startParams: options.startParams,
        statementsMax: options.statementsMax ?? STATEMENTS_MAX
      },
      // The dump moves to the worker rather than being copied (it can be tens of MB).
      transferList: loadDataDir ? [loadDataDir.bytes] : [],
      // A worker's default stdout goes through the main thread; PGlite prints nothing we need.
      stdout: false,
      stderr: false
    })
    worker.on('message', (m: { id: number; value?: unknown; error?: { message: string; props: Record<string, unknown> } }) => {
      const waiter = pending.get(m.id)
      if (!waiter) return
      pending.delete(m.id)
      if (m.error) waiter.reject(revive(m.error))
      else waiter.resolve(m.value)
    })
    const fail = (error: Error) => {
      failure = error
      for (const waiter of pending.values()) waiter.reject(error)
      pending.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => {
      if (!closed) fail(new Error(`the database worker stopped (exit code ${code})`))
    })
    await new Promise((resolve, reject) => pending.set(0, { resolve, reject }))
  })()

  const call = <T>(message: Record<string, unknown>): Promise<T> => {
    if (failure) return Promise.reject(failure)
    if (closed) return Promise.reject(new Error('PGlite is closed'))
    const id = next++
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      worker!.postMessage({ ...message, id })
    })
  }
  const query = <T>(tx: number | undefined, sql: string, params: unknown[] = [], opts?: QueryOptions) =>
    call<QueryResult & { rows: T[] }>({ op: 'query', tx, sql, params, rowMode: opts?.rowMode })
  const exec = (tx: number | undefined, sql: string) => call<QueryResult[]>({ op: 'exec', tx, sql })

  return {
    waitReady,
    get threadId() {
      return worker?.threadId ?? -1
    },
    async query(sql, params, opts) {
      await waitReady
      return query(undefined, sql, params, opts)
    },
    async exec(sql) {
      await waitReady
      return exec(undefined, sql)
    },
    async transaction(fn) {
      await waitReady
      const tx = ++txCount
      await call({ op: 'begin', tx })
      let open = true
      const handle: PgliteTx = {
        query: (sql, params, opts) => (open ? query(tx, sql, params, opts) : Promise.reject(new Error('Transaction is closed'))),
        exec: (sql) => (open ? exec(tx, sql) : Promise.reject(new Error('Transaction is closed'))),
        async rollback() {
          if (!open) return
          open = false
          await call({ op: 'rollback', tx })
        },
        get closed() {
          return !open
        }
      }
      let value: Awaited<ReturnType<typeof fn>>
      try {
        value = await fn(handle)
      } catch (error) {
        if (open) {
          open = false
          await call({ op: 'rollback', tx }).catch(() => {})
        }
        throw error
      }
      if (open) {
        open = false
        await call({ op: 'commit', tx })
      }
      return value
    },
    async dumpDataDir(compression = 'none') {
      await waitReady
      const { bytes, type } = await call<{ bytes: ArrayBuffer; type: string }>({ op: 'dump', compression })
      return new Blob([bytes], { type })
    },
    async close() {
      if (closed) return
      try {
        await waitReady.catch(() => {})
        if (!failure) await call({ op: 'close' })
      } finally {
        closed = true
        await worker?.terminate()
      }
    }
  }
}
