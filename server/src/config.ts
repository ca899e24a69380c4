import { createPrivateKey, createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
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
  sms: SmsSettings
  /** Review and test accounts that log in without an SMS code. */
  loginWithoutCodePhones: Phone[]
  /** What a new account starts with, by allowance kind id (the kinds: allowances/registry.ts). */
  start: Record<string, number>
  defaultPermissions: string[]
  /** How many reverse proxies in front of the server append to X-Forwarded-For (0: trust none). */
  trustProxy: number
  /**
   * With several nodes on one database: a reply `streaming` whose row no node touched for this
   * long lost its node; every node's sweep ends it (interrput, keeping what was streamed).
   */
  chatLeaseMs: number
  /**
   * This node's name, saved on the replies it generates; a node that restarts under the same name
   * ends its own orphans at once instead of waiting for their lease. Default: hostname:port.
   */
  nodeId: string
  /** The frontend build (dist/ with cdn/ and site/); served when the folder exists. */
  staticRoot: string
  production: boolean
  hot: HotSettings
  music: MusicSettings
  chat: ChatSettings
  storage: StorageSettings
  painting: PaintingSettings
  wechat: WechatSettings
  payments: PaymentSettings
}

/** Online recharge (modules/payments): the providers offered and how long an order may wait. */
export interface PaymentSettings {
  /** An unpaid order closes after this long (and is closed at its provider). */
  orderTtlMs: number
  /** The offline 演示支付 provider: on by PAY_DEMO=on, or by default when no real provider is configured outside production. */
  demo: boolean
  /** WeChat Pay API v3; undefined without PAY_WECHAT_MCH_ID. Keys are read (and checked) at start. */
  wechat:
    | {
        baseUrl: string
        mchId: string
        appId: string
        /** The serial number of the merchant API certificate (Authorization's serial_no). */
        serialNo: string
        /** apiclient_key.pem, PKCS#8 PEM text. */
        privateKey: string
        /** The WeChat Pay public key (or platform certificate) PEM text that verifies answers and notifies. */
        platformKey: string
        /** Its id (PUB_KEY_ID_…) or certificate serial: the Wechatpay-Serial a notify must carry. */
        platformSerial: string
        /** The APIv3 key (32 bytes) that decrypts notify resources. */
        apiV3Key: string
        notifyUrl: string
        timeoutMs: number
      }
    | undefined
  /** Alipay (open platform, RSA2); undefined without ALIPAY_APP_ID. */
  alipay:
    | {
        gateway: string
        appId: string
        /** The app private key (PKCS#8 or PKCS#1 PEM text). */
        privateKey: string
        /** The Alipay public key PEM text that verifies answers and notifies. */
        alipayPublicKey: string
        /** The seller (PID) a notify must name, when given. */
        sellerId: string | undefined
        notifyUrl: string
        /** Where Alipay sends the payer back after paying (the site). */
        returnUrl: string | undefined
        timeoutMs: number
      }
    | undefined
}

export interface SmsSettings {
  provider: 'console' | 'http' | 'aliyun' | 'tencent'
  httpUrl: string | undefined
  httpToken: string | undefined
  hourlyPerPhone: number
  hourlyPerIp: number
  /** One call to the SMS provider may take this long (then the send fails and the code is void). */
  timeoutMs: number
  /** Aliyun SMS (dysmsapi SendSms); set when SMS_PROVIDER=aliyun. */
  aliyun: { accessKeyId: string; accessKeySecret: string; signName: string; templateCode: string; endpoint: string } | undefined
  /** Tencent Cloud SMS (SendSms 2021-01-11); set when SMS_PROVIDER=tencent. */
  tencent: { secretId: string; secretKey: string; sdkAppId: string; signName: string; templateId: string; region: string; endpoint: string } | undefined
}

