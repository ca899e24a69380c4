import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { z } from 'zod'
import { knownPermissionCodes } from '../permissions/tree.js'

// Partners (issue 16, item 3; docs/decisions/0020-partner-sso.md): sites whose backend signs an
// identity assertion that logs their user in without SMS. Read at start from LINGXI_PARTNERS (JSON)
// or PARTNERS_FILE (a JSON file), never both; every problem is listed at once.

export interface PartnerSettings {
  /** The assertion's `iss`; letters, digits, `-` and `_`. */
  id: string
  /** Shown to operators (the console lists partners). */
  name: string
  /** The only origins that may identify through this partner, and from which its sessions work. */
  origins: string[]
  /** The HMAC-SHA256 key (≥ 32 bytes, UTF-8) the partner's backend signs assertions with. */
  secret: string
  /** Permission codes its new users get (the tools they may use). */
  permissions: string[]
  /** Starting allowance of its new users by kind id; kinds not given use START_*. */
  start: Record<string, number>
  /** Its pages see the full phone number (like TRUSTED_ORIGINS). */
  trusted: boolean
}

const origin = z.string().transform((value, ctx) => {
  let parsed: string | undefined
  try {
    const url = new URL(value)
    if (url.protocol === 'http:' || url.protocol === 'https:') parsed = url.origin
  } catch {}
  if (parsed === undefined || parsed !== value.replace(/\/$/, '')) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not an origin like https://example.com` })
    return z.NEVER
  }
  return parsed
})

const amount = z.number().int().min(0)

const partnerSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'id must be 1–40 letters, digits, - or _'),
  name: z.string().trim().max(60).optional(),
  origins: z.array(origin).min(1, 'origins must name at least one origin'),
  secret: z.string().refine((s) => Buffer.byteLength(s, 'utf8') >= 32, 'secret must be at least 32 bytes (e.g. openssl rand -base64 48)'),
  permissions: z.array(z.string()).optional(),
  start: z.object({ tokens: amount.optional(), mj: amount.optional(), suno: amount.optional() }).strict().optional(),
  trusted: z.boolean().optional()
})

/**
 * The partners of LINGXI_PARTNERS / PARTNERS_FILE, checked: unique ids, secrets of at least 32
 * bytes, known permission codes (never ADMIN). `defaults` fills what a partner leaves out.
 */
export function partnerSettings(
  env: { LINGXI_PARTNERS?: string | undefined; PARTNERS_FILE?: string | undefined },
  defaults: { start: Record<string, number>; permissions: string[] },
  problems: string[]
): PartnerSettings[] {
  const inline = env.LINGXI_PARTNERS?.trim()
  const file = env.PARTNERS_FILE?.trim()
  if (inline && file) {
    problems.push('LINGXI_PARTNERS and PARTNERS_FILE: set one of them, not both')
    return []
  }
  const source = inline ? 'LINGXI_PARTNERS' : 'PARTNERS_FILE'
  let text = inline
  if (file) {
    try {
      text = readFileSync(resolve(file), 'utf8')
    } catch (error) {
      problems.push(`PARTNERS_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
      return []
    }
  }
  if (!text) return []
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    problems.push(`${source}: not valid JSON (expected [{"id":…,"origins":[…],"secret":…}, …])`)
    return []
  }
  const parsed = z.array(partnerSchema).safeParse(value)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${source}[${issue.path.join('.')}]: ${issue.message}`)
    return []
  }
  const known = knownPermissionCodes()
  const seen = new Set<string>()
  const partners: PartnerSettings[] = []
  for (const p of parsed.data) {
    if (seen.has(p.id)) problems.push(`${source}: partner id "${p.id}" appears twice`)
    seen.add(p.id)
    const permissions = [...new Set(p.permissions ?? defaults.permissions)]
    const unknown = permissions.filter((code) => !known.includes(code))
    if (unknown.length > 0) problems.push(`${source}: partner "${p.id}" has unknown permission ${unknown.join(', ')}`)
    if (permissions.includes('ADMIN')) problems.push(`${source}: partner "${p.id}" may not give ADMIN to its users`)
    partners.push({
      id: p.id,
      name: p.name || p.id,
      origins: [...new Set(p.origins)],
      secret: p.secret,
      permissions,
      start: { ...defaults.start, ...p.start },
      trusted: p.trusted ?? false
    })
  }
  return partners
}
