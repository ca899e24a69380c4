import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Socket } from 'node:net'
import sharp from 'sharp'

/**
 * A fake novicezk/midjourney-proxy on loopback speaking its JSON (upstreams.md; ReturnCode,
 * SubmitController, TaskController, NotifyServiceImpl of the proxy): `/mj/submit/imagine|change|
 * action|describe|blend`, `/mj/task/{id}/fetch`, `/mj/task/list-by-condition`, the `mj-api-secret`
 * header (401 with no body when wrong), and the notifyHook POST of the whole Task JSON. Tasks move
 * only when the test says so; `plus` adds the buttons (customIds) of the plus / trueai proxy and its
 * routes: action (zoom, vary, vary region, upscale subtle / creative), modal (custom zoom and vary
 * region wait in status MODAL for their prompt and maskBase64), shorten and insight-face swap.
 */
export interface FakeTask {
  id: string
  properties: Record<string, unknown>
  action: string
  status: string
  prompt: string | null
  promptEn: string | null
  description: string | null
  state: string | null
  submitTime: number | null
  startTime: number | null
  finishTime: number | null
  imageUrl: string | null
  progress: string | null
  failReason: string | null
  buttons?: { customId: string; emoji: string; label: string; type: number; style: number }[]
}

/** What the next submit answers. */
export type SubmitBehaviour =
  | 'accept'
  /** code 22, numberOfQueues 1 */
  | 'queued'
  /** code 23 */
  | 'queue-full'
  /** code 9 */
  | 'system-error'
  /** HTTP 500 */
  | 'http-500'

export interface RecordedMjRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: Record<string, unknown> | undefined
}

export interface FakeMidjourneyProxy {
  url: string
  secret: string
  requests: RecordedMjRequest[]
  tasks: Map<string, FakeTask>
  /** Words that make imagine answer code 24. */
  bannedWords: string[]
  /** Answers of the next submits, in order; then 'accept'. */
  nextSubmits: SubmitBehaviour[]
  /** Notify deliveries: hook URL, the JSON sent and the HTTP status our server answered. */
  notifications: { hook: string; body: FakeTask; status: number; answer: unknown }[]
  /** The task a submit created last. */
  last(): FakeTask
  /** Moves a task to IN_PROGRESS at `percent`; returns a copy of its JSON (for replaying out of order). */
  progress(id: string, percent: number): FakeTask
  succeed(id: string): FakeTask
  fail(id: string, reason: string): FakeTask
  /** POSTs a Task JSON (default: the current one) to the task's notifyHook, or to `hook`. */
  notify(id: string, snapshot?: FakeTask, hook?: string): Promise<number>
  close(): Promise<void>
}

const INSTANCE = '1118138338562560102'

