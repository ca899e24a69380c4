import { createHmac, randomUUID } from 'node:crypto'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fake Aliyun SMS endpoint (dysmsapi.aliyuncs.com) on loopback, answering RPC-style
 * `GET /?Action=SendSms&…` the way the real gateway does, JSON (Format=JSON):
 * - the signature is checked as the gateway checks it, computed here on its own from the query
 *   as received (signature version 1.0: sorted, RFC 3986 encoded, `GET&%2F&…`, HMAC-SHA1 keyed
 *   `secret&`); a wrong one answers HTTP 400 SignatureDoesNotMatch, an unknown key 404
 *   InvalidAccessKeyId.NotFound, a stale Timestamp InvalidTimeStamp.Expired, a reused nonce
 *   SignatureNonceUsed;
 * - then SendSms's own checks: sign name and template code registered, TemplateParam JSON, the
 *   number's shape (isv.MOBILE_NUMBER_ILLEGAL), scripted failures (`failNext`), or `Code: "OK"`.
 */
export interface AliyunSent {
  phoneNumbers: string
  signName: string
  templateCode: string
  templateParam: Record<string, string>
}

export interface FakeAliyunSms {
  url: string
  accessKeyId: string
  accessKeySecret: string
  signName: string
  templateCode: string
  /** Messages accepted (Code OK). */
  sent: AliyunSent[]
  /** Every request: its decoded query and whether its signature was right. */
  requests: { query: Record<string, string>; signatureOk: boolean }[]
  /** The next send answers this business error (HTTP 200, like the gateway) instead of OK. */
  failNext(code: string, message?: string): void
  /** While true, requests are read and never answered. */
  hang: boolean
  close(): Promise<void>
}

/** The gateway's messages for the codes tests script. */
export const ALIYUN_MESSAGES: Record<string, string> = {
  'isv.BUSINESS_LIMIT_CONTROL': '触发分钟级流控Permits:1',
  'isv.DAY_LIMIT_CONTROL': '触发日发送限额',
  'isv.MOBILE_NUMBER_ILLEGAL': '非法手机号',
  'isv.BLACK_KEY_CONTROL_LIMIT': '黑名单管控',
  'isv.AMOUNT_NOT_ENOUGH': '账户余额不足',
  'isv.SMS_SIGNATURE_ILLEGAL': '该账号下找不到对应签名',
  'isv.SMS_TEMPLATE_ILLEGAL': '该账号下找不到对应模板',
  'isv.INVALID_JSON_PARAM': 'JSON参数不合法，只接受字符串值',
  'isp.SYSTEM_ERROR': 'isp.SYSTEM_ERROR'
}

// Written here rather than imported from src: the fake checks the client, not itself.
const rfc3986 = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

function expectedSignature(query: Record<string, string>, secret: string): { stringToSign: string; signature: string } {
  const canonical = Object.keys(query)
    .filter((k) => k !== 'Signature')
    .sort()
    .map((k) => `${rfc3986(k)}=${rfc3986(query[k] ?? '')}`)
    .join('&')
  const stringToSign = `GET&%2F&${rfc3986(canonical)}`
  return { stringToSign, signature: createHmac('sha1', `${secret}&`).update(stringToSign, 'utf8').digest('base64') }
}

