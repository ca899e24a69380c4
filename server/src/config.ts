import { resolve } from 'node:path'
import { z } from 'zod'
import { parsePhone, type Phone } from './auth/phone.js'
import { paths } from './paths.js'
import { knownPermissionCodes } from './permissions/tree.js'

export interface Config {
  port: number
  host: string
  /** Absolute. Holds pglite/ (embedded database) and config/ (operator overrides). */
  dataDir: string
  databaseUrl: string | undefined
  redisUrl: string | undefined
  /** Prefix of every Redis key, so several deployments can share one Redis. */
  redisPrefix: string
  publicUrl: string
  /** Origins (scheme://host[:port]) that may call the API from the browser. */
  corsOrigins: string[]
  sms: {
    provider: 'console' | 'http'
    httpUrl: string | undefined
    httpToken: string | undefined
    hourlyPerPhone: number
    hourlyPerIp: number
  }
  /** Review and test accounts that log in without an SMS code. */
  loginWithoutCodePhones: Phone[]
  start: { tokens: number; mjCount: number; sunoCount: number }
  defaultPermissions: string[]
  /** How many reverse proxies in front of the server append to X-Forwarded-For (0: trust none). */
  trustProxy: number
  /** The frontend build (dist/ with cdn/ and site/); served when the folder exists. */
  staticRoot: string
  production: boolean
  chat: ChatSettings
}

export interface ChatSettings {
  /** The OpenAI-compatible upstream; undefined without OPENAI_API_KEY (only the demo model is offered). */
  openai: { baseUrl: string; apiKey: string; models: string[] } | undefined
  /** No first event from the upstream within this time: the reply ends with status timeout. */
  firstByteTimeoutMs: number
  /** No new event from the upstream within this time once streaming: status timeout. */
  idleTimeoutMs: number
  /** Pause between chunks of the offline demo model. */
  demoDelayMs: number
}

/** Replay events are kept 10 minutes after their last append, so a stream may not idle longer. */
export const MAX_IDLE_TIMEOUT_MS = 600_000

export const DEFAULT_PERMISSIONS =
  'AI_TOOLS_CHAT,AI_TOOLS_ROLE,AI_TOOLS_PAINTING,AI_TOOLS_SD,AI_TOOLS_MUSIC,AI_TOOLS_HOT,AI_TOOLS_GALLERY,AI_TOOLS_IMAGE'

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')

