// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ApiError, NetworkError } from '../../src/core/api'
import { configure } from '../../src/core/config'
import { $token } from '../../src/core/stores'
import {
  checkUpload,
  MSG_UPLOAD_EMPTY,
  MSG_UPLOAD_TOO_LARGE,
  MSG_UPLOAD_TYPE,
  sniffImageType,
  UPLOAD_MAX_BYTES,
  uploadImage,
  uploadName
} from '../../src/core/upload'
import { resetCore } from './helpers/reset'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82, 1, 2, 3])
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70])
const GIF = new TextEncoder().encode('GIF89a\x01\x00\x01\x00')
const WEBP = new Uint8Array([0x52, 0x49, 0x46, 0x46, 1, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38])
const EXE = new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff])

interface Seen {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: Buffer
}

/** A loopback server playing getOssSTS → PUT → complete as the local provider does. */
async function startUploadServer() {
  const seen: Seen[] = []
  const state = { putStatus: 200, putBody: '{"code":2000,"message":"success","data":null}', completeCode: 2000, stsCode: 2000 }
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
    res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept')
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, OPTIONS')
    if (req.method === 'OPTIONS') {
      res.statusCode = 204
      return res.end()
    }
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = new URL(req.url ?? '/', 'http://x')
    const body = Buffer.concat(chunks)
    seen.push({ method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, body })
    res.setHeader('content-type', 'application/json')
    const envelope = (code: number, data: unknown, message = 'success') => res.end(JSON.stringify({ code, message, data }))
    if (url.pathname === '/api/v1/oss/upload/getOssSTS') {
      const input = JSON.parse(body.toString())
      if (state.stsCode !== 2000) return envelope(state.stsCode, null, '未登录')
      return envelope(2000, {
        provider: 'local',
        uploadUrl: '/api/v1/oss/upload/put/images/k1.png?expires=1&sig=abc',
        method: 'PUT',
        headers: { 'Content-Type': input.contentType },
        expiresAt: Date.now() + 600_000,
        key: 'images/k1.png',
        fileUrl: '/files/images/k1.png'
      })
    }
    if (url.pathname.startsWith('/api/v1/oss/upload/put/')) {
      res.statusCode = state.putStatus
      return res.end(state.putBody)
    }
    if (url.pathname === '/api/v1/oss/upload/complete') {
      if (state.completeCode !== 2000) {
        res.statusCode = 400
        return envelope(state.completeCode, null, '文件内容不是图片')
      }
      const { key } = JSON.parse(body.toString())
      return envelope(2000, {
        imageId: 'img-1',
        url: `/files/${key}`,
        thumbUrl: `/files/${key}.thumb.webp`,
        name: 'a.png',
        contentType: 'image/png',
        size: 19,
        width: 1,
        height: 2,
        createTime: 1
      })
    }
    res.statusCode = 404
    envelope(40400001, null, 'no route')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

let server: Awaited<ReturnType<typeof startUploadServer>>

beforeAll(async () => {
  server = await startUploadServer()
})
afterAll(() => server.close())
beforeEach(() => {
  resetCore()
  configure({ apiBase: server.url })
  $token.set('tok-up')
  server.seen.length = 0
  Object.assign(server.state, { putStatus: 200, putBody: '{"code":2000,"message":"success","data":null}', completeCode: 2000, stsCode: 2000 })
})

const file = (bytes: Uint8Array, name: string, type = '') => new File([bytes as BlobPart], name, { type })

describe('sniffImageType', () => {
  it('recognises the four image types by their first bytes and nothing else', () => {
    expect(sniffImageType(PNG)).toBe('image/png')
    expect(sniffImageType(JPEG)).toBe('image/jpeg')
    expect(sniffImageType(GIF)).toBe('image/gif')
    expect(sniffImageType(WEBP)).toBe('image/webp')
    expect(sniffImageType(EXE)).toBeNull()
    expect(sniffImageType(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull()
    expect(sniffImageType(new Uint8Array())).toBeNull()
  })
})

describe('checkUpload', () => {
  it('refuses a renamed program, an empty file and a file over 10 MB with Chinese messages', async () => {
    const exe = await checkUpload(file(EXE, 'cat.png', 'image/png'))
    expect(exe.error).toBeInstanceOf(ApiError)
    expect(exe.error).toMatchObject({ code: 40000001, message: MSG_UPLOAD_TYPE })
    expect((await checkUpload(file(new Uint8Array(), 'a.png'))).error?.message).toBe(MSG_UPLOAD_EMPTY)
    const big = new Uint8Array(UPLOAD_MAX_BYTES + 1)
    big.set(PNG)
    expect((await checkUpload(file(big, 'big.png'))).error).toMatchObject({ code: 40000003, message: MSG_UPLOAD_TOO_LARGE })
  })

  it('takes a file by its content, whatever its name says', async () => {
    expect(await checkUpload(file(JPEG, 'photo.png', 'image/png'))).toEqual({ error: null, contentType: 'image/jpeg' })
    const exact = new Uint8Array(UPLOAD_MAX_BYTES)
    exact.set(GIF)
    expect(await checkUpload(file(exact, 'max.gif'))).toEqual({ error: null, contentType: 'image/gif' })
  })
})

describe('uploadName', () => {
  it('keeps the last path segment only and never sends an empty name', () => {
    expect(uploadName('../../etc/passwd.png', 'image/png')).toBe('passwd.png')
    expect(uploadName('C:\\Users\\me\\猫.jpg', 'image/jpeg')).toBe('猫.jpg')
    expect(uploadName('a\u0000b.png', 'image/png')).toBe('ab.png')
    expect(uploadName('..', 'image/webp')).toBe('image.webp')
    expect(uploadName(undefined, 'image/gif')).toBe('image.gif')
  })
})

describe('uploadImage', () => {
  it('asks for a ticket, PUTs the raw bytes with progress, then completes', async () => {
    const fractions: number[] = []
    const image = await uploadImage(file(PNG, 'dir/猫.png', 'image/png'), { purpose: 'avatar', onProgress: (f) => fractions.push(f) })
    expect(image).toMatchObject({ imageId: 'img-1', url: '/files/images/k1.png' })
    const [sts, put, complete] = server.seen.filter((s) => s.method !== 'OPTIONS')
    expect(sts!.path).toBe('/api/v1/oss/upload/getOssSTS')
    expect(JSON.parse(sts!.body.toString())).toEqual({ fileName: '猫.png', contentType: 'image/png', size: PNG.length, purpose: 'avatar' })
    expect(sts!.headers.authorization).toBe('Bearer tok-up')
    expect(put!.method).toBe('PUT')
    expect(put!.path).toBe('/api/v1/oss/upload/put/images/k1.png?expires=1&sig=abc')
    expect(put!.headers['content-type']).toBe('image/png')
    expect(new Uint8Array(put!.body)).toEqual(PNG)
    expect(complete!.path).toBe('/api/v1/oss/upload/complete')
    expect(JSON.parse(complete!.body.toString())).toEqual({ key: 'images/k1.png' })
    expect(fractions[0]).toBe(0)
    expect(fractions.at(-1)).toBe(1)
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b))
  })

  it('sends nothing for a file that fails the checks', async () => {
    await expect(uploadImage(file(EXE, 'virus.png', 'image/png'))).rejects.toMatchObject({ code: 40000001, message: MSG_UPLOAD_TYPE })
    expect(server.seen).toHaveLength(0)
  })

  it('passes the envelope errors of each step through as ApiError', async () => {
    server.state.completeCode = 40000001
    await expect(uploadImage(file(PNG, 'a.png'))).rejects.toMatchObject({ name: 'ApiError', code: 40000001, message: '文件内容不是图片' })
    server.state.completeCode = 2000
    server.state.putStatus = 413
    server.state.putBody = JSON.stringify({ code: 40000003, message: '文件过大', data: null })
    await expect(uploadImage(file(PNG, 'a.png'))).rejects.toMatchObject({ code: 40000003, message: '文件过大' })
    server.state.putStatus = 403
    server.state.putBody = '<Error><Code>AccessDenied</Code></Error>'
    const error = await uploadImage(file(PNG, 'a.png')).catch((e) => e)
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.message).toBe('上传凭证已失效，请重新上传')
    server.state.stsCode = 50011005
    await expect(uploadImage(file(PNG, 'a.png'))).rejects.toMatchObject({ code: 50011005 })
  })

  it('stops when aborted, with the abort reason', async () => {
    const controller = new AbortController()
    controller.abort(new Error('gone'))
    await expect(uploadImage(file(PNG, 'a.png'), { signal: controller.signal })).rejects.toThrow('gone')
    expect(server.seen).toHaveLength(0)
  })
})
