import { resolve } from 'node:path'
import { z } from 'zod'
import { parsePhone, type Phone } from '../auth/phone.js'
import { knownPermissionCodes } from '../permissions/tree.js'
import { parseChannelSecret } from '../replies/channels-crypto.js'

// The environment's schema: every variable the server reads, checked and defaulted in one place
// (config.ts turns the result into the Config the server uses).

/** Replay events are kept 10 minutes after their last append, so a stream may not idle longer. */
export const MAX_IDLE_TIMEOUT_MS = 600_000

export const DEFAULT_PERMISSIONS = 'AI_TOOLS_CHAT,AI_TOOLS_ROLE,AI_TOOLS_PAINTING,AI_TOOLS_SD,AI_TOOLS_MUSIC,AI_TOOLS_HOT,AI_TOOLS_GALLERY,AI_TOOLS_IMAGE'

export const list = (value: string | undefined) =>
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

/** A size in megabytes (decimals allowed), above 0 and at most `max`. */
const megabytes = (name: string, fallback: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return fallback
      const n = Number(value)
      if (!Number.isFinite(n) || n <= 0 || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a number of megabytes above 0 and at most ${max} (got "${value}")` })
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

/** A comma-separated list of origins (scheme://host[:port]). */
const originList = (name: string) =>
  z
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
          ctx.addIssue({ code: 'custom', message: `${name}: "${item}" is not an origin like https://example.com` })
          continue
        }
        origins.push(origin)
      }
      return origins
    })

