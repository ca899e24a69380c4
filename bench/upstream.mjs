// A fake OpenAI-compatible upstream for the stream benches, in a process of its own so that its
// work is neither the server's nor the client's. Every POST /v1/chat/completions gets its own
// streamed reply: `--events` content deltas, the first at once and then one every `--interval` ms.
// Each delta's content is `<index>@<CLOCK_MONOTONIC µs when written>;`, so the client can time
// every delta from the upstream's write to its own read, whatever the server in between does
// (batching, re-framing) as long as it passes the text on.
//
// `--hold-after K`: after K deltas a reply waits until the parent sends 'release' (IPC), so that
// thousands of replies can be open at once.
// Usage: node bench/upstream.mjs --events 500 --interval 2 [--hold-after 1]; prints "upstream listening <port>".
import http from 'node:http'
import { flags, monoMicros } from './lib.mjs'

const args = flags()
const EVENTS = Number(args.value('events', 500))
const INTERVAL = Number(args.value('interval', 2))
const HOLD_AFTER = Number(args.value('hold-after', Number.POSITIVE_INFINITY))

let release
const released = new Promise((r) => (release = r))
process.on('message', (message) => message === 'release' && release())

// The chunk objects as OpenAI sends them, built once; only the content changes per delta.
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1710000000, model: 'bench-model', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
const [before, after] = chunk({ content: 'CONTENT' }).split('CONTENT')
const usage = `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1710000000, model: 'bench-model', choices: [], usage: { prompt_tokens: 10, completion_tokens: EVENTS, total_tokens: EVENTS + 10 } })}\n\n`
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

const server = http.createServer((req, res) => {
  req.resume()
  req.on('end', async () => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end()
      return
    }
    let open = true
    res.on('close', () => (open = false))
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.write(chunk({ role: 'assistant', content: '' }))
    for (let j = 0; j < EVENTS && open; j++) {
      if (j === HOLD_AFTER) await released
      else if (j > 0) await sleep(INTERVAL)
      if (open) res.write(`${before}${j}@${monoMicros()};${after}`)
    }
    if (!open) return
    res.end(`${chunk({}, 'stop')}${usage}data: [DONE]\n\n`)
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => console.log(`upstream listening ${server.address().port}`))