export interface WechatSettings {
  /** Open Platform website app (QR login); undefined without WECHAT_APP_ID and WECHAT_APP_SECRET. */
  oauth: { appId: string; appSecret: string; openBase: string; apiBase: string } | undefined
  /** WeChat Pay v2 cash red packets; undefined without WECHAT_PAY_MCH_ID: the offline demo payer. */
  pay:
    | {
        baseUrl: string
        mchId: string
        apiKey: string
        /** wxappid: the official account (or app) whose openids receive packets. */
        appId: string
        signType: 'MD5' | 'HMAC-SHA256'
        cert: { pfxPath: string; passphrase: string } | { certPath: string; keyPath: string } | undefined
        sendName: string
        clientIp: string
        timeoutMs: number
      }
    | undefined
  /** How long the demo payer's packet takes from SENDING to SENT and from SENT to RECEIVED. */
  demoDelayMs: number
}

export interface PaintingSettings {
  /** A midjourney-proxy (or compatible relay); undefined: the offline demo painter draws MJ jobs. */
  mjProxy: { baseUrl: string; apiSecret: string | undefined } | undefined
  /** Signs the notifyHook URL given to midjourney-proxy; undefined: no callbacks, polling only. */
  notifySecret: string | undefined
  /** How often unfinished midjourney-proxy tasks are polled (and timeouts checked). */
  pollIntervalMs: number
  /** A painting task unfinished after this long ends as TIMEOUT (allowance given back). */
  timeoutMs: number
  /** AUTOMATIC1111 (`--api`); undefined: the demo painter draws SD jobs. */
  a1111: { baseUrl: string; auth: string | undefined } | undefined
  /** How long one demo painting takes, progress included. */
  demoDelayMs: number
}

export interface StorageSettings {
  /** An S3-compatible bucket; undefined: files go to `${dataDir}/files`, served at /files/{key}. */
  s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string; publicUrl: string } | undefined
  /** Signs local upload URLs; undefined: a random secret kept in `${dataDir}/upload-secret`. */
  uploadSecret: string | undefined
}

export interface HotSettings {
  /** A DailyHotApi-compatible server (`GET {base}/{route}`); undefined: no such lists. */
  apiUrl: string | undefined
  /** DailyHotApi routes offered as sources (weibo, zhihu, …). */
  sources: string[]
  /** RSS/Atom feeds offered as sources. */
  feeds: { name: string; url: string }[]
  /** Overrides every source's refresh interval (seconds); undefined: per-source defaults. */
  refreshSeconds: number | undefined
  /** One fetch of a list may take this long. */
  timeoutMs: number
}

export interface MusicSettings {
  /** A gcui-art/suno-api server; undefined: the offline demo composer. */
  sunoApiUrl: string | undefined
  /** Sent as `Authorization: Bearer …` when set (gateways in front of suno-api). */
  sunoApiKey: string | undefined
  sunoModel: string
  /** How often unfinished clips are polled. */
  pollMs: number
  /** A request whose clips are not finished after this long ends in error (and is refunded). */
  jobTimeoutMs: number
  /** How long the demo composer takes from submitted to complete. */
  demoDelayMs: number
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

export const DEFAULT_PERMISSIONS = 'AI_TOOLS_CHAT,AI_TOOLS_ROLE,AI_TOOLS_PAINTING,AI_TOOLS_SD,AI_TOOLS_MUSIC,AI_TOOLS_HOT,AI_TOOLS_GALLERY,AI_TOOLS_IMAGE'

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
  CHAT_DEMO_DELAY_MS: count('CHAT_DEMO_DELAY_MS', 25),
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
  ALIPAY_RETURN_URL: optionalUrl('ALIPAY_RETURN_URL', ['http:', 'https:'])
})

/** `https://api.example.com`, `…/` and `…/v1` all mean the same base: requests go to `{base}/v1/chat/completions`. */
export function normalizeOpenAiBase(url: string): string {
  return url.trim().replace(/\/+$/, '').replace(/\/v1$/, '')
}

/**
 * Every secret the configuration holds, so the logger can scrub them (an upstream may echo its
 * key in an error body, a library may put a URL with its password in an error). A new secret
 * setting belongs in this list.
 */
