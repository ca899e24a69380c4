import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { paintingTasks } from '../src/db/schema.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import { waitUntil } from './helpers/chat.js'
import { drawingGate, usePaintingHarness } from './helpers/painting.js'

const MJ = '/api/v1/painting'

describe('painting task lifecycle (demo painter held mid-way)', () => {
  let g = drawingGate()
  const ctx = usePaintingHarness(() => {
    g = drawingGate()
    return { env: { PAINTING_TIMEOUT_MS: '120000' }, painting: { demo: { delayMs: 6000, sleep: (ms, signal) => g.sleep(ms, signal) } } }
  })

  it('stop while drawing: INTERRPUT, refunded once, the drawing stops and nothing is stored', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'held' }, token)
    await waitUntil(() => g.waiting > 0)
    expect((await ctx.h.task(token, res.body.data.taskId)).status).toBe('SUBMITTED')
    const [a, b] = await Promise.all([
      ctx.h.post<WireTask>(`${MJ}/task/stop`, { taskId: res.body.data.taskId }, token),
      ctx.h.post<WireTask>(`${MJ}/task/stop`, { taskId: res.body.data.taskId }, token)
    ])
    expect([a.body.code, b.body.code].sort()).toEqual([2000, 40000001])
    g.release()
    const task = await ctx.h.settled(token, res.body.data.taskId)
    expect(task).toMatchObject({ status: 'INTERRPUT', imageUrl: null, buttons: [] })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect((await ctx.h.log(accountId)).map((l) => l.amount)).toEqual([-1, 1])
    expect(await ctx.h.row(res.body.data.taskId)).toMatchObject({ refunded: true, charged: 1 })
  })

  it('stopping a finished task is refused and changes nothing', async () => {
    const { token, accountId } = await ctx.h.login()
    g.release()
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'quick' }, token)
    await ctx.h.settled(token, res.body.data.taskId)
    const before = await ctx.h.mjCount(accountId)
    const stop = await ctx.h.post(`${MJ}/task/stop`, { taskId: res.body.data.taskId }, token)
    expect(stop.body).toMatchObject({ code: 40000001, message: '任务已结束，无法停止' })
    expect(await ctx.h.mjCount(accountId)).toBe(before)
  })

  it('actions on an unfinished task are refused', async () => {
    const { token } = await ctx.h.login()
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'slow' }, token)
    const action = await ctx.h.post(`${MJ}/action`, { taskId: res.body.data.taskId, action: 'UPSCALE', index: 1 }, token)
    expect(action.body).toMatchObject({ code: 40000001, message: '任务尚未完成，不能执行此操作' })
    const publish = await ctx.h.post('/api/v1/gallery/publish', { taskId: res.body.data.taskId }, token)
    expect(publish.body.code).toBe(40000001)
    g.release()
  })

  it('a held job times out; the timeout and a racing end refund exactly once', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'forever' }, token)
    ctx.h.clock.advance(120_001)
    await Promise.all([ctx.h.runtime.tick(), ctx.h.runtime.tick(), ctx.h.runtime.end(res.body.data.taskId, 'TIMEOUT', 'x')])
    g.release()
    const task = await ctx.h.settled(token, res.body.data.taskId)
    expect(task.status).toBe('TIMEOUT')
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect((await ctx.h.log(accountId)).map((l) => l.amount)).toEqual([-1, 1])
  })

  it('after a restart, demo jobs left unfinished are marked FAILURE and refunded', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'cut off' }, token)
    await waitUntil(() => g.waiting > 0)
    // As if the process died: the task stays SUBMITTED in the database; the new process sweeps it.
    expect(await ctx.h.runtime.sweep()).toBe(1)
    g.release()
    expect(await ctx.h.settled(token, res.body.data.taskId)).toMatchObject({ status: 'FAILURE', failReason: '服务重启，任务已中断，次数已退回' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
  })

  it('closing the runtime ends the jobs it was drawing and refuses new ones', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'closing' }, token)
    await waitUntil(() => g.waiting > 0)
    await ctx.h.runtime.close()
    const [row] = await ctx.db.db.select().from(paintingTasks).where(eq(paintingTasks.id, res.body.data.taskId))
    expect(row).toMatchObject({ status: 'FAILURE', refunded: true })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    const after = await ctx.h.post(`${MJ}/imagine`, { prompt: 'late' }, token)
    expect(after.body.code).toBe(50000000)
  })
})