export async function startFakeMidjourneyProxy(options: { secret?: string; plus?: boolean; faceSwap?: boolean } = {}): Promise<FakeMidjourneyProxy> {
  const secret = options.secret ?? 'mj-secret-123'
  const plus = options.plus ?? false
  // The plus proxy has /mj/insight-face/swap when its InsightFace service is set up.
  const faceSwap = options.faceSwap ?? plus
  const requests: RecordedMjRequest[] = []
  const tasks = new Map<string, FakeTask>()
  const sockets = new Set<Socket>()
  const notifications: FakeMidjourneyProxy['notifications'] = []
  let lastId = ''
  let seq = 0
  const fake = {} as FakeMidjourneyProxy

  const server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (raw += chunk))
    req.on('end', () => {
      handle(req, res, raw).catch((error: unknown) => {
        res.writeHead(500, { 'Content-Type': 'application/json' })
        res.end(JSON.stringify({ error: String(error) }))
      })
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  const result = (code: number, description: string, id: string | null = null, properties: Record<string, unknown> = {}) => ({
    code,
    description,
    result: id,
    properties
  })
  const isDataUrl = (value: unknown) => typeof value === 'string' && /^data:image\/[a-z+.-]+;base64,[A-Za-z0-9+/=]+$/.test(value)

  function newTask(body: Record<string, unknown>, action: string, prompt: string | null): FakeTask {
    seq += 1
    const id = `${Date.now()}${String(seq).padStart(3, '0')}`
    const task: FakeTask = {
      id,
      properties: {
        notifyHook: typeof body.notifyHook === 'string' ? body.notifyHook : null,
        discordInstanceId: INSTANCE,
        nonce: `14${id}`
      },
      action,
      status: 'SUBMITTED',
      prompt,
      promptEn: prompt,
      description: null,
      state: typeof body.state === 'string' ? body.state : null,
      submitTime: Date.now(),
      startTime: Date.now(),
      finishTime: null,
      imageUrl: null,
      progress: '0%',
      failReason: null
    }
    if (plus) task.buttons = []
    tasks.set(id, task)
    lastId = id
    return task
  }

  function submitted(res: ServerResponse, task: FakeTask) {
    const behaviour = fake.nextSubmits.shift() ?? 'accept'
    switch (behaviour) {
      case 'queued':
        return json(res, 200, result(22, '排队中，前面还有1个任务', task.id, { numberOfQueues: 1, discordInstanceId: INSTANCE }))
      case 'queue-full':
        tasks.delete(task.id)
        return json(res, 200, result(23, '队列已满，请稍后尝试', task.id, { discordInstanceId: INSTANCE }))
      case 'system-error':
        tasks.delete(task.id)
        return json(res, 200, result(9, '发送指令到discord失败'))
      case 'http-500':
        tasks.delete(task.id)
        return json(res, 500, { timestamp: new Date().toISOString(), status: 500, error: 'Internal Server Error', path: '/mj/submit' })
      default:
        return json(res, 200, result(1, '提交成功', task.id, { discordInstanceId: INSTANCE }))
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const path = (req.url ?? '').split('?')[0] ?? ''
    let body: Record<string, unknown> | undefined
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined
    } catch {
      body = undefined
    }
    requests.push({ method: req.method ?? '', path, headers: req.headers, body })

    // The "Discord CDN": finished pictures.
    if (path.startsWith('/attachments/') && !/^\/attachments\/\d+\.png$/.test(path)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' })
      res.end('404: Not Found')
      return
    }
    if (path.startsWith('/attachments/') && req.method === 'GET') {
      const png = await sharp({ create: { width: 512, height: 512, channels: 3, background: { r: 40, g: 120, b: 200 } } })
        .png()
        .toBuffer()
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(png.length) })
      res.end(png)
      return
    }

    if (secret && req.headers['mj-api-secret'] !== secret) {
      res.writeHead(401)
      res.end()
      return
    }
    const b = body ?? {}
    if (req.method === 'POST' && path === '/mj/submit/imagine') {
      const prompt = typeof b.prompt === 'string' ? b.prompt.trim() : ''
      if (prompt === '') return json(res, 200, result(4, 'prompt不能为空'))
      const banned = fake.bannedWords.find((word) => prompt.toLowerCase().includes(word))
      if (banned) return json(res, 200, result(24, '可能包含敏感词', null, { promptEn: prompt, bannedWord: banned }))
      const images = Array.isArray(b.base64Array) ? b.base64Array : []
      if (!images.every(isDataUrl)) return json(res, 200, result(4, 'base64格式错误'))
      const task = newTask(b, 'IMAGINE', prompt)
      task.description = `/imagine ${prompt}`
      task.properties.finalPrompt = prompt
      return submitted(res, task)
    }
    if (req.method === 'POST' && path === '/mj/submit/change') {
      if (typeof b.taskId !== 'string' || b.taskId === '') return json(res, 200, result(4, 'taskId不能为空'))
      if (!['UPSCALE', 'VARIATION', 'REROLL'].includes(String(b.action))) return json(res, 200, result(4, 'action参数错误'))
      const target = tasks.get(b.taskId)
      if (!target) return json(res, 200, result(3, '关联任务不存在或已失效'))
      if (target.status !== 'SUCCESS') return json(res, 200, result(4, '关联任务状态错误'))
      if (!['IMAGINE', 'VARIATION', 'REROLL', 'BLEND'].includes(target.action)) return json(res, 200, result(4, '关联任务不允许执行变化'))
      const task = newTask(b, String(b.action), target.prompt)
      task.promptEn = target.promptEn
      task.description = `/up ${target.id} ${b.action === 'REROLL' ? 'R' : `${String(b.action).charAt(0)}${b.index}`}`
      task.properties.finalPrompt = target.properties.finalPrompt
      return submitted(res, task)
    }
    if (plus && req.method === 'POST' && path === '/mj/submit/action') {
      const target = typeof b.taskId === 'string' ? tasks.get(b.taskId) : undefined
      if (!target) return json(res, 200, result(3, '关联任务不存在或已失效'))
      const button = target.buttons?.find((x) => x.customId === b.customId)
      if (!button) return json(res, 200, result(4, 'customId参数错误'))
      const parts = String(b.customId).split('::')
      const kind = parts[1] === 'JOB' ? (parts[2] ?? '') : (parts[1] ?? '')
      const action = kind.startsWith('upsample')
        ? 'UPSCALE'
        : kind.endsWith('variation')
          ? 'VARIATION'
          : kind.startsWith('reroll')
            ? 'REROLL'
            : kind === 'Outpaint' || kind === 'CustomZoom'
              ? 'ZOOM'
              : kind === 'Inpaint'
                ? 'INPAINT'
                : 'PAN'
      const task = newTask(b, action, target.prompt)
      task.promptEn = target.promptEn
      task.description = `/action ${target.id} ${b.customId}`
      task.properties.customId = b.customId
      if (kind === 'CustomZoom' || kind === 'Inpaint') {
        // A modal opens on Discord: the task waits for /mj/submit/modal.
        task.status = 'MODAL'
        return json(res, 200, result(21, '窗口等待', task.id, { discordInstanceId: INSTANCE }))
      }
      return submitted(res, task)
    }
    if (plus && req.method === 'POST' && path === '/mj/submit/modal') {
      const task = typeof b.taskId === 'string' ? tasks.get(b.taskId) : undefined
      if (!task) return json(res, 200, result(3, '任务不存在或已失效'))
      if (task.status !== 'MODAL') return json(res, 200, result(4, '任务状态错误'))
      if (task.action === 'INPAINT') {
        if (typeof b.maskBase64 !== 'string' || b.maskBase64 === '') return json(res, 200, result(4, 'maskBase64不能为空'))
        try {
          const meta = await sharp(Buffer.from(b.maskBase64, 'base64')).metadata()
          if (meta.format !== 'png') return json(res, 200, result(4, 'maskBase64格式错误'))
        } catch {
          return json(res, 200, result(4, 'maskBase64格式错误'))
        }
      }
      if (typeof b.prompt === 'string' && b.prompt !== '') {
        task.prompt = b.prompt
        task.promptEn = b.prompt
      }
      task.status = 'SUBMITTED'
      return submitted(res, task)
    }
    if (plus && req.method === 'POST' && path === '/mj/submit/shorten') {
      const prompt = typeof b.prompt === 'string' ? b.prompt.trim() : ''
      if (prompt === '') return json(res, 200, result(4, 'prompt不能为空'))
      const task = newTask(b, 'SHORTEN', prompt)
      task.description = `/shorten ${prompt}`
      return submitted(res, task)
    }
    if (faceSwap && req.method === 'POST' && path === '/mj/insight-face/swap') {
      if (!isDataUrl(b.sourceBase64) || !isDataUrl(b.targetBase64)) return json(res, 200, result(4, 'base64格式错误'))
      const task = newTask(b, 'SWAP_FACE', null)
      task.description = '/swap'
      return submitted(res, task)
    }
    if (req.method === 'POST' && path === '/mj/submit/describe') {
      if (typeof b.base64 !== 'string' || b.base64 === '') return json(res, 200, result(4, 'base64不能为空'))
      if (!isDataUrl(b.base64)) return json(res, 200, result(4, 'base64格式错误'))
      const task = newTask(b, 'DESCRIBE', null)
      task.description = `/describe ${task.id}.png`
      return submitted(res, task)
    }
    if (req.method === 'POST' && path === '/mj/submit/blend') {
      const list = b.base64Array
      if (!Array.isArray(list) || list.length < 2 || list.length > 5) return json(res, 200, result(4, 'base64List参数错误'))
      if (!['PORTRAIT', 'SQUARE', 'LANDSCAPE'].includes(String(b.dimensions))) return json(res, 200, result(4, 'dimensions参数错误'))
      if (!list.every(isDataUrl)) return json(res, 200, result(4, 'base64格式错误'))
      const task = newTask(b, 'BLEND', null)
      task.description = `/blend ${task.id} ${list.length}`
      return submitted(res, task)
    }
    const fetchMatch = /^\/mj\/task\/([^/]+)\/fetch$/.exec(path)
    if (req.method === 'GET' && fetchMatch) {
      // Spring answers an unknown id with 200 and an empty body.
      const task = tasks.get(decodeURIComponent(fetchMatch[1]!))
      if (!task) {
        res.writeHead(200)
        res.end()
        return
      }
      return json(res, 200, task)
    }
    if (req.method === 'POST' && path === '/mj/task/list-by-condition') {
      const ids = Array.isArray(b.ids) ? b.ids : null
      if (!ids) return json(res, 200, [])
      return json(
        res,
        200,
        ids.map((id) => tasks.get(String(id))).filter((t) => t !== undefined)
      )
    }
    json(res, 404, { timestamp: new Date().toISOString(), status: 404, error: 'Not Found', path })
  }

  const copy = (task: FakeTask): FakeTask => structuredClone(task)
  const must = (id: string) => {
    const task = tasks.get(id)
    if (!task) throw new Error(`fake midjourney-proxy: no task ${id}`)
    return task
  }

  Object.assign(fake, {
    url,
    secret,
    requests,
    tasks,
    bannedWords: ['nude', 'blood'],
    nextSubmits: [],
    notifications,
    last: () => must(lastId),
    progress(id: string, percent: number) {
      const task = must(id)
      task.status = 'IN_PROGRESS'
      task.progress = `${percent}%`
      task.imageUrl = `${url}/attachments/${id}_progress.webp`
      return copy(task)
    },
    succeed(id: string) {
      const task = must(id)
      task.status = 'SUCCESS'
      task.progress = '100%'
      task.finishTime = Date.now()
      if (task.action === 'DESCRIBE') {
        const text = '1️⃣ a red fox in snow --ar 1:1\n\n2️⃣ a fox, watercolor --ar 1:1\n\n3️⃣ winter forest animal --ar 1:1\n\n4️⃣ cute fox portrait --ar 1:1'
        task.prompt = text
        task.promptEn = text
        task.properties.finalPrompt = text
      }
      if (task.action === 'SHORTEN') {
        const text = '1️⃣ red fox, snow\n\n2️⃣ red fox in snow, watercolor\n\n3️⃣ fox, winter forest\n\n4️⃣ fox portrait\n\n5️⃣ snowy fox'
        task.properties.finalPrompt = text
      }
      task.imageUrl = task.action === 'SHORTEN' ? null : `${url}/attachments/${id}.png`
      if (plus) {
        const hash = `hash${id}`
        const button = (customId: string, label = '') => ({ customId, emoji: '', label, type: 2, style: 2 })
        task.buttons =
          task.action === 'UPSCALE' || task.action === 'SWAP_FACE'
            ? [
                ...['left', 'right', 'up', 'down'].map((d) => button(`MJ::JOB::pan_${d}::1::${hash}::SOLO`)),
                button(`MJ::Outpaint::50::1::${hash}::SOLO`, 'Zoom Out 2x'),
                button(`MJ::Outpaint::75::1::${hash}::SOLO`, 'Zoom Out 1.5x'),
                button(`MJ::CustomZoom::${hash}`, 'Custom Zoom'),
                button(`MJ::JOB::low_variation::1::${hash}::SOLO`, 'Vary (Subtle)'),
                button(`MJ::JOB::high_variation::1::${hash}::SOLO`, 'Vary (Strong)'),
                button(`MJ::Inpaint::1::${hash}::SOLO`, 'Vary (Region)'),
                button(`MJ::JOB::upsample_v6_2x_subtle::1::${hash}::SOLO`, 'Upscale (Subtle)'),
                button(`MJ::JOB::upsample_v6_2x_creative::1::${hash}::SOLO`, 'Upscale (Creative)')
              ]
            : task.action === 'DESCRIBE' || task.action === 'SHORTEN'
              ? []
              : [
                  ...[1, 2, 3, 4].map((i) => ({ customId: `MJ::JOB::upsample::${i}::${hash}`, emoji: '', label: `U${i}`, type: 2, style: 2 })),
                  ...[1, 2, 3, 4].map((i) => ({ customId: `MJ::JOB::variation::${i}::${hash}`, emoji: '', label: `V${i}`, type: 2, style: 2 })),
                  { customId: `MJ::JOB::reroll::0::${hash}::SOLO`, emoji: '🔄', label: '', type: 2, style: 2 }
                ]
      }
      return copy(task)
    },
    fail(id: string, reason: string) {
      const task = must(id)
      task.status = 'FAILURE'
      task.progress = ''
      task.failReason = reason
      task.finishTime = Date.now()
      return copy(task)
    },
    async notify(id: string, snapshot?: FakeTask, hook?: string) {
      const task = snapshot ?? copy(must(id))
      const target = hook ?? (must(id).properties.notifyHook as string | null)
      if (!target) throw new Error('fake midjourney-proxy: the task has no notifyHook')
      const res = await fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(task) })
      const text = await res.text()
      let answer: unknown = text
      try {
        answer = JSON.parse(text)
      } catch {}
      notifications.push({ hook: target, body: task, status: res.status, answer })
      return res.status
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
  return fake
}
