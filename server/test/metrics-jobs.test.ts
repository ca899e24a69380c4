import { describe, expect, it } from 'vitest'
import { createMemoryQueue } from '../src/jobs/index.js'
import { createMetrics } from '../src/metrics/registry.js'
import { memoryLogger } from './helpers/harness.js'

describe('job queue depths in /metrics', () => {
  it('counts waiting, delayed and running jobs by name, and leaves the gauge empty when the queue cannot answer', async () => {
    const queue = createMemoryQueue({ logger: memoryLogger() })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    queue.define('slow', () => gate, { concurrency: 1 })
    for (let i = 0; i < 3; i++) await queue.add('slow', i)
    await queue.add('slow', 'later', { delayMs: 60_000 })
    await queue.add('undefined-yet', 1)
    expect(await queue.depths()).toEqual([
      { name: 'slow', waiting: 2, delayed: 1, active: 1 },
      { name: 'undefined-yet', waiting: 1, delayed: 0, active: 0 }
    ])
    const text = await createMetrics({ jobDepths: () => queue.depths() }).text()
    expect(text).toContain('lingxi_job_queue_jobs{name="slow",state="waiting"} 2')
    expect(text).toContain('lingxi_job_queue_jobs{name="slow",state="active"} 1')
    expect(text).toContain('lingxi_job_queue_jobs{name="slow",state="delayed"} 1')
    const down = await createMetrics({ jobDepths: () => Promise.reject(new Error('redis away')) }).text()
    expect(down).not.toMatch(/^lingxi_job_queue_jobs\{/m)
    release()
    await queue.close()
  })
})
