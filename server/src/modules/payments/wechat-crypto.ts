import { createDecipheriv, createSign, createVerify, type KeyObject } from 'node:crypto'

// The signatures and encryption of WeChat Pay API v3 (wechat-v3.ts, wechat-certificates.ts).

/** `METHOD\nURL\nTIMESTAMP\nNONCE\nBODY\n`, signed SHA256-RSA with the merchant key (base64). */
export function signV3(key: KeyObject | string, parts: string[]): string {
  return createSign('RSA-SHA256')
    .update(`${parts.join('\n')}\n`)
    .sign(key, 'base64')
}

export function verifyV3(key: KeyObject | string, parts: string[], signature: string): boolean {
  try {
    return createVerify('RSA-SHA256')
      .update(`${parts.join('\n')}\n`)
      .verify(key, signature, 'base64')
  } catch {
    return false
  }
}

/** AEAD_AES_256_GCM of a notify resource: the APIv3 key, the resource's nonce and associated data; the tag is the last 16 bytes. */
export function decryptResource(apiV3Key: string, r: { ciphertext: string; nonce: string; associated_data?: string }): string {
  const data = Buffer.from(r.ciphertext, 'base64')
  if (data.length < 17) throw new Error('ciphertext too short')
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(apiV3Key, 'utf8'), Buffer.from(r.nonce, 'utf8'))
  decipher.setAuthTag(data.subarray(data.length - 16))
  decipher.setAAD(Buffer.from(r.associated_data ?? '', 'utf8'))
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8')
}

/** 2026-01-02T10:34:56+08:00: the time format of WeChat Pay v3, in China time. */
export function chinaTime(at: Date): string {
  return `${new Date(at.getTime() + 8 * 3_600_000).toISOString().slice(0, 19)}+08:00`
}
