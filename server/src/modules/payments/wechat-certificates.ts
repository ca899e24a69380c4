import { createPublicKey, type KeyObject, X509Certificate } from 'node:crypto'
import type { Logger } from '../../logger.js'
import { ProviderError } from './provider.js'
import { decryptResource, verifyV3 } from './wechat-crypto.js'

/**
 * Where the keys that verify WeChat Pay's answers and notifies come from, by `Wechatpay-Serial`:
 * the configured WeChat Pay public key (PAY_WECHAT_PLATFORM_KEY, its id PUB_KEY_ID_…), or the
 * platform certificates downloaded from `GET /v3/certificates` when no key is configured.
 */
export interface PlatformKeys {
  /** The key of this serial, or undefined when it is none of WeChat Pay's (the answer or notify is refused). */
  keyFor(serial: string): Promise<KeyObject | undefined>
}

export function staticPlatformKey(serial: string, pem: string): PlatformKeys {
  const key = createPublicKey(pem)
  return { keyFor: (s) => Promise.resolve(s === serial ? key : undefined) }
}

/** A raw answer of a signed call, before any verification. */
export interface RawAnswer {
  status: number
  header(name: string): string | undefined
  text: string
}

interface Certificate {
  key: KeyObject
  notBefore: number
  notAfter: number
}

/** The certificates are downloaded again when the last download is older than this. */
export const CERTIFICATES_REFRESH_MS = 12 * 3_600_000
/** An unknown serial (a certificate rotated in) downloads again, at most this often. */
export const CERTIFICATES_RETRY_MS = 60_000
/** The download's own signature must be this fresh (seconds), like a notify's. */
const ANSWER_WINDOW_S = 300

/**
 * The platform certificates of `GET /v3/certificates`: each `encrypt_certificate` is decrypted with
 * the APIv3 key (AEAD_AES_256_GCM, associated data `certificate`) — which only WeChat Pay and the
 * merchant know, so a certificate that decrypts comes from WeChat Pay — then read as X.509: its
 * serial must be the one listed and it must be valid now. The answer itself must be signed by one
 * of them (the one its Wechatpay-Serial names) or by one already trusted. Kept in memory, downloaded
 * again after CERTIFICATES_REFRESH_MS (on the next use: every node on its own, no shared state) and
 * when a serial nobody knows shows up (a new certificate, at most once a minute). A failed download
 * keeps the certificates already held.
 */
export function createCertificateStore(o: {
  apiV3Key: string
  now: () => number
  download: () => Promise<RawAnswer>
  logger?: Logger
  refreshMs?: number
}): PlatformKeys & { refresh(): Promise<void>; serials(): string[] } {
  const refreshMs = o.refreshMs ?? CERTIFICATES_REFRESH_MS
  let held = new Map<string, Certificate>()
  let fetchedAt = Number.NEGATIVE_INFINITY
  let triedAt = Number.NEGATIVE_INFINITY
  let running: Promise<void> | undefined

  async function download(): Promise<void> {
    const answer = await o.download()
    if (answer.status !== 200) throw new ProviderError('wechat', String(answer.status), `certificates: WeChat Pay answered ${answer.status}`)
    let list: unknown
    try {
      list = (JSON.parse(answer.text) as { data?: unknown }).data
    } catch {
      throw new ProviderError('wechat', 'BAD_ANSWER', 'certificates: the answer is not JSON')
    }
    if (!Array.isArray(list)) throw new ProviderError('wechat', 'BAD_ANSWER', 'certificates: no data list')
    const now = o.now()
    const found = new Map<string, Certificate>()
    for (const item of list as { serial_no?: unknown; encrypt_certificate?: Record<string, unknown> }[]) {
      const serial = typeof item.serial_no === 'string' ? item.serial_no.toUpperCase() : ''
      const e = item.encrypt_certificate
      if (!serial || e?.algorithm !== 'AEAD_AES_256_GCM' || typeof e.ciphertext !== 'string' || typeof e.nonce !== 'string') continue
      let cert: X509Certificate
      try {
        cert = new X509Certificate(
          decryptResource(o.apiV3Key, {
            ciphertext: e.ciphertext,
            nonce: e.nonce,
            associated_data: typeof e.associated_data === 'string' ? e.associated_data : ''
          })
        )
      } catch {
        o.logger?.warn('wechat pay certificate cannot be decrypted or read', { serial })
        continue
      }
      const notBefore = Date.parse(cert.validFrom)
      const notAfter = Date.parse(cert.validTo)
      if (cert.serialNumber.toUpperCase() !== serial || !(notBefore <= now && now < notAfter)) {
        o.logger?.warn('wechat pay certificate refused (serial or validity)', { serial })
        continue
      }
      found.set(serial, { key: cert.publicKey, notBefore, notAfter })
    }
    const serial = (answer.header('wechatpay-serial') ?? '').toUpperCase()
    const ts = answer.header('wechatpay-timestamp') ?? ''
    const signer = found.get(serial) ?? held.get(serial)
    const fresh = /^\d{1,12}$/.test(ts) && Math.abs(now / 1000 - Number(ts)) <= ANSWER_WINDOW_S
    if (!signer || !fresh || !verifyV3(signer.key, [ts, answer.header('wechatpay-nonce') ?? '', answer.text], answer.header('wechatpay-signature') ?? '')) {
      throw new ProviderError('wechat', 'BAD_SIGNATURE', 'certificates: the answer is not signed by a WeChat Pay certificate')
    }
    if (found.size === 0) throw new ProviderError('wechat', 'BAD_ANSWER', 'certificates: no usable certificate')
    held = found
    fetchedAt = now
  }

  function refresh(): Promise<void> {
    running ??= (async () => {
      triedAt = o.now()
      try {
        await download()
      } finally {
        running = undefined
      }
    })()
    return running
  }

  /** Downloads when due; a failure is logged and the certificates held are used meanwhile. */
  async function refreshQuietly(): Promise<void> {
    await refresh().catch((error: unknown) => {
      o.logger?.error('downloading the wechat pay platform certificates failed', { error: error instanceof Error ? error.message : String(error) })
    })
  }

  return {
    async keyFor(serial) {
      const s = serial.toUpperCase()
      const now = o.now()
      const stale = now - fetchedAt >= refreshMs && now - triedAt >= CERTIFICATES_RETRY_MS
      const unknown = !held.has(s) && now - triedAt >= CERTIFICATES_RETRY_MS
      if (stale || unknown) await refreshQuietly()
      const cert = held.get(s)
      return cert && cert.notBefore <= o.now() && o.now() < cert.notAfter ? cert.key : undefined
    },
    refresh,
    serials: () => [...held.keys()]
  }
}
