import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { XMLBuilder, XMLParser } from 'fast-xml-parser'

export type SignType = 'MD5' | 'HMAC-SHA256'

/**
 * WeChat Pay v2 signature: the non-empty parameters except `sign`, sorted by name (ASCII),
 * joined as `k=v&k=v`, then `&key=<API key>`; MD5, or HMAC-SHA256 keyed with the API key;
 * upper-case hex.
 */
export function payV2Sign(params: Record<string, unknown>, apiKey: string, type: SignType = 'MD5'): string {
  const text = `${Object.keys(params)
    .filter((k) => k !== 'sign' && params[k] !== undefined && params[k] !== null && String(params[k]) !== '')
    .sort()
    .map((k) => `${k}=${String(params[k])}`)
    .join('&')}&key=${apiKey}`
  const digest = type === 'HMAC-SHA256' ? createHmac('sha256', apiKey).update(text, 'utf8') : createHash('md5').update(text, 'utf8')
  return digest.digest('hex').toUpperCase()
}

/** True when `params.sign` is the signature of the rest (constant time). */
export function verifyPayV2Sign(params: Record<string, unknown>, apiKey: string, type: SignType = 'MD5'): boolean {
  const given = Buffer.from(String(params.sign ?? ''))
  const wanted = Buffer.from(payV2Sign(params, apiKey, type))
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

/** 32 random characters [0-9A-Za-z]-ish (hex), as nonce_str. */
export function nonceStr(): string {
  return randomBytes(16).toString('hex')
}

const builder = new XMLBuilder({ cdataPropName: '__cdata', format: false })
const parser = new XMLParser({ parseTagValue: false, trimValues: true, processEntities: false, ignoreDeclaration: true })

/** `<xml><k><![CDATA[v]]></k>…</xml>`, the way WeChat Pay writes and reads its bodies. */
export function toXml(params: Record<string, unknown>): string {
  const body: Record<string, { __cdata: string }> = {}
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue
    // A CDATA section cannot hold its own terminator.
    body[k] = { __cdata: String(v).replaceAll(']]>', ']] >') }
  }
  return builder.build({ xml: body }) as string
}

export type XmlValue = string | { [key: string]: XmlValue } | XmlValue[]

/** The children of the root `<xml>` element; throws on anything else. */
export function fromXml(text: string): Record<string, XmlValue> {
  const parsed = parser.parse(text) as { xml?: unknown }
  const root = parsed?.xml
  if (root === '' || root === undefined) {
    if (root === '') return {}
    throw new Error('not a WeChat Pay XML body (no <xml> root)')
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) throw new Error('not a WeChat Pay XML body')
  return root as Record<string, XmlValue>
}

/** A flat string field of a parsed body ('' when absent or not text). */
export function field(body: Record<string, XmlValue>, name: string): string {
  const v = body[name]
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : ''
}