export function configuredSecrets(config: Config): string[] {
  const password = (url: string | undefined) => {
    try {
      const p = url ? new URL(url).password : ''
      return p ? [p, decodeURIComponent(p)] : []
    } catch {
      return []
    }
  }
  // A1111_AUTH is user:pass; the password may also show up alone.
  const auth = config.painting.a1111?.auth
  const pay = config.wechat.pay
  const secrets = [
    config.chat.openai?.apiKey,
    config.music.sunoApiKey,
    config.painting.mjProxy?.apiSecret,
    config.painting.notifySecret,
    auth,
    auth?.includes(':') ? auth.slice(auth.indexOf(':') + 1) : undefined,
    config.sms.httpToken,
    config.sms.aliyun?.accessKeySecret,
    config.sms.tencent?.secretKey,
    config.storage.s3?.secretAccessKey,
    config.storage.uploadSecret,
    config.wechat.oauth?.appSecret,
    pay?.apiKey,
    config.payments.wechat?.privateKey,
    config.payments.wechat?.apiV3Key,
    config.payments.alipay?.privateKey,
    // The passphrase defaults to the merchant id, which is no secret and is part of every bill number.
    pay?.cert && 'passphrase' in pay.cert && pay.cert.passphrase !== pay.mchId ? pay.cert.passphrase : undefined,
    ...password(config.databaseUrl),
    ...password(config.redisUrl)
  ]
  return [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.trim() !== ''))]
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
  const sms = smsSettings(e)
  const s3 = s3Settings(e)
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    publicUrl: (e.PUBLIC_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(/\/$/, ''),
    corsOrigins: e.CORS_ORIGINS,
    sms,
    loginWithoutCodePhones: e.LOGIN_WITHOUT_CODE_PHONES,
    start: { tokens: e.START_TOKENS, mj: e.START_MJ_COUNT, suno: e.START_SUNO_COUNT },
    defaultPermissions: e.DEFAULT_PERMISSIONS,
    trustProxy: e.TRUST_PROXY,
    staticRoot: e.STATIC_ROOT?.trim() ? resolve(e.STATIC_ROOT.trim()) : paths.defaultStaticRoot,
    production: e.NODE_ENV === 'production',
    hot: {
      apiUrl: e.HOT_API_URL?.replace(/\/+$/, ''),
      sources: e.HOT_SOURCES,
      feeds: e.HOT_RSS_FEEDS,
      refreshSeconds: e.HOT_REFRESH_SECONDS > 0 ? e.HOT_REFRESH_SECONDS : undefined,
      timeoutMs: e.HOT_TIMEOUT_MS
    },
    music: {
      sunoApiUrl: e.SUNO_API_URL?.replace(/\/+$/, ''),
      sunoApiKey: e.SUNO_API_KEY?.trim() || undefined,
      sunoModel: e.SUNO_MODEL?.trim() || 'chirp-v3-5',
      pollMs: e.MUSIC_POLL_MS,
      jobTimeoutMs: e.MUSIC_JOB_TIMEOUT_MS,
      demoDelayMs: e.MUSIC_DEMO_DELAY_MS
    },
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
    },
    chatLeaseMs: e.CHAT_LEASE_MS,
    nodeId: e.NODE_ID || `${hostname()}:${e.PORT}`,
    storage: { s3, uploadSecret: e.UPLOAD_SECRET?.trim() || undefined },
    painting: {
      mjProxy: e.MJ_PROXY_URL ? { baseUrl: e.MJ_PROXY_URL.replace(/\/+$/, ''), apiSecret: e.MJ_API_SECRET?.trim() || undefined } : undefined,
      notifySecret: e.MJ_NOTIFY_SECRET?.trim() || undefined,
      pollIntervalMs: e.MJ_POLL_INTERVAL_MS,
      timeoutMs: e.PAINTING_TIMEOUT_MS,
      a1111: e.A1111_URL ? { baseUrl: e.A1111_URL.replace(/\/+$/, ''), auth: e.A1111_AUTH?.trim() || undefined } : undefined,
      demoDelayMs: e.PAINTING_DEMO_DELAY_MS
    },
    wechat: wechatSettings(e),
    payments: paymentSettings(e)
  }
}

