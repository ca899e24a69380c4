// The baseline of bench/stream.mjs: a bare Node relay that forwards a chat completion request to
// the upstream and pipes its SSE bytes back untouched — no auth, no parsing, no storage.
// Usage: node bench/relay.mjs <upstream base URL> <port>
import http from 'node:http'

const [upstream, port] = process.argv.slice(2)
const target = new URL('/v1/chat/completions', upstream)
const agent = new http.Agent({ keepAlive: true, maxSockets: 1000 })

const server = http.createServer((req, res) => {
  const proxied = http.request(
    target,
    { method: 'POST', headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' }, agent },
    (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, { 'content-type': upstreamRes.headers['content-type'] ?? 'text/event-stream', 'cache-control': 'no-cache' })
      res.flushHeaders()
      upstreamRes.pipe(res)
    }
  )
  proxied.on('error', () => res.destroy())
  res.on('close', () => proxied.destroy())
  req.pipe(proxied)
})
server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`relay listening on ${port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
