import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createHttpSmsProvider } from '../src/sms/http-provider.js'

interface Received {
  method: string | undefined
  auth: string | undefined
  type: string | undefined
  body: unknown
}

let server: Server | undefined

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

/** A loopback stand-in for the SMS relay. */
async function fakeGateway(status: number): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = []
  server = createServer(async (req: IncomingMessage, res) => {
    let text = ''
    for await (const chunk of req) text += chunk
    received.push({ method: req.method, auth: req.headers.authorization, type: req.headers['content-type'], body: JSON.parse(text) })
    res.writeHead(status, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ ok: status < 300 }))
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/sms`, received }
}

describe('http SMS provider', () => {
  it('POSTs the message as JSON with the bearer token', async () => {
    const gateway = await fakeGateway(200)
    await createHttpSmsProvider({ url: gateway.url, token: 't0ken' }).send('86', '13800138000', '0421', 'MODIFY_PHONE')
    expect(gateway.received).toEqual([
      {
        method: 'POST',
        auth: 'Bearer t0ken',
        type: 'application/json',
        body: { enCode: '86', phone: '13800138000', code: '0421', purpose: 'MODIFY_PHONE' }
      }
    ])
  })

  it('fails when the gateway does not answer 2xx', async () => {
    const gateway = await fakeGateway(503)
    await expect(createHttpSmsProvider({ url: gateway.url, token: undefined }).send('86', '13800138000', '0421', 'LOGIN')).rejects.toThrow(
      'SMS gateway answered HTTP 503'
    )
    expect(gateway.received[0]?.auth).toBeUndefined()
  })

  it('fails when the gateway is unreachable or slow', async () => {
    await expect(createHttpSmsProvider({ url: 'http://127.0.0.1:9/sms', token: undefined }).send('86', '1', '2', 'LOGIN')).rejects.toThrow()
    server = createServer(() => {}) // never answers
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
    await expect(createHttpSmsProvider({ url, token: undefined, timeoutMs: 200 }).send('86', '1', '2', 'LOGIN')).rejects.toThrow()
    server.closeAllConnections()
  })
})