/**
 * WeChat Pay v3 is on with PAY_WECHAT_MCH_ID, Alipay with ALIPAY_APP_ID; then every key must be
 * given and readable, or the server does not start. The demo is offered when asked for, or when nothing real is.
 */
function paymentSettings(e: z.output<typeof envSchema>): PaymentSettings {
  const problems: string[] = []
  const need = (name: keyof typeof e, when: string) => {
    const value = String(e[name] ?? '').trim()
    if (!value) problems.push(`${name} is required when ${when} is set`)
    return value
  }
  const pem = (name: keyof typeof e, when: string, kind: 'private' | 'public') => {
    const path = need(name, when)
    if (!path) return ''
    let text: string
    try {
      text = readFileSync(resolve(path), 'utf8')
    } catch (error) {
      problems.push(`${name}: cannot read ${resolve(path)} (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
      return ''
    }
    try {
      if (kind === 'private') createPrivateKey(text)
      else createPublicKey(text)
    } catch {
      problems.push(`${name}: ${resolve(path)} is not a PEM ${kind === 'private' ? 'private key' : 'public key or certificate'}`)
      return ''
    }
    return text
  }
  const publicUrl = (e.PUBLIC_URL ?? '').replace(/\/+$/, '')
  const notifyUrl = (given: string | undefined, provider: string, when: string) => {
    const url = given ?? (publicUrl ? `${publicUrl}/api/v1/pay/notify/${provider}` : '')
    if (!url)
      problems.push(
        `PUBLIC_URL (or ${provider === 'wechat' ? 'PAY_WECHAT_NOTIFY_URL' : 'ALIPAY_NOTIFY_URL'}) is required when ${when} is set: notifies are sent there`
      )
    return url
  }
  let wechat: PaymentSettings['wechat']
  const mchId = e.PAY_WECHAT_MCH_ID?.trim()
  if (mchId) {
    const when = 'PAY_WECHAT_MCH_ID'
    const appId = need('PAY_WECHAT_APP_ID', when)
    const serialNo = need('PAY_WECHAT_SERIAL_NO', when)
    const privateKey = pem('PAY_WECHAT_PRIVATE_KEY', when, 'private')
    const platformKey = pem('PAY_WECHAT_PLATFORM_KEY', when, 'public')
    const platformSerial = need('PAY_WECHAT_PLATFORM_SERIAL', when)
    const apiV3Key = need('PAY_WECHAT_API_V3_KEY', when)
    if (apiV3Key && Buffer.byteLength(apiV3Key) !== 32) problems.push('PAY_WECHAT_API_V3_KEY must be the 32-character APIv3 key')
    wechat = {
      baseUrl: (e.PAY_WECHAT_URL ?? 'https://api.mch.weixin.qq.com').replace(/\/+$/, ''),
      mchId,
      appId,
      serialNo,
      privateKey,
      platformKey,
      platformSerial,
      apiV3Key,
      notifyUrl: notifyUrl(e.PAY_WECHAT_NOTIFY_URL, 'wechat', when),
      timeoutMs: e.PAY_WECHAT_TIMEOUT_MS
    }
  }
  let alipay: PaymentSettings['alipay']
  const alipayAppId = e.ALIPAY_APP_ID?.trim()
  if (alipayAppId) {
    const when = 'ALIPAY_APP_ID'
    alipay = {
      gateway: e.ALIPAY_GATEWAY ?? 'https://openapi.alipay.com/gateway.do',
      appId: alipayAppId,
      privateKey: pem('ALIPAY_PRIVATE_KEY', when, 'private'),
      alipayPublicKey: pem('ALIPAY_PUBLIC_KEY', when, 'public'),
      sellerId: e.ALIPAY_SELLER_ID?.trim() || undefined,
      notifyUrl: notifyUrl(e.ALIPAY_NOTIFY_URL, 'alipay', when),
      returnUrl: e.ALIPAY_RETURN_URL ?? (publicUrl ? `${publicUrl}/` : undefined),
      timeoutMs: e.PAY_WECHAT_TIMEOUT_MS
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  const mode = e.PAY_DEMO ?? 'auto'
  const demo = mode === 'on' || (mode === 'auto' && !wechat && !alipay && e.NODE_ENV !== 'production')
  return { orderTtlMs: e.PAY_ORDER_TTL_MS, demo, wechat, alipay }
}

/** WeChat login is on with WECHAT_APP_ID + WECHAT_APP_SECRET; WeChat Pay with WECHAT_PAY_MCH_ID (then key, app id and, over https, a certificate). */
function wechatSettings(e: z.output<typeof envSchema>): WechatSettings {
  const appId = e.WECHAT_APP_ID?.trim()
  const appSecret = e.WECHAT_APP_SECRET?.trim()
  const oauth =
    appId && appSecret
      ? {
          appId,
          appSecret,
          openBase: (e.WECHAT_OPEN_URL ?? 'https://open.weixin.qq.com').replace(/\/+$/, ''),
          apiBase: (e.WECHAT_API_URL ?? 'https://api.weixin.qq.com').replace(/\/+$/, '')
        }
      : undefined
  const mchId = e.WECHAT_PAY_MCH_ID?.trim()
  let pay: WechatSettings['pay']
  if (mchId) {
    const problems: string[] = []
    const apiKey = e.WECHAT_PAY_API_KEY?.trim() ?? ''
    if (!apiKey) problems.push('WECHAT_PAY_API_KEY is required when WECHAT_PAY_MCH_ID is set')
    const payAppId = e.WECHAT_PAY_APP_ID?.trim() || appId || ''
    if (!payAppId) problems.push('WECHAT_PAY_APP_ID (or WECHAT_APP_ID) is required when WECHAT_PAY_MCH_ID is set')
    const baseUrl = (e.WECHAT_PAY_URL ?? 'https://api.mch.weixin.qq.com').replace(/\/+$/, '')
    const p12 = e.WECHAT_PAY_CERT_P12?.trim()
    const pem = e.WECHAT_PAY_CERT_PEM?.trim()
    const key = e.WECHAT_PAY_KEY_PEM?.trim()
    let cert: NonNullable<WechatSettings['pay']>['cert']
    if (p12) cert = { pfxPath: resolve(p12), passphrase: e.WECHAT_PAY_CERT_PASSPHRASE ?? mchId }
    else if (pem && key) cert = { certPath: resolve(pem), keyPath: resolve(key) }
    else if (pem || key) problems.push('WECHAT_PAY_CERT_PEM and WECHAT_PAY_KEY_PEM go together')
    // Red packets need the merchant's client certificate; only a plain-http stand-in (a test fake) does without.
    if (!cert && baseUrl.startsWith('https:'))
      problems.push('WECHAT_PAY_CERT_P12 (apiclient_cert.p12) or WECHAT_PAY_CERT_PEM + WECHAT_PAY_KEY_PEM is required for WeChat Pay')
    if (problems.length > 0) throw new ConfigError(problems)
    pay = {
      baseUrl,
      mchId,
      apiKey,
      appId: payAppId,
      signType: e.WECHAT_PAY_SIGN_TYPE ?? 'MD5',
      cert,
      sendName: e.WECHAT_PAY_SEND_NAME?.trim() || '灵犀',
      clientIp: e.WECHAT_PAY_CLIENT_IP?.trim() || '127.0.0.1',
      timeoutMs: e.WECHAT_PAY_TIMEOUT_MS
    }
  }
  return { oauth, pay, demoDelayMs: e.WECHAT_PAY_DEMO_DELAY_MS }
}

/** SMS_PROVIDER picks the provider; each real one needs all of its settings, or the server does not start. */
function smsSettings(e: z.output<typeof envSchema>): SmsSettings {
  const provider = e.SMS_PROVIDER ?? 'console'
  if (provider === 'http' && !e.SMS_HTTP_URL) throw new ConfigError(['SMS_HTTP_URL is required when SMS_PROVIDER=http'])
  const required = <const N extends keyof typeof e>(names: readonly N[]) => {
    const missing = names.filter((name) => !String(e[name] ?? '').trim())
    if (missing.length > 0) throw new ConfigError(missing.map((name) => `${name} is required when SMS_PROVIDER=${provider}`))
    return (name: N) => String(e[name]).trim()
  }
  let aliyun: SmsSettings['aliyun']
  let tencent: SmsSettings['tencent']
  if (provider === 'aliyun') {
    const get = required(['ALIYUN_SMS_ACCESS_KEY_ID', 'ALIYUN_SMS_ACCESS_KEY_SECRET', 'ALIYUN_SMS_SIGN_NAME', 'ALIYUN_SMS_TEMPLATE_CODE'] as const)
    aliyun = {
      accessKeyId: get('ALIYUN_SMS_ACCESS_KEY_ID'),
      accessKeySecret: get('ALIYUN_SMS_ACCESS_KEY_SECRET'),
      signName: get('ALIYUN_SMS_SIGN_NAME'),
      templateCode: get('ALIYUN_SMS_TEMPLATE_CODE'),
      endpoint: (e.ALIYUN_SMS_ENDPOINT ?? 'https://dysmsapi.aliyuncs.com').replace(/\/+$/, '')
    }
  }
  if (provider === 'tencent') {
    const get = required([
      'TENCENT_SMS_SECRET_ID',
      'TENCENT_SMS_SECRET_KEY',
      'TENCENT_SMS_SDK_APP_ID',
      'TENCENT_SMS_SIGN_NAME',
      'TENCENT_SMS_TEMPLATE_ID'
    ] as const)
    tencent = {
      secretId: get('TENCENT_SMS_SECRET_ID'),
      secretKey: get('TENCENT_SMS_SECRET_KEY'),
      sdkAppId: get('TENCENT_SMS_SDK_APP_ID'),
      signName: get('TENCENT_SMS_SIGN_NAME'),
      templateId: get('TENCENT_SMS_TEMPLATE_ID'),
      region: e.TENCENT_SMS_REGION?.trim() || 'ap-guangzhou',
      endpoint: (e.TENCENT_SMS_ENDPOINT ?? 'https://sms.tencentcloudapi.com').replace(/\/+$/, '')
    }
  }
  return {
    provider,
    httpUrl: e.SMS_HTTP_URL,
    httpToken: e.SMS_HTTP_TOKEN || undefined,
    hourlyPerPhone: e.SMS_HOURLY_PER_PHONE,
    hourlyPerIp: e.SMS_HOURLY_PER_IP,
    timeoutMs: e.SMS_TIMEOUT_MS,
    aliyun,
    tencent
  }
}

/** S3 is on when S3_BUCKET is set; then the endpoint and both keys are required. */
function s3Settings(e: z.output<typeof envSchema>): StorageSettings['s3'] {
  const bucket = e.S3_BUCKET?.trim()
  if (!bucket) return undefined
  const missing = (['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).filter((name) => !e[name]?.trim())
  if (missing.length > 0) throw new ConfigError(missing.map((name) => `${name} is required when S3_BUCKET is set`))
  const endpoint = (e.S3_ENDPOINT ?? '').trim().replace(/\/+$/, '')
  return {
    endpoint,
    bucket,
    region: e.S3_REGION?.trim() || 'us-east-1',
    accessKeyId: (e.S3_ACCESS_KEY_ID ?? '').trim(),
    secretAccessKey: (e.S3_SECRET_ACCESS_KEY ?? '').trim(),
    // Path-style by default: works with MinIO, R2 and most S3-compatible stores.
    publicUrl: (e.S3_PUBLIC_URL?.trim() || `${endpoint}/${bucket}`).replace(/\/+$/, '')
  }
}
