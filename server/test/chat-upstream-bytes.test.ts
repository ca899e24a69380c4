import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOpenAiProvider } from '../src/replies/providers/openai.js'
import type { ChatChunk } from '../src/replies/providers/provider.js'

// The provider reads the upstream's body as bytes (undici's request) and decodes them itself: a
// character split between two reads must come out whole, and the connection must end with a stop.

let server: Server
let url = ''
let closedEarly = 0
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

beforeAll(async () => {
  server = createServer(async (req, res) => {
    for await (const _ of req) {
      // the request body is not needed
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream' })
    res.on('close', () => {
      if (!res.writableEnded) closedEarly++
    })
    const event = Buffer.from(`data: ${JSON.stringify({ choices: [{ delta: { content: '灵犀' } }] })}\n\n`)
    const cut = event.indexOf(Buffer.from('灵')) + 1
    res.write(event.subarray(0, cut))
    await sleep(30)
    res.write(event.subarray(cut))
    if (req.url?.includes('hang')) return
    res.end('data: [DONE]\n\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const provider = (baseUrl: string) => createOpenAiProvider({ baseUrl, apiKey: 'k', firstByteTimeoutMs: 5000, idleTimeoutMs: 5000 })
const request = (signal: AbortSignal) => ({
  model: { id: 'm' } as never,
  messages: [{ role: 'user' as const, content: '你好' }],
  temperature: 1,
  signal
})

describe('the upstream body, byte by byte', () => {
  it('a UTF-8 character split between two reads arrives whole', async () => {
    const chunks: ChatChunk[] = []
    for await (const chunk of provider(url).stream(request(new AbortController().signal))) chunks.push(chunk)
    expect(chunks).toEqual([{ type: 'content', text: '灵犀' }])
  })

  it('a stop mid-stream ends the upstream connection', async () => {
    const controller = new AbortController()
    const seen: ChatChunk[] = []
    const before = closedEarly
    await expect(
      (async () => {
        for await (const chunk of provider(`${url}/hang`).stream(request(controller.signal))) {
          seen.push(chunk)
          controller.abort(new Error('stopped'))
        }
      })()
    ).rejects.toThrow('stopped')
    expect(seen).toEqual([{ type: 'content', text: '灵犀' }])
    const deadline = Date.now() + 2000
    while (closedEarly === before && Date.now() < deadline) await sleep(10)
    expect(closedEarly).toBe(before + 1)
  })
})