export async function startFakeAliyunSms(
  options: { accessKeyId?: string; accessKeySecret?: string; signName?: string; templateCode?: string } = {}
): Promise<FakeAliyunSms> {
  const scripted: { code: string; message: string }[] = []
  const nonces = new Set<string>()
  const fake: FakeAliyunSms = {
    url: '',
    accessKeyId: options.accessKeyId ?? 'LTAI5tFakeAccessKeyId01',
    accessKeySecret: options.accessKeySecret ?? 'fakeAliyunSecret0123456789abcd',
    signName: options.signName ?? '灵犀测试',
    templateCode: options.templateCode ?? 'SMS_154950909',
    sent: [],
    requests: [],
    failNext(code, message) {
      scripted.push({ code, message: message ?? ALIYUN_MESSAGES[code] ?? code })
    },
    hang: false,
    close: async () => {}
  }

  const answer = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
    res.writeHead(status, { 'Content-Type': 'application/json;charset=utf-8' })
    res.end(JSON.stringify({ RequestId: randomUUID().toUpperCase(), ...body }))
  }
  const gatewayError = (res: ServerResponse, status: number, code: string, message: string) =>
    answer(res, status, {
      HostId: 'dysmsapi.aliyuncs.com',
      Code: code,
      Message: message,
      Recommend: `https://api.aliyun.com/troubleshoot?q=${code}&product=Dysmsapi`
    })

  const server = createServer((req, res) => {
    req.resume()
    if (fake.hang) return
    const raw = new URL(req.url ?? '/', 'http://fake').searchParams
    const query: Record<string, string> = {}
    for (const [k, v] of raw) query[k] = v
    const { stringToSign, signature } = expectedSignature(query, fake.accessKeySecret)
    const signatureOk = query.Signature === signature
    fake.requests.push({ query, signatureOk })

    // The gateway also takes a form POST (signed as POST&%2F&…); the provider sends GET, so that is all this fake speaks.
    if (req.method !== 'GET') return gatewayError(res, 400, 'UnsupportedHTTPMethod', 'This http method is not supported.')
    for (const name of ['AccessKeyId', 'Action', 'Signature', 'SignatureMethod', 'SignatureNonce', 'SignatureVersion', 'Timestamp', 'Version']) {
      if (!query[name])
        return gatewayError(res, 400, `MissingParameter`, `The input parameter "${name}" that is mandatory for processing this request is not supplied.`)
    }
    if (query.AccessKeyId !== fake.accessKeyId) return gatewayError(res, 404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.')
    if (query.SignatureMethod !== 'HMAC-SHA1' || query.SignatureVersion !== '1.0')
      return gatewayError(res, 400, 'InvalidParameter', 'Specified parameter SignatureMethod/SignatureVersion is not valid.')
    if (!signatureOk) {
      return gatewayError(res, 400, 'SignatureDoesNotMatch', `Specified signature does not match our calculation. server string to sign is:${stringToSign}`)
    }
    const time = Date.parse(query.Timestamp ?? '')
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(query.Timestamp ?? '') || !(Math.abs(Date.now() - time) <= 15 * 60_000)) {
      return gatewayError(res, 400, 'InvalidTimeStamp.Expired', 'Specified time stamp or date value is expired.')
    }
    if (nonces.has(query.SignatureNonce ?? '')) return gatewayError(res, 400, 'SignatureNonceUsed', 'Specified signature nonce was used already.')
    nonces.add(query.SignatureNonce ?? '')
    if (query.Action !== 'SendSms' || query.Version !== '2017-05-25')
      return gatewayError(res, 404, 'InvalidAction.NotFound', 'Specified api is not found, please check your url and method.')

    // SendSms itself: business errors are HTTP 200 with their code.
    const refuse = (code: string) => answer(res, 200, { Code: code, Message: ALIYUN_MESSAGES[code] ?? code })
    if (query.SignName !== fake.signName) return refuse('isv.SMS_SIGNATURE_ILLEGAL')
    if (query.TemplateCode !== fake.templateCode) return refuse('isv.SMS_TEMPLATE_ILLEGAL')
    let templateParam: Record<string, string>
    try {
      templateParam = JSON.parse(query.TemplateParam ?? '')
      if (typeof templateParam !== 'object' || Object.values(templateParam).some((v) => typeof v !== 'string')) throw new Error('not strings')
    } catch {
      return refuse('isv.INVALID_JSON_PARAM')
    }
    const phoneNumbers = query.PhoneNumbers ?? ''
    if (!/^(1\d{10}|(?!86)\d{7,15})$/.test(phoneNumbers)) return refuse('isv.MOBILE_NUMBER_ILLEGAL')
    const next = scripted.shift()
    if (next) return answer(res, 200, { Code: next.code, Message: next.message })
    fake.sent.push({ phoneNumbers, signName: query.SignName ?? '', templateCode: query.TemplateCode ?? '', templateParam })
    answer(res, 200, { Code: 'OK', Message: 'OK', BizId: `${Date.now()}^0` })
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
