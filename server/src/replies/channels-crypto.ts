import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * Channel keys at rest: AES-256-GCM under CHANNEL_SECRET_KEY (32 bytes, base64 or hex), a fresh
 * 12-byte IV per key, stored as `v1.<iv>.<tag>.<ciphertext>` in base64url. The clear key lives
 * only in this process's memory; the database, the API and the console see the last 4 characters.
 */
const PREFIX = 'v1'

/** CHANNEL_SECRET_KEY as a 32-byte key; undefined when it is not one (env.ts reports it). */
export function parseChannelSecret(value: string | undefined): Buffer | undefined {
  const text = value?.trim()
  if (!text) return undefined
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64')
  return key.length === 32 ? key : undefined
}

export function encryptKey(secret: Buffer, clear: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', secret, iv)
  const body = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()])
  return [PREFIX, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.')
}

/** Throws when the text was not made by encryptKey under this secret (a changed CHANNEL_SECRET_KEY). */
export function decryptKey(secret: Buffer, sealed: string): string {
  const [prefix, iv, tag, body] = sealed.split('.')
  if (prefix !== PREFIX || !iv || !tag || body === undefined) throw new Error('not a sealed channel key')
  const decipher = createDecipheriv('aes-256-gcm', secret, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}

/** What the console shows of a key. */
export const keyHint = (key: string) => key.slice(-4)
