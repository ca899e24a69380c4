import { hostname } from 'node:os'
import { resolve } from 'node:path'
import type { Phone } from './auth/phone.js'
import { paths } from './paths.js'
import { parseChannelSecret } from './replies/channels-crypto.js'
import { ConfigError, envSchema, list } from './config/env.js'
import { type ModerationSettings, moderationSecrets, moderationSettings } from './moderation/settings.js'
import { type PartnerSettings, partnerSettings } from './config/partners.js'
import {
  type ChatSettings,
  type HotSettings,
  type MusicSettings,
  type PaintingSettings,
  type PaymentSettings,
  paymentSettings,
  type SmsSettings,
  type StorageSettings,
  s3Settings,
  smsSettings,
  type WechatSettings,
  wechatSettings
} from './config/settings.js'
import { attachmentLimits } from './config/settings.js'

export { ConfigError, envSchema } from './config/env.js'
export type { PartnerSettings } from './config/partners.js'
export type {
  AttachmentLimits,
  ChatSettings,
  HotSettings,
  MusicSettings,
  PaintingSettings,
  PaymentSettings,
  SmsSettings,
  StorageSettings,
  WechatSettings
} from './config/settings.js'

/** What the server runs with: loadConfig() reads it from the environment once, at start. */
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
  /** Origins whose pages see the full phone number (the site itself always does); others see 138****5678. */
  trustedOrigins: string[]
  /** Partners that log their users in with a signed assertion (auth/partner.ts); their origins are in corsOrigins. */
  partners: PartnerSettings[]
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
  /** Content safety (moderation/): no providers unless MODERATION_PROVIDERS is set. */
  moderation: ModerationSettings
}

/** Online recharge (modules/payments): the providers offered and how long an order may wait. */

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
    // The metrics token is read with the operations settings (metrics/options.ts), not into Config.
    process.env.METRICS_TOKEN,
    config.chat.openai?.apiKey,
    process.env.CHANNEL_SECRET_KEY,
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
    config.wechat.mp?.appSecret,
    pay?.apiKey,
    config.payments.wechat?.privateKey,
    config.payments.wechat?.apiV3Key,
    config.payments.alipay?.privateKey,
    ...config.partners.map((p) => p.secret),
    // The passphrase defaults to the merchant id, which is no secret and is part of every bill number.
    pay?.cert && 'passphrase' in pay.cert && pay.cert.passphrase !== pay.mchId ? pay.cert.passphrase : undefined,
    ...moderationSecrets(config.moderation),
    ...password(config.databaseUrl),
    ...password(config.redisUrl)
  ]
  return [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.trim() !== ''))]
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
  const problems: string[] = []
  const start = { tokens: e.START_TOKENS, mj: e.START_MJ_COUNT, suno: e.START_SUNO_COUNT }
  const partners = partnerSettings(e, { start, permissions: e.DEFAULT_PERMISSIONS }, problems)
  if (problems.length > 0) throw new ConfigError(problems)
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    publicUrl: (e.PUBLIC_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(/\/$/, ''),
    // A partner's origins may call the API with credentials; a trusted partner's see the full phone.
    corsOrigins: [...new Set([...e.CORS_ORIGINS, ...partners.flatMap((p) => p.origins)])],
    trustedOrigins: [...new Set([...e.TRUSTED_ORIGINS, ...partners.filter((p) => p.trusted).flatMap((p) => p.origins)])],
    partners,
    sms,
    loginWithoutCodePhones: e.LOGIN_WITHOUT_CODE_PHONES,
    start,
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
      demoDelayMs: e.CHAT_DEMO_DELAY_MS,
      titleModel: e.CHAT_TITLE_MODEL || undefined,
      channelSecret: parseChannelSecret(e.CHANNEL_SECRET_KEY),
      attachments: attachmentLimits(e)
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
    payments: paymentSettings(e),
    moderation: moderationSettings(e)
  }
}
