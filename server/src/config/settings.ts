import { resolve } from 'node:path'
import { ConfigError, type Env } from './env.js'

export { type PaymentSettings, paymentSettings } from './payments.js'

// The settings of the parts that need more than one variable (WeChat, SMS, S3; payments in
// payments.ts): each builder reads the checked environment and lists every problem at once.

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
  /**
   * The official account (公众号) web authorization (snsapi_userinfo) used inside WeChat, where the
   * QR login cannot run; its openids are the payers of WeChat Pay JSAPI. Undefined without
   * WECHAT_MP_APP_ID and WECHAT_MP_APP_SECRET.
   */
  mp: { appId: string; appSecret: string; openBase: string; apiBase: string } | undefined
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
  /** The model (an id of the model list) that names new topics; none: the first question names them (modules/chat/titles.ts). */
  titleModel?: string | undefined
  /** CHANNEL_SECRET_KEY: encrypts the keys of upstream channels (replies/channels.ts); required once a channel is stored. */
  channelSecret?: Buffer | undefined
  /** Files in messages (modules/chat/attachments.ts): CHAT_ATTACHMENT_*. */
  attachments: AttachmentLimits
}

/** Limits of chat attachments, from CHAT_ATTACHMENT_IMAGE_MB, _DOCUMENT_MB, _MAX_PAGES, _MAX_CHARS, _PER_MESSAGE, _PER_HOUR. */
export interface AttachmentLimits {
  /** Bytes of one image (never above the 10 MB storage/images.ts checks). */
  imageBytes: number
  /** Bytes of one document. */
  documentBytes: number
  /** PDF pages read. */
  maxPages: number
  /** Characters of a document's text given to the model. */
  maxChars: number
  /** Attachments in one message. */
  perMessage: number
  /** Uploads per account per hour. */
  perHour: number
}

const MB = 1024 * 1024

export function attachmentLimits(e: Pick<Env, `CHAT_ATTACHMENT_${string}` & keyof Env>): AttachmentLimits {
  return {
    imageBytes: Math.floor(e.CHAT_ATTACHMENT_IMAGE_MB * MB),
    documentBytes: Math.floor(e.CHAT_ATTACHMENT_DOCUMENT_MB * MB),
    maxPages: e.CHAT_ATTACHMENT_MAX_PAGES,
    maxChars: e.CHAT_ATTACHMENT_MAX_CHARS,
    perMessage: e.CHAT_ATTACHMENT_PER_MESSAGE,
    perHour: e.CHAT_ATTACHMENT_PER_HOUR
  }
}

/** WeChat login is on with WECHAT_APP_ID + WECHAT_APP_SECRET; WeChat Pay with WECHAT_PAY_MCH_ID (then key, app id and, over https, a certificate). */
export function wechatSettings(e: Env): WechatSettings {
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
  const mpAppId = e.WECHAT_MP_APP_ID?.trim()
  const mpAppSecret = e.WECHAT_MP_APP_SECRET?.trim()
  if (Boolean(mpAppId) !== Boolean(mpAppSecret))
    throw new ConfigError(['WECHAT_MP_APP_ID and WECHAT_MP_APP_SECRET go together (the official account’s AppID and AppSecret)'])
  const mp =
    mpAppId && mpAppSecret
      ? {
          appId: mpAppId,
          appSecret: mpAppSecret,
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
  return { oauth, mp, pay, demoDelayMs: e.WECHAT_PAY_DEMO_DELAY_MS }
}

/** SMS_PROVIDER picks the provider; each real one needs all of its settings, or the server does not start. */
export function smsSettings(e: Env): SmsSettings {
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
export function s3Settings(e: Env): StorageSettings['s3'] {
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
