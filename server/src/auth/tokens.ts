import { createHash, randomBytes } from 'node:crypto'

export const TOKEN_TTL_MS = 365 * 24 * 60 * 60 * 1000

/** 32 random bytes (256 bits) as base64url: 43 characters. */
export function newToken(): string {
  return randomBytes(32).toString('base64url')
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}