export const envSchema = z.object({
  NODE_ENV: z.string().optional(),
  PORT: count('PORT', 8787).refine((port) => port >= 1 && port <= 65535, 'PORT must be between 1 and 65535'),
  HOST: z
    .string()
    .optional()
    .transform((value) => value?.trim() || '127.0.0.1'),
  DATA_DIR: z
    .string()
    .optional()
    .transform((value) => resolve(value?.trim() || './data')),
  DATABASE_URL: optionalUrl('DATABASE_URL', ['postgres:', 'postgresql:']),
  REDIS_URL: optionalUrl('REDIS_URL', ['redis:', 'rediss:']),
  REDIS_PREFIX: z
    .string()
    .optional()
    .transform((value) => value ?? 'lingxi:'),
  PUBLIC_URL: optionalUrl('PUBLIC_URL', ['http:', 'https:']),
  CORS_ORIGINS: originList('CORS_ORIGINS'),
  /** Partner origins (of CORS_ORIGINS) whose pages may see the full phone number; others see it masked (docs/decisions/0019-session-cookie.md). */
  TRUSTED_ORIGINS: originList('TRUSTED_ORIGINS'),
  /** Partners whose backend signs identity assertions (single sign-on): JSON here or in PARTNERS_FILE (config/partners.ts). */
  LINGXI_PARTNERS: z.string().optional(),
  PARTNERS_FILE: z.string().optional(),
  SMS_PROVIDER: z.enum(['console', 'http', 'aliyun', 'tencent'], { error: 'SMS_PROVIDER must be "console" or "http" or "aliyun" or "tencent"' }).optional(),
  SMS_HTTP_URL: optionalUrl('SMS_HTTP_URL', ['http:', 'https:']),
  SMS_HTTP_TOKEN: z.string().optional(),
  SMS_HOURLY_PER_PHONE: count('SMS_HOURLY_PER_PHONE', 5),
  SMS_HOURLY_PER_IP: count('SMS_HOURLY_PER_IP', 30),
  SMS_TIMEOUT_MS: count('SMS_TIMEOUT_MS', 10_000).refine((ms) => ms >= 1, 'SMS_TIMEOUT_MS must be at least 1'),
  ALIYUN_SMS_ACCESS_KEY_ID: z.string().optional(),
  ALIYUN_SMS_ACCESS_KEY_SECRET: z.string().optional(),
  ALIYUN_SMS_SIGN_NAME: z.string().optional(),
  ALIYUN_SMS_TEMPLATE_CODE: z.string().optional(),
  ALIYUN_SMS_ENDPOINT: optionalUrl('ALIYUN_SMS_ENDPOINT', ['http:', 'https:']),
  TENCENT_SMS_SECRET_ID: z.string().optional(),
  TENCENT_SMS_SECRET_KEY: z.string().optional(),
  TENCENT_SMS_SDK_APP_ID: z.string().optional(),
  TENCENT_SMS_SIGN_NAME: z.string().optional(),
  TENCENT_SMS_TEMPLATE_ID: z.string().optional(),
  TENCENT_SMS_REGION: z.string().optional(),
  TENCENT_SMS_ENDPOINT: optionalUrl('TENCENT_SMS_ENDPOINT', ['http:', 'https:']),
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
      // Every new account would be an operator.
      if (codes.includes('ADMIN'))
        ctx.addIssue({ code: 'custom', message: 'DEFAULT_PERMISSIONS: ADMIN may not be given to every new account (use ADMIN_PHONES or lingxi-admin grant)' })
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
  /** Encrypts channel keys at rest (replies/channels-crypto.ts): 32 bytes, base64 or hex (`openssl rand -base64 32`). */
  CHANNEL_SECRET_KEY: z
    .string()
    .optional()
    .refine((v) => !v?.trim() || parseChannelSecret(v) !== undefined, 'CHANNEL_SECRET_KEY must be 32 bytes in base64 or hex (openssl rand -base64 32)'),
  CHAT_TIMEOUT_MS: count('CHAT_TIMEOUT_MS', 60_000).refine((ms) => ms >= 1, 'CHAT_TIMEOUT_MS must be at least 1'),
  CHAT_IDLE_TIMEOUT_MS: count('CHAT_IDLE_TIMEOUT_MS', 120_000).refine(
    (ms) => ms >= 1 && ms <= MAX_IDLE_TIMEOUT_MS,
    `CHAT_IDLE_TIMEOUT_MS must be between 1 and ${MAX_IDLE_TIMEOUT_MS}`
  ),
  CHAT_DEMO_DELAY_MS: count('CHAT_DEMO_DELAY_MS', 25),
  CHAT_TITLE_MODEL: z.string().trim().max(100).optional(),
  CHAT_ATTACHMENT_IMAGE_MB: megabytes('CHAT_ATTACHMENT_IMAGE_MB', 10, 10),
  CHAT_ATTACHMENT_DOCUMENT_MB: megabytes('CHAT_ATTACHMENT_DOCUMENT_MB', 20, 200),
  CHAT_ATTACHMENT_MAX_PAGES: count('CHAT_ATTACHMENT_MAX_PAGES', 50).refine((n) => n >= 1, 'CHAT_ATTACHMENT_MAX_PAGES must be at least 1'),
  CHAT_ATTACHMENT_MAX_CHARS: count('CHAT_ATTACHMENT_MAX_CHARS', 50_000).refine((n) => n >= 1, 'CHAT_ATTACHMENT_MAX_CHARS must be at least 1'),
  CHAT_ATTACHMENT_PER_MESSAGE: count('CHAT_ATTACHMENT_PER_MESSAGE', 8).refine((n) => n >= 1 && n <= 20, 'CHAT_ATTACHMENT_PER_MESSAGE must be between 1 and 20'),
  CHAT_ATTACHMENT_PER_HOUR: count('CHAT_ATTACHMENT_PER_HOUR', 100).refine((n) => n >= 1, 'CHAT_ATTACHMENT_PER_HOUR must be at least 1'),
  CHAT_LEASE_MS: count('CHAT_LEASE_MS', 15_000).refine((ms) => ms >= 300, 'CHAT_LEASE_MS must be at least 300'),
  NODE_ID: z.string().trim().max(200).optional(),
  MJ_PROXY_URL: optionalUrl('MJ_PROXY_URL', ['http:', 'https:']),
  MJ_API_SECRET: z.string().optional(),
  MJ_NOTIFY_SECRET: z.string().optional(),
  MJ_POLL_INTERVAL_MS: count('MJ_POLL_INTERVAL_MS', 5000).refine((ms) => ms >= 100, 'MJ_POLL_INTERVAL_MS must be at least 100'),
  PAINTING_TIMEOUT_MS: count('PAINTING_TIMEOUT_MS', 600_000).refine((ms) => ms >= 1000, 'PAINTING_TIMEOUT_MS must be at least 1000'),
  PAINTING_DEMO_DELAY_MS: count('PAINTING_DEMO_DELAY_MS', 4000),
  A1111_URL: optionalUrl('A1111_URL', ['http:', 'https:']),
  A1111_AUTH: z.string().optional(),
  HOT_API_URL: optionalUrl('HOT_API_URL', ['http:', 'https:']),
  HOT_SOURCES: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const routes = list(value ?? 'weibo,zhihu,baidu,douyin,bilibili,toutiao,36kr,ithome')
      for (const route of routes) {
        if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(route)) ctx.addIssue({ code: 'custom', message: `HOT_SOURCES: "${route}" is not a DailyHotApi route name` })
      }
      return [...new Set(routes)]
    }),
  HOT_RSS_FEEDS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const feeds: { name: string; url: string }[] = []
      for (const item of list(value)) {
        const i = item.indexOf('=')
        const name = i > 0 ? item.slice(0, i).trim() : ''
        const url = i > 0 ? item.slice(i + 1).trim() : ''
        let ok = false
        try {
          ok = name !== '' && ['http:', 'https:'].includes(new URL(url).protocol)
        } catch {}
        if (!ok) {
          ctx.addIssue({ code: 'custom', message: `HOT_RSS_FEEDS: "${item}" is not 名称=https://… (entries separated by commas)` })
          continue
        }
        feeds.push({ name, url })
      }
      return feeds
    }),
  HOT_REFRESH_SECONDS: count('HOT_REFRESH_SECONDS', 0),
  HOT_TIMEOUT_MS: count('HOT_TIMEOUT_MS', 10_000).refine((ms) => ms >= 1, 'HOT_TIMEOUT_MS must be at least 1'),
  SUNO_API_URL: optionalUrl('SUNO_API_URL', ['http:', 'https:']),
  SUNO_API_KEY: z.string().optional(),
  SUNO_MODEL: z.string().optional(),
  MUSIC_POLL_MS: count('MUSIC_POLL_MS', 5000).refine((ms) => ms >= 1, 'MUSIC_POLL_MS must be at least 1'),
  MUSIC_JOB_TIMEOUT_MS: count('MUSIC_JOB_TIMEOUT_MS', 900_000).refine((ms) => ms >= 1, 'MUSIC_JOB_TIMEOUT_MS must be at least 1'),
  MUSIC_DEMO_DELAY_MS: count('MUSIC_DEMO_DELAY_MS', 6000),
  S3_ENDPOINT: optionalUrl('S3_ENDPOINT', ['http:', 'https:']),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_PUBLIC_URL: optionalUrl('S3_PUBLIC_URL', ['http:', 'https:']),
  UPLOAD_SECRET: z.string().optional(),
  WECHAT_APP_ID: z.string().optional(),
  WECHAT_APP_SECRET: z.string().optional(),
  /** The official account (公众号) whose web authorization logs users in inside WeChat; its openids pay by JSAPI. */
  WECHAT_MP_APP_ID: z.string().optional(),
  WECHAT_MP_APP_SECRET: z.string().optional(),
  WECHAT_OPEN_URL: optionalUrl('WECHAT_OPEN_URL', ['http:', 'https:']),
  WECHAT_API_URL: optionalUrl('WECHAT_API_URL', ['http:', 'https:']),
  WECHAT_PAY_URL: optionalUrl('WECHAT_PAY_URL', ['http:', 'https:']),
  WECHAT_PAY_MCH_ID: z.string().optional(),
  WECHAT_PAY_API_KEY: z.string().optional(),
  WECHAT_PAY_APP_ID: z.string().optional(),
  WECHAT_PAY_SIGN_TYPE: z.enum(['MD5', 'HMAC-SHA256'], { error: 'WECHAT_PAY_SIGN_TYPE must be "MD5" or "HMAC-SHA256"' }).optional(),
  WECHAT_PAY_CERT_P12: z.string().optional(),
  WECHAT_PAY_CERT_PASSPHRASE: z.string().optional(),
  WECHAT_PAY_CERT_PEM: z.string().optional(),
  WECHAT_PAY_KEY_PEM: z.string().optional(),
  WECHAT_PAY_SEND_NAME: z.string().optional(),
  WECHAT_PAY_CLIENT_IP: z.string().optional(),
  WECHAT_PAY_TIMEOUT_MS: count('WECHAT_PAY_TIMEOUT_MS', 10_000).refine((ms) => ms >= 1, 'WECHAT_PAY_TIMEOUT_MS must be at least 1'),
  WECHAT_PAY_DEMO_DELAY_MS: count('WECHAT_PAY_DEMO_DELAY_MS', 3000),
  PAY_ORDER_TTL_MS: count('PAY_ORDER_TTL_MS', 900_000).refine((ms) => ms >= 1000, 'PAY_ORDER_TTL_MS must be at least 1000'),
  PAY_DEMO: z.enum(['auto', 'on', 'off'], { error: 'PAY_DEMO must be "auto", "on" or "off"' }).optional(),
  PAY_WECHAT_URL: optionalUrl('PAY_WECHAT_URL', ['http:', 'https:']),
  PAY_WECHAT_MCH_ID: z.string().optional(),
  PAY_WECHAT_APP_ID: z.string().optional(),
  PAY_WECHAT_SERIAL_NO: z.string().optional(),
  PAY_WECHAT_PRIVATE_KEY: z.string().optional(),
  PAY_WECHAT_PLATFORM_KEY: z.string().optional(),
  PAY_WECHAT_PLATFORM_SERIAL: z.string().optional(),
  PAY_WECHAT_API_V3_KEY: z.string().optional(),
  PAY_WECHAT_NOTIFY_URL: optionalUrl('PAY_WECHAT_NOTIFY_URL', ['http:', 'https:']),
  PAY_WECHAT_TIMEOUT_MS: count('PAY_WECHAT_TIMEOUT_MS', 10_000).refine((ms) => ms >= 1, 'PAY_WECHAT_TIMEOUT_MS must be at least 1'),
  ALIPAY_APP_ID: z.string().optional(),
  ALIPAY_PRIVATE_KEY: z.string().optional(),
  ALIPAY_PUBLIC_KEY: z.string().optional(),
  ALIPAY_SELLER_ID: z.string().optional(),
  ALIPAY_GATEWAY: optionalUrl('ALIPAY_GATEWAY', ['http:', 'https:']),
  ALIPAY_NOTIFY_URL: optionalUrl('ALIPAY_NOTIFY_URL', ['http:', 'https:']),
  ALIPAY_RETURN_URL: optionalUrl('ALIPAY_RETURN_URL', ['http:', 'https:']),
  // Content safety (moderation/settings.ts checks the combinations): off unless MODERATION_PROVIDERS is set.
  MODERATION_PROVIDERS: z.string().optional(),
  MODERATION_WORDS_FILE: z.string().optional(),
  MODERATION_ALIYUN_ACCESS_KEY_ID: z.string().optional(),
  MODERATION_ALIYUN_ACCESS_KEY_SECRET: z.string().optional(),
  MODERATION_ALIYUN_ENDPOINT: optionalUrl('MODERATION_ALIYUN_ENDPOINT', ['http:', 'https:']),
  MODERATION_TENCENT_SECRET_ID: z.string().optional(),
  MODERATION_TENCENT_SECRET_KEY: z.string().optional(),
  MODERATION_TENCENT_REGION: z.string().optional(),
  MODERATION_TENCENT_ENDPOINT: optionalUrl('MODERATION_TENCENT_ENDPOINT', ['http:', 'https:']),
  MODERATION_TENCENT_BIZ_TYPE: z.string().optional(),
  MODERATION_OPENAI_BASE_URL: optionalUrl('MODERATION_OPENAI_BASE_URL', ['http:', 'https:']),
  MODERATION_OPENAI_API_KEY: z.string().optional(),
  MODERATION_OPENAI_MODEL: z.string().optional(),
  MODERATION_TIMEOUT_MS: count('MODERATION_TIMEOUT_MS', 3000).refine((ms) => ms >= 1, 'MODERATION_TIMEOUT_MS must be at least 1'),
  MODERATION_FAIL_MODE: z.string().optional(),
  MODERATION_LOG_DAYS: count('MODERATION_LOG_DAYS', 183).refine((days) => days >= 1, 'MODERATION_LOG_DAYS must be at least 1'),
  MODERATION_STREAM_WINDOW: count('MODERATION_STREAM_WINDOW', 120).refine((n) => n >= 10, 'MODERATION_STREAM_WINDOW must be at least 10')
})

/** The checked environment. */
export type Env = z.output<typeof envSchema>

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}
