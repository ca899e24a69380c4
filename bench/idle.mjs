// Idle memory (part of npm run bench): the server's RSS, embedded default, on a fresh data
// directory right after it listens and then every few seconds while nothing uses it; then once more
// after a restart on the data it made (a later start). Also times the restart: SIGTERM to exit, and
// start to listening.
import { join } from 'node:path'
import { rssMb, sleep, startLingxi, stopProcess } from './lib.mjs'

export async function idleRss({ main, dataDir, seconds }) {
  const dir = join(dataDir, 'idle')
  const first = await startLingxi({ main, dataDir: dir })
  const samples = [{ s: 0, mb: rssMb(first.pid) }]
  const step = Math.max(5, Math.round(seconds / 20))
  for (let s = step; s <= seconds; s += step) {
    await sleep(step * 1000)
    samples.push({ s, mb: rssMb(first.pid) })
  }
  const stopping = performance.now()
  await stopProcess(first.child)
  const stopMs = performance.now() - stopping
  const later = await startLingxi({ main, dataDir: dir })
  await sleep(5000)
  const laterMb = rssMb(later.pid)
  await stopProcess(later.child)
  return {
    seconds,
    startMb: samples[0].mb,
    endMb: samples.at(-1).mb,
    maxMb: Math.max(...samples.map((x) => x.mb)),
    laterStartMb: laterMb,
    startMs: first.startMs,
    laterStartMs: later.startMs,
    stopMs,
    samples
  }
}
