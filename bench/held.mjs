// Independent streams held by one node (part of npm run bench): `n` separate sends, each its own
// reply from the fake upstream (bench/upstream.mjs), never one reply fanned out. The upstream
// sends each reply's first delta at once and holds the rest until every stream is open, so all `n`
// are open together; then it releases them and every stream must get every delta and the final
// event. Memory per stream = (server RSS with all open − RSS before the first send) ÷ n.
import http from 'node:http'
import { join } from 'node:path'
import { api, inParallel, loginMany, readDeltas, rssMb, sleep, startLingxi, startProcess, stopProcess } from './lib.mjs'

const EVENTS = 6
const MODEL = 'bench-model'

export async function heldStreams({ main, dataDir, n, accounts, openSeconds = 240 }) {
  // After release the remaining deltas come 500 ms apart: n × 2 deltas/s, light enough that the
  // figure is memory and loss, not throughput (bench:stream measures that).
  const upstream = await startProcess('upstream', ['bench/upstream.mjs', '--events', String(EVENTS), '--interval', '500', '--hold-after', '1'], {
    ready: /upstream listening \d+/
  })
  const upstreamUrl = `http://127.0.0.1:${/upstream listening (\d+)/.exec(upstream.output)[1]}`
  const lingxi = await startLingxi({
    main,
    dataDir: join(dataDir, 'held'),
    phones: accounts,
    // The held replies wait on the upstream for as long as opening all of them takes.
    extraEnv: { OPENAI_BASE_URL: upstreamUrl, OPENAI_API_KEY: 'sk-bench', OPENAI_MODELS: MODEL, CHAT_TIMEOUT_MS: '600000', CHAT_IDLE_TIMEOUT_MS: '600000' }
  })
  const tokens = await loginMany(lingxi.url, accounts)
  const topics = []
  await inParallel(n, 32, async (k) => {
    topics[k] = (await api(lingxi.url, '/api/v1/ai-chat/topic/create', { model: MODEL }, tokens[k % accounts])).topicId
  })
  await sleep(2000)
  const rssBefore = rssMb(lingxi.pid)

  // One connection per stream, as n browsers would hold.
  const sse = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
  const streams = []
  let firstDeltas = 0
  let failedOpens = 0
  const t0 = performance.now()
  const deadline = Date.now() + openSeconds * 1000
  await inParallel(n, 64, async (k) => {
    if (Date.now() > deadline) return
    const token = tokens[k % accounts]
    try {
      const { requestId } = await api(lingxi.url, '/api/v1/ai-chat/topic/message/send', { topicId: topics[k], content: `held ${k}` }, token)
      const res = await new Promise((done, fail) => {
        const req = http.get(`${lingxi.url}/api/v1/ai-chat/sse/subscribe/${requestId}`, { agent: sse, headers: { authorization: `Bearer ${token}` } }, done)
        req.on('error', fail)
      })
      if (res.statusCode !== 200) throw new Error(`subscribe answered ${res.statusCode}`)
      const stream = { deltas: new Set(), final: undefined }
      let gotFirst
      stream.firstDelta = new Promise((r) => (gotFirst = r))
      stream.done = readDeltas(res, (index) => {
        stream.deltas.add(index)
        if (index === 0) gotFirst()
      }).then(({ final }) => {
        stream.final = final
        gotFirst()
      })
      streams.push(stream)
      await stream.firstDelta
      firstDeltas++
    } catch {
      failedOpens++
    }
  })
  const openMs = performance.now() - t0
  await sleep(2000)
  const rssHeld = rssMb(lingxi.pid)

  // Release: every held reply streams its remaining deltas and ends.
  let rssPeak = rssHeld
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(lingxi.pid))), 250)
  upstream.send('release')
  const ended = Promise.all(streams.map((s) => s.done))
  await Promise.race([ended, sleep(120_000)])
  clearInterval(sampler)
  let lost = 0
  let withoutFinal = 0
  for (const s of streams) {
    lost += EVENTS - s.deltas.size
    if (s.final !== 'done') withoutFinal++
  }
  sse.destroy()
  await Promise.all([stopProcess(lingxi.child), stopProcess(upstream)])
  return {
    n,
    accounts,
    opened: firstDeltas,
    failedOpens,
    notAttempted: n - streams.length - failedOpens,
    openS: openMs / 1000,
    rssBeforeMb: rssBefore,
    rssHeldMb: rssHeld,
    rssPeakMb: rssPeak,
    perStreamKb: ((rssHeld - rssBefore) * 1024) / Math.max(firstDeltas, 1),
    eventsPerStream: EVENTS,
    lost,
    withoutFinal
  }
}
