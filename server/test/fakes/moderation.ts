import { createHash, createHmac } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Fake moderation services on loopback, one server answering as all three:
 * - Aliyun green-cip `POST /` form `Action=TextModerationPlus` (2022-03-02), RPC signature v1.0
 *   (HMAC-SHA1 over `POST&%2F&…`, keyed `secret&`): a wrong one answers HTTP 400 SignatureDoesNotMatch;
 * - Tencent TMS `POST /tms` `X-TC-Action: TextModeration` and IMS `POST /ims` `X-TC-Action:
 *   ImageModeration` (2020-12-29, FileContent in base64), TC3-HMAC-SHA256 checked from the headers
 *   and body as received, for the service `tms` or `ims`: a wrong one answers Response.Error
 *   AuthFailure.SignatureFailure;
 * - OpenAI-compatible `POST /v1/moderations` with a bearer key (input a text, or parts with an
 *   `image_url` data: URL): a wrong one answers HTTP 401.
 * The verdict is on cue: a text holding one of `block` is high risk / Block / flagged, one of
 * `review` medium / Review; an image gets `image`; `down` answers HTTP 503 to everything.
 * Signatures are computed here on their own (not imported from src): the fake checks the client,
 * not itself.
 */
export interface FakeModeration {
  url: string
  aliyun: { accessKeyId: string; accessKeySecret: string; endpoint: string }
  tencent: { secretId: string; secretKey: string; endpoint: string }
  openai: { apiKey: string; baseUrl: string }
  block: string[]
  review: string[]
  /** What every image gets. */
  image: 'pass' | 'review' | 'block'
  down: boolean
  /** Every request: which service, the text it carried (an image: `image <bytes> bytes`), and whether its signature or key was right. */
  requests: { service: 'aliyun' | 'tencent' | 'openai'; text: string; signatureOk: boolean; scene?: string; image?: Buffer }[]
  close(): Promise<void>
}

const rfc3986 = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex')
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest()

function aliyunSignatureOk(params: Record<string, string>, secret: string): boolean {
  const canonical = Object.keys(params)
    .filter((k) => k !== 'Signature')
    .sort()
    .map((k) => `${rfc3986(k)}=${rfc3986(params[k] ?? '')}`)
    .join('&')
  const expected = createHmac('sha1', `${secret}&`)
    .update(`POST&%2F&${rfc3986(canonical)}`, 'utf8')
    .digest('base64')
  return params.Signature === expected
}