const count = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return fallback
      const n = Number(value)
      if (!Number.isSafeInteger(n) || n < 0) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a whole number ≥ 0 (got "${value}")` })
        return z.NEVER
      }
      return n
    })

const optionalUrl = (name: string, protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined
      let url: URL
      try {
        url = new URL(value)
      } catch {
        ctx.addIssue({ code: 'custom', message: `${name} must be a URL (got "${value}")` })
        return z.NEVER
      }
      if (!protocols.includes(url.protocol)) {
        ctx.addIssue({ code: 'custom', message: `${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}` })
        return z.NEVER
      }
      return value
    })

const envSchema = z.object({
  NODE_ENV: z.string().optional(),
  PORT: count('PORT', 8787).refine((port) => port >= 1 && port <= 65535, 'PORT must be between 1 and 65535'),
  HOST: z.string().optional().transform((value) => value?.trim() || '127.0.0.1'),
  DATA_DIR: z.string().optional().transform((value) => resolve(value?.trim() || './data')),
  DATABASE_URL: optionalUrl('DATABASE_URL', ['postgres:', 'postgresql:']),
  REDIS_URL: optionalUrl('REDIS_URL', ['redis:', 'rediss:']),
  REDIS_PREFIX: z.string().optional().transform((value) => value ?? 'lingxi:'),
  PUBLIC_URL: optionalUrl('PUBLIC_URL', ['http:', 'https:']),
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const origins: string[] = []
      for (const item of list(value)) {
        let origin: string | undefined
        try {
          const url = new URL(item)
          if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin
        } catch {}
        // An origin is scheme://host[:port]; anything more would never match a browser's Origin header.
        if (origin === undefined || origin !== item.replace(/\/$/, '')) {
          ctx.addIssue({ code: 'custom', message: `CORS_ORIGINS: "${item}" is not an origin like https://example.com` })
          continue
        }
        origins.push(origin)
      }
      return origins
    }),
  SMS_PROVIDER: z.enum(['console', 'http'], { error: 'SMS_PROVIDER must be "console" or "http"' }).optional(),
  SMS_HTTP_URL: optionalUrl('SMS_HTTP_URL', ['http:', 'https:']),
  SMS_HTTP_TOKEN: z.string().optional(),
  SMS_HOURLY_PER_PHONE: count('SMS_HOURLY_PER_PHONE', 5),
  SMS_HOURLY_PER_IP: count('SMS_HOURLY_PER_IP', 30),
  LOGIN_WITHOUT_CODE_PHONES: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const phones: Phone[] = []
      for (const item of list(value)) {
        const [enCode, phone] = item.includes(':') ? item.split(':', 2) : ['86', item]
        const parsed = parsePhone(enCode ?? '', phone ?? '')
        if (!parsed) {
          ctx.addIssue({
            code: 'custom',
            message: `LOGIN_WITHOUT_CODE_PHONES: "${item}" is not a valid phone (write 86:13800000000, or a plain +86 number)`
          })
          continue
        }
        phones.push(parsed)
      }
      return phones
    }),
  START_TOKENS: count('START_TOKENS', 100000),
  START_MJ_COUNT: count('START_MJ_COUNT', 20),
  START_SUNO_COUNT: count('START_SUNO_COUNT', 10),
  DEFAULT_PERMISSIONS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const codes = list(value ?? DEFAULT_PERMISSIONS)
      const known = knownPermissionCodes()
      const unknown = codes.filter((code) => !known.includes(code))
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `DEFAULT_PERMISSIONS: unknown code ${unknown.join(', ')} (known: ${known.join(', ')})`
        })
      }
      return [...new Set(codes)]
    }),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const v = value?.trim().toLowerCase() ?? ''
      if (v === '' || v === 'false') return 0
      if (v === 'true') return 1
      const n = Number(v)
      if (!Number.isSafeInteger(n) || n < 0) {
        ctx.addIssue({ code: 'custom', message: `TRUST_PROXY must be 0, 1 (one proxy) or the number of proxies (got "${value}")` })
        return z.NEVER
      }
      return n
    }),
  STATIC_ROOT: z.string().optional(),
  OPENAI_BASE_URL: optionalUrl('OPENAI_BASE_URL', ['http:', 'https:']),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_MODELS: z.string().optional(),
  CHAT_TIMEOUT_MS: count('CHAT_TIMEOUT_MS', 60_000).refine((ms) => ms >= 1, 'CHAT_TIMEOUT_MS must be at least 1'),
  CHAT_IDLE_TIMEOUT_MS: count('CHAT_IDLE_TIMEOUT_MS', 120_000).refine(
    (ms) => ms >= 1 && ms <= MAX_IDLE_TIMEOUT_MS,
    `CHAT_IDLE_TIMEOUT_MS must be between 1 and ${MAX_IDLE_TIMEOUT_MS}`
  ),
  CHAT_DEMO_DELAY_MS: count('CHAT_DEMO_DELAY_MS', 25)
})

/** `https://api.example.com`, `…/` and `…/v1` all mean the same base: requests go to `{base}/v1/chat/completions`. */
export function normalizeOpenAiBase(url: string): string {
  return url.trim().replace(/\/+$/, '').replace(/\/v1$/, '')
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/** The one place that reads the environment. Throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = envSchema.safeParse(env)
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.join('.')
        return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`
      })
    )
  }
  const e = result.data
  const provider = e.SMS_PROVIDER ?? 'console'
  if (provider === 'http' && !e.SMS_HTTP_URL) {
    throw new ConfigError(['SMS_HTTP_URL is required when SMS_PROVIDER=http'])
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    publicUrl: (e.PUBLIC_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(/\/$/, ''),
    corsOrigins: e.CORS_ORIGINS,
    sms: {
      provider,
      httpUrl: e.SMS_HTTP_URL,
      httpToken: e.SMS_HTTP_TOKEN || undefined,
      hourlyPerPhone: e.SMS_HOURLY_PER_PHONE,
      hourlyPerIp: e.SMS_HOURLY_PER_IP
    },
    loginWithoutCodePhones: e.LOGIN_WITHOUT_CODE_PHONES,
    start: { tokens: e.START_TOKENS, mjCount: e.START_MJ_COUNT, sunoCount: e.START_SUNO_COUNT },
    defaultPermissions: e.DEFAULT_PERMISSIONS,
    trustProxy: e.TRUST_PROXY,
    staticRoot: e.STATIC_ROOT?.trim() ? resolve(e.STATIC_ROOT.trim()) : paths.defaultStaticRoot,
    production: e.NODE_ENV === 'production',
    chat: {
      openai: e.OPENAI_API_KEY?.trim()
        ? {
            baseUrl: normalizeOpenAiBase(e.OPENAI_BASE_URL ?? 'https://api.openai.com'),
            apiKey: e.OPENAI_API_KEY.trim(),
            models: [...new Set(list(e.OPENAI_MODELS))]
          }
        : undefined,
      firstByteTimeoutMs: e.CHAT_TIMEOUT_MS,
      idleTimeoutMs: e.CHAT_IDLE_TIMEOUT_MS,
      demoDelayMs: e.CHAT_DEMO_DELAY_MS
    }
  }
}
