import { createSign, type KeyObject } from 'node:crypto'

// A minimal X.509 v3 certificate writer (DER by hand, sha256WithRSAEncryption), so the fakes can
// issue certificates as WeChat Pay does without openssl or a library. Node's X509Certificate reads
// what it writes.

const length = (n: number) => (n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff])
const tlv = (tag: number, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts)
  return Buffer.concat([Buffer.from([tag, ...length(body.length)]), body])
}
const seq = (...parts: Buffer[]) => tlv(0x30, ...parts)
const set = (...parts: Buffer[]) => tlv(0x31, ...parts)
const integer = (hex: string) => {
  let bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex')
  if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes])
  return tlv(0x02, bytes)
}
function oid(dotted: string) {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number)
  const out = [40 * a + b]
  for (const n of rest) {
    const chunk = [n & 0x7f]
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80)
    out.push(...chunk)
  }
  return tlv(0x06, Buffer.from(out))
}
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'))
const time = (d: Date) => tlv(0x17, Buffer.from(`${d.toISOString().slice(2, 19).replace(/[-:T]/g, '')}Z`, 'ascii'))
const name = (organization: string, common: string) =>
  seq(set(seq(oid('2.5.4.6'), tlv(0x13, Buffer.from('CN')))), set(seq(oid('2.5.4.10'), utf8(organization))), set(seq(oid('2.5.4.3'), utf8(common))))
const SHA256_RSA = seq(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]))

export interface CertificateInput {
  /** Upper-case hex, first digit below 8 (no sign byte). */
  serial: string
  subject: string
  publicKey: KeyObject
  /** Signs the certificate (the issuer's key; the subject's own for a self-signed one). */
  issuerKey: KeyObject
  issuer?: string
  notBefore: Date
  notAfter: Date
}

/** A PEM certificate. */
export function makeCertificate(c: CertificateInput): string {
  const tbs = seq(
    tlv(0xa0, integer('02')),
    integer(c.serial),
    SHA256_RSA,
    name('Tenpay.com', c.issuer ?? 'Tenpay.com Root CA'),
    seq(time(c.notBefore), time(c.notAfter)),
    name('财付通支付科技有限公司', c.subject),
    c.publicKey.export({ type: 'spki', format: 'der' })
  )
  const signature = createSign('sha256').update(tbs).sign(c.issuerKey)
  const der = seq(tbs, SHA256_RSA, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])))
  const lines = der.toString('base64').match(/.{1,64}/g) ?? []
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`
}