function tencentSignatureOk(req: IncomingMessage, body: string, secretId: string, secretKey: string, expected: 'tms' | 'ims'): boolean {
  const auth = String(req.headers.authorization ?? '')
  const m = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth)
  if (!m || m[1] !== secretId) return false
  const [, , date, service, signedHeaders, signature] = m
  const names = signedHeaders!.split(';')
  const canonicalHeaders = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? '')
          .trim()
          .toLowerCase()}\n`
    )
    .join('')
  const path = new URL(req.url ?? '/', 'http://x').pathname
  const canonicalRequest = ['POST', path, '', canonicalHeaders, signedHeaders, sha256(body)].join('\n')
  const timestamp = String(req.headers['x-tc-timestamp'] ?? '')
  const stringToSign = ['TC3-HMAC-SHA256', timestamp, `${date}/${service}/tc3_request`, sha256(canonicalRequest)].join('\n')
  const key = hmac(hmac(hmac(`TC3${secretKey}`, date!), service!), 'tc3_request')
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex') === signature && service === expected
}

export async function startFakeModeration(): Promise<FakeModeration> {
  const fake: FakeModeration = {
    url: '',
    aliyun: { accessKeyId: 'LTAI5tFakeModeration01', accessKeySecret: 'fakeGreenSecret0123456789', endpoint: '' },
    tencent: { secretId: 'AKIDfakeModerationId0123', secretKey: 'fakeTmsSecretKey0123456789', endpoint: '' },
    openai: { apiKey: 'sk-fake-moderation-key', baseUrl: '' },
    block: [],
    review: [],
    image: 'pass',
    down: false,
    requests: [],
    close: async () => {}
  }
  const verdictOf = (text: string) => (fake.block.some((w) => text.includes(w)) ? 'block' : fake.review.some((w) => text.includes(w)) ? 'review' : 'pass')
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(body))
  }

  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      if (fake.down) return send(res, 503, { message: 'Service Unavailable' })
      const path = new URL(req.url ?? '/', 'http://x').pathname
      if (path === '/v1/moderations') {
        const parsed = JSON.parse(body) as { input: string | { type: string; image_url?: { url?: string } }[] }
        const ok = req.headers.authorization === `Bearer ${fake.openai.apiKey}`
        const part = Array.isArray(parsed.input) ? parsed.input.find((p) => p.type === 'image_url') : undefined
        const dataUrl = /^data:image\/[a-z]+;base64,(.+)$/.exec(part?.image_url?.url ?? '')
        if (Array.isArray(parsed.input) && !dataUrl) return send(res, 400, { error: { message: 'Invalid image_url', type: 'invalid_request_error' } })
        const image = dataUrl ? Buffer.from(dataUrl[1]!, 'base64') : undefined
        const text = image ? `image ${image.length} bytes` : (parsed.input as string)
        fake.requests.push({ service: 'openai', text, signatureOk: ok, ...(image ? { image } : {}) })
        if (!ok) return send(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } })
        const verdict = image ? (fake.image === 'review' ? 'block' : fake.image) : verdictOf(text)
        const flagged = verdict !== 'pass'
        return send(res, 200, {
          id: 'modr-fake',
          model: 'omni-moderation-latest',
          results: [{ flagged, categories: { harassment: false, violence: flagged } }]
        })
      }
      if (path === '/ims') {
        const image = Buffer.from((JSON.parse(body) as { FileContent: string }).FileContent, 'base64')
        const ok = req.headers['x-tc-action'] === 'ImageModeration' && tencentSignatureOk(req, body, fake.tencent.secretId, fake.tencent.secretKey, 'ims')
        fake.requests.push({ service: 'tencent', text: `image ${image.length} bytes`, signatureOk: ok, image })
        if (!ok)
          return send(res, 200, {
            Response: { Error: { Code: 'AuthFailure.SignatureFailure', Message: 'The provided credentials could not be validated.' }, RequestId: 'r' }
          })
        const suggestion = { block: 'Block', review: 'Review', pass: 'Pass' }[fake.image]
        return send(res, 200, { Response: { Suggestion: suggestion, Label: fake.image === 'pass' ? 'Normal' : 'Porn', Score: 90, RequestId: 'r' } })
      }
      if (path === '/tms') {
        const parsed = JSON.parse(body) as { Content: string }
        const text = Buffer.from(parsed.Content, 'base64').toString('utf8')
        const ok = req.headers['x-tc-action'] === 'TextModeration' && tencentSignatureOk(req, body, fake.tencent.secretId, fake.tencent.secretKey, 'tms')
        fake.requests.push({ service: 'tencent', text, signatureOk: ok })
        if (!ok)
          return send(res, 200, {
            Response: { Error: { Code: 'AuthFailure.SignatureFailure', Message: 'The provided credentials could not be validated.' }, RequestId: 'r' }
          })
        const verdict = verdictOf(text)
        const suggestion = { block: 'Block', review: 'Review', pass: 'Pass' }[verdict]
        const keywords = [...fake.block, ...fake.review].filter((w) => text.includes(w))
        return send(res, 200, { Response: { Suggestion: suggestion, Label: verdict === 'pass' ? 'Normal' : 'Polity', Keywords: keywords, RequestId: 'r' } })
      }
      const params = Object.fromEntries(new URLSearchParams(body))
      const content = (JSON.parse(params.ServiceParameters ?? '{}') as { content?: string }).content ?? ''
      const ok = params.AccessKeyId === fake.aliyun.accessKeyId && aliyunSignatureOk(params, fake.aliyun.accessKeySecret)
      fake.requests.push({ service: 'aliyun', text: content, signatureOk: ok, scene: params.Service })
      if (!ok) return send(res, 400, { Code: 'SignatureDoesNotMatch', Message: 'Specified signature is not matched with our calculation.', RequestId: 'r' })
      const verdict = verdictOf(content)
      const level = { block: 'high', review: 'medium', pass: 'none' }[verdict]
      const words = [...fake.block, ...fake.review].filter((w) => content.includes(w)).join(',')
      return send(res, 200, {
        Code: 200,
        Message: 'OK',
        RequestId: 'r',
        Data: { RiskLevel: level, Result: verdict === 'pass' ? [{ Label: 'nonLabel' }] : [{ Label: 'political_entity', Confidence: 99, RiskWords: words }] }
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  fake.url = `http://127.0.0.1:${port}`
  fake.aliyun.endpoint = fake.url
  fake.tencent.endpoint = `${fake.url}/tms`
  fake.openai.baseUrl = fake.url
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return fake
}

/** The env that points a provider at the fake (MODERATION_PROVIDERS included). */
export function moderationEnv(fake: FakeModeration, providers: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    MODERATION_PROVIDERS: providers,
    MODERATION_ALIYUN_ACCESS_KEY_ID: fake.aliyun.accessKeyId,
    MODERATION_ALIYUN_ACCESS_KEY_SECRET: fake.aliyun.accessKeySecret,
    MODERATION_ALIYUN_ENDPOINT: fake.aliyun.endpoint,
    MODERATION_TENCENT_SECRET_ID: fake.tencent.secretId,
    MODERATION_TENCENT_SECRET_KEY: fake.tencent.secretKey,
    MODERATION_TENCENT_ENDPOINT: fake.tencent.endpoint,
    MODERATION_OPENAI_BASE_URL: fake.openai.baseUrl,
    MODERATION_OPENAI_API_KEY: fake.openai.apiKey,
    ...extra
  }
}
