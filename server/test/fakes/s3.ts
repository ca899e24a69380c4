import { createHash, createHmac } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fake S3-compatible object store on loopback, path-style (`/{bucket}/{key}`), that checks AWS
 * Signature V4 the way S3 does — with its own implementation, not the client's library — for
 * header-signed requests and presigned URLs (expiry, signed Content-Type and Content-Length).
 * Anonymous GETs are allowed (a public-read bucket, as S3_PUBLIC_URL needs). Errors answer S3's
 * XML error document.
 */
export interface FakeS3 {
  url: string
  bucket: string
  accessKeyId: string
  secretAccessKey: string
  region: string
  objects: Map<string, { body: Buffer; contentType: string }>
  requests: { method: string; path: string; auth: 'header' | 'query' | 'none'; status: number }[]
  /** Env for loadConfig. */
  env(): Record<string, string>
  close(): Promise<void>
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest()
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

function xmlError(res: ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { 'Content-Type': 'application/xml' })
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`)
}

export async function startFakeS3(options: { now?: () => number } = {}): Promise<FakeS3> {
  const now = options.now ?? Date.now
  const fake = {
    bucket: 'lingxi-test',
    accessKeyId: 'AKIAFAKE0000',
    secretAccessKey: 'fake-secret-key-0000',
    region: 'cn-test-1',
    objects: new Map<string, { body: Buffer; contentType: string }>(),
    requests: [] as FakeS3['requests']
  }

  function verify(req: IncomingMessage, url: URL, body: Buffer): { ok: true; mode: 'header' | 'query' } | { ok: false; code: string; message: string } | null {
    const q = url.searchParams
    const authz = req.headers.authorization
    let mode: 'header' | 'query'
    let credential: string
    let signedHeaders: string
    let signature: string
    let amzDate: string
    let payloadHash: string
    if (authz) {
      const m = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authz)
      if (!m) return { ok: false, code: 'AuthorizationHeaderMalformed', message: 'bad Authorization' }
      mode = 'header'
      credential = m[1]!
      signedHeaders = m[2]!
      signature = m[3]!
      amzDate = String(req.headers['x-amz-date'] ?? '')
      payloadHash = String(req.headers['x-amz-content-sha256'] ?? '')
      if (!payloadHash) return { ok: false, code: 'InvalidRequest', message: 'missing x-amz-content-sha256' }
      if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body)) return { ok: false, code: 'XAmzContentSHA256Mismatch', message: 'payload hash' }
    } else if (q.has('X-Amz-Signature')) {
      mode = 'query'
      if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return { ok: false, code: 'AuthorizationQueryParametersError', message: 'algorithm' }
      credential = q.get('X-Amz-Credential') ?? ''
      signedHeaders = q.get('X-Amz-SignedHeaders') ?? ''
      signature = q.get('X-Amz-Signature') ?? ''
      amzDate = q.get('X-Amz-Date') ?? ''
      payloadHash = 'UNSIGNED-PAYLOAD'
      const expires = Number(q.get('X-Amz-Expires'))
      const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate)
      if (!m || !Number.isFinite(expires)) return { ok: false, code: 'AuthorizationQueryParametersError', message: 'date/expires' }
      const signedAt = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)
      if (now() > signedAt + expires * 1000) return { ok: false, code: 'AccessDenied', message: 'Request has expired' }
    } else {
      return null
    }
    const [ak, date, region, service, term] = credential.split('/')
    if (ak !== fake.accessKeyId) return { ok: false, code: 'InvalidAccessKeyId', message: 'unknown key' }
    if (region !== fake.region || service !== 's3' || term !== 'aws4_request' || date !== amzDate.slice(0, 8)) {
      return { ok: false, code: 'AuthorizationHeaderMalformed', message: 'credential scope' }
    }
    const names = signedHeaders.split(';')
    if (!names.includes('host')) return { ok: false, code: 'AccessDenied', message: 'host not signed' }
    const headers = names
      .map(
        (name) =>
          `${name}:${String(req.headers[name] ?? '')
            .trim()
            .replace(/\s+/g, ' ')}`
      )
      .join('\n')
    const query = [...q]
      .filter(([k]) => k !== 'X-Amz-Signature')
      .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
      .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&')
    const path = url.pathname
      .split('/')
      .map((s) => rfc3986(decodeURIComponent(s)))
      .join('/')
    const canonical = [req.method, path, query, `${headers}\n`, signedHeaders, payloadHash].join('\n')
    const scope = `${date}/${region}/s3/aws4_request`
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n')
    const key = hmac(hmac(hmac(hmac(`AWS4${fake.secretAccessKey}`, date!), region!), 's3'), 'aws4_request')
    const expected = createHmac('sha256', key).update(toSign).digest('hex')
    if (expected !== signature) return { ok: false, code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match' }
    return { ok: true, mode }
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const url = new URL(req.url ?? '/', 'http://fake')
    const record = (status: number, auth: 'header' | 'query' | 'none') => fake.requests.push({ method: req.method ?? '', path: url.pathname, auth, status })
    // Browsers upload to presigned URLs cross-origin.
    res.setHeader('Access-Control-Allow-Origin', '*')
    if (req.method === 'OPTIONS') {
      res.writeHead(200, { 'Access-Control-Allow-Methods': 'GET, PUT', 'Access-Control-Allow-Headers': 'content-type' })
      res.end()
      return
    }
    const [, bucket, ...rest] = url.pathname.split('/')
    const key = rest.join('/')
    if (bucket !== fake.bucket || key === '') {
      record(404, 'none')
      return xmlError(res, 404, 'NoSuchBucket', 'no such bucket')
    }
    const check = verify(req, url, body)
    if (check && !check.ok) {
      record(403, 'none')
      return xmlError(res, 403, check.code, check.message)
    }
    const auth = check ? check.mode : 'none'
    if (!check && req.method !== 'GET' && req.method !== 'HEAD') {
      record(403, 'none')
      return xmlError(res, 403, 'AccessDenied', 'Anonymous users cannot write')
    }
    if (req.method === 'PUT') {
      const length = req.headers['content-length']
      if (length !== undefined && Number(length) !== body.length) {
        record(400, auth)
        return xmlError(res, 400, 'IncompleteBody', 'length')
      }
      fake.objects.set(key, { body, contentType: String(req.headers['content-type'] ?? 'binary/octet-stream') })
      record(200, auth)
      res.writeHead(200, { ETag: `"${createHash('md5').update(body).digest('hex')}"` })
      res.end()
      return
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      const object = fake.objects.get(key)
      if (!object) {
        record(404, auth)
        return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.')
      }
      record(200, auth)
      res.writeHead(200, { 'Content-Type': object.contentType, 'Content-Length': object.body.length })
      res.end(req.method === 'HEAD' ? undefined : object.body)
      return
    }
    if (req.method === 'DELETE') {
      fake.objects.delete(key)
      record(204, auth)
      res.writeHead(204)
      res.end()
      return
    }
    record(405, auth)
    xmlError(res, 405, 'MethodNotAllowed', 'method')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}`
  return {
    ...fake,
    url,
    env: () => ({
      S3_ENDPOINT: url,
      S3_BUCKET: fake.bucket,
      S3_REGION: fake.region,
      S3_ACCESS_KEY_ID: fake.accessKeyId,
      S3_SECRET_ACCESS_KEY: fake.secretAccessKey
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
