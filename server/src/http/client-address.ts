import type { HttpBindings } from '@hono/node-server'
import type { Context } from 'hono'
import { requestHeader } from './request-header.js'

/**
 * The address a request came from, for per-address rate limits. X-Forwarded-For is only
 * believed for as many hops as there are trusted proxies: each proxy appends the address it
 * saw, so the entry `trustProxy` from the right is the first one a client could not forge.
 */
export function clientAddress(c: Context, trustProxy: number): string {
  const socket = (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket
  const direct = socket?.remoteAddress ?? 'unknown'
  if (trustProxy <= 0) return direct
  const hops = (requestHeader(c, 'x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return hops[hops.length - trustProxy] ?? hops[0] ?? direct
}
