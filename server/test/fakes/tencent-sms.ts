import { createHash, createHmac, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fake Tencent Cloud SMS endpoint (sms.tencentcloudapi.com) on loopback, answering API 3.0
 * `POST /` with `X-TC-Action: SendSms`, `X-TC-Version: 2021-01-11` the way the real one does
 * (always HTTP 200, `{"Response": …}`):
 * - the TC3-HMAC-SHA256 signature is recomputed here on its own from the request as received
 *   (the headers named in SignedHeaders, the raw body's SHA-256, the credential scope's date and
 *   service) with the known SecretKey; a wrong one answers `Response.Error` AuthFailure.SignatureFailure,
 *   an unknown SecretId AuthFailure.SecretIdNotFound, a timestamp 5 min off AuthFailure.SignatureExpire;
 * - then SendSms: SdkAppId, sign name and template known (`Response.Error`), each number's outcome
 *   in `SendStatusSet` — "Ok", InvalidParameterValue.IncorrectPhoneNumber, or a scripted code.
 */
export interface TencentSent {
  phoneNumber: string
  signName: string
  templateId: string
  templateParamSet: string[]
  region: string
}

export interface FakeTencentSms {
  url: string
  secretId: string
  secretKey: string
  sdkAppId: string
  signName: string
  templateId: string
  /** Messages accepted (Code Ok). */
  sent: TencentSent[]
  /** Every request: its headers, body and whether its signature was right. */
  requests: { headers: IncomingMessage['headers']; body: string; signatureOk: boolean }[]
  /** The next send fails with this code: in the number's SendStatus (default, like limits) or as Response.Error. */
  failNext(code: string, options?: { message?: string; as?: 'status' | 'error' }): void
  /** While true, requests are read and never answered. */
  hang: boolean
  close(): Promise<void>
}

/** The service's messages for the codes tests script. */
export const TENCENT_MESSAGES: Record<string, string> = {
  'AuthFailure.SignatureFailure': 'The provided credentials could not be validated. Please check your signature is correct.',
  'AuthFailure.SecretIdNotFound': 'The SecretId is not found, please ensure that your SecretId is correct.',
  'AuthFailure.SignatureExpire': 'Signature expired. Timestamp and server time cannot differ by more than 5 minutes.',
  'AuthFailure.InvalidAuthorization': 'Authorization in the request header is invalid.',
  'LimitExceeded.PhoneNumberDailyLimit': 'the number of sms messages sent from a single mobile number every day exceeds the upper limit',
  'LimitExceeded.PhoneNumberThirtySecondLimit': 'the number of sms messages sent from a single mobile number within 30 seconds exceeds the upper limit',
  'LimitExceeded.PhoneNumberOneHourLimit': 'the number of sms messages sent from a single mobile number within 1 hour exceeds the upper limit',
  'InvalidParameterValue.IncorrectPhoneNumber': 'incorrect phone number format',
  'FailedOperation.InsufficientBalanceInSmsPackage': 'insufficient balance in sms package',
  'FailedOperation.PhoneNumberInBlacklist': 'the number is in the blacklist',
  'FailedOperation.SignatureIncorrectOrUnapproved': 'signature format is incorrect or signature is not approved',
  'FailedOperation.TemplateIncorrectOrUnapproved': 'template is not approved or request content does not match the approved template content',
  'InvalidParameterValue.SdkAppIdNotExist': 'SdkAppId does not exist',
  'InternalError.Timeout': 'request timed out'
}

// Written here rather than imported from src: the fake checks the client, not itself.
const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest()

function read(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

export async function startFakeTencentSms(
  options: { secretId?: string; secretKey?: string; sdkAppId?: string; signName?: string; templateId?: string } = {}
): Promise<FakeTencentSms> {
  const scripted: { code: string; message: string; as: 'status' | 'error' }[] = []
  const fake: FakeTencentSms = {
    url: '',
    secretId: options.secretId ?? 'AKIDfakeTencentSecretId0123456789',
    secretKey: options.secretKey ?? 'fakeTencentSecretKey0123456789ab',
    sdkAppId: options.sdkAppId ?? '1400006666',
    signName: options.signName ?? '灵犀测试',
    templateId: options.templateId ?? '1110',
    sent: [],
    requests: [],
    failNext(code, opts = {}) {
      scripted.push({ code, message: opts.message ?? TENCENT_MESSAGES[code] ?? code, as: opts.as ?? 'status' })
    },
    hang: false,
    close: async () => {}
  }

  const respond = (res: ServerResponse, response: Record<string, unknown>) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify({ Response: { ...response, RequestId: randomUUID() } }))
  }
  const fail = (res: ServerResponse, code: string, message = TENCENT_MESSAGES[code] ?? code) => respond(res, { Error: { Code: code, Message: message } })

  /** Recomputes the signature from the request as received; undefined when the header is not TC3 at all. */
  function verify(req: IncomingMessage, body: Buffer): { ok: boolean; secretId: string; date: string; service: string } | undefined {
    const match = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d\d-\d\d)\/([^/]+)\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
      req.headers.authorization ?? ''
    )
    if (!match) return undefined
    const [, secretId = '', date = '', service = '', signedHeaders = '', signature = ''] = match
    const names = signedHeaders.split(';')
    const canonicalHeaders = names
      .map(
        (name) =>
          `${name}:${String(req.headers[name] ?? '')
            .trim()
            .toLowerCase()}\n`
      )
      .join('')
    const url = new URL(req.url ?? '/', 'http://fake')
    const canonicalRequest = [req.method, url.pathname, url.search.slice(1), canonicalHeaders, signedHeaders, sha256Hex(body)].join('\n')
    const stringToSign = ['TC3-HMAC-SHA256', String(req.headers['x-tc-timestamp'] ?? ''), `${date}/${service}/tc3_request`, sha256Hex(canonicalRequest)].join(
      '\n'
    )
    const key = hmac(hmac(hmac(`TC3${fake.secretKey}`, date), service), 'tc3_request')
    const expected = createHmac('sha256', key).update(stringToSign).digest('hex')
    const signsBasics = names.includes('content-type') && names.includes('host')
    return { ok: signsBasics && expected === signature, secretId, date, service }
  }

  const server = createServer(async (req, res) => {
    const body = await read(req)
    if (fake.hang) return
    const check = verify(req, body)
    fake.requests.push({ headers: req.headers, body: body.toString('utf8'), signatureOk: check?.ok ?? false })
    if (!check) return fail(res, 'AuthFailure.InvalidAuthorization')
    if (check.secretId !== fake.secretId) return fail(res, 'AuthFailure.SecretIdNotFound')
    const timestamp = Number(req.headers['x-tc-timestamp'])
    if (!Number.isSafeInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300) return fail(res, 'AuthFailure.SignatureExpire')
    // The credential's date must be the UTC date of the timestamp, and the service the host's.
    if (check.date !== new Date(timestamp * 1000).toISOString().slice(0, 10) || check.service !== 'sms' || !check.ok)
      return fail(res, 'AuthFailure.SignatureFailure')
    if (req.headers['x-tc-action'] !== 'SendSms') return fail(res, 'InvalidAction', `The requested action \`${req.headers['x-tc-action']}\` does not exist.`)
    if (req.headers['x-tc-version'] !== '2021-01-11') return fail(res, 'NoSuchVersion', 'The requested version does not exist.')
    const region = String(req.headers['x-tc-region'] ?? '')
    if (!region) return fail(res, 'MissingParameter', 'The request is missing a required parameter `Region`.')

    let input: { PhoneNumberSet?: unknown; SmsSdkAppId?: unknown; SignName?: unknown; TemplateId?: unknown; TemplateParamSet?: unknown }
    try {
      input = JSON.parse(body.toString('utf8'))
    } catch {
      return fail(res, 'InvalidParameter', 'The request body is not valid JSON.')
    }
    if (input.SmsSdkAppId !== fake.sdkAppId) return fail(res, 'InvalidParameterValue.SdkAppIdNotExist')
    if (input.SignName !== fake.signName) return fail(res, 'FailedOperation.SignatureIncorrectOrUnapproved')
    if (input.TemplateId !== fake.templateId) return fail(res, 'FailedOperation.TemplateIncorrectOrUnapproved')
    const phones = Array.isArray(input.PhoneNumberSet) ? input.PhoneNumberSet.map(String) : []
    if (phones.length === 0) return fail(res, 'MissingParameter', 'The request is missing a required parameter `PhoneNumberSet`.')
    const params = Array.isArray(input.TemplateParamSet) ? input.TemplateParamSet.map(String) : []
    const next = scripted.shift()
    if (next?.as === 'error') return fail(res, next.code, next.message)
    const status = (phone: string, code: string, message: string) => ({
      SerialNo: code === 'Ok' ? `2028:${randomUUID().replace(/-/g, '')}` : '',
      PhoneNumber: phone,
      Fee: code === 'Ok' ? 1 : 0,
      SessionContext: '',
      Code: code,
      Message: message,
      IsoCode: phone.startsWith('+86') ? 'CN' : 'DEF'
    })
    const sendStatusSet = phones.map((phone) => {
      if (!/^\+[1-9]\d{6,14}$/.test(phone) || (phone.startsWith('+86') && !/^\+861\d{10}$/.test(phone)))
        return status(phone, 'InvalidParameterValue.IncorrectPhoneNumber', TENCENT_MESSAGES['InvalidParameterValue.IncorrectPhoneNumber'] ?? '')
      if (next) return status(phone, next.code, next.message)
      fake.sent.push({ phoneNumber: phone, signName: String(input.SignName), templateId: String(input.TemplateId), templateParamSet: params, region })
      return status(phone, 'Ok', 'send success')
    })
    respond(res, { SendStatusSet: sendStatusSet })
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return fake
}
