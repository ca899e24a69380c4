import { type Env, ConfigError, list } from '../config/env.js'
import { MODERATION_KINDS, type ModerationKind } from './types.js'
import { readWordList, type WordRule } from './wordlist.js'

export const MODERATION_PROVIDERS = ['words', 'aliyun', 'tencent', 'openai'] as const
export type ModerationProviderName = (typeof MODERATION_PROVIDERS)[number]
/** When a provider cannot answer: `open` lets the text through for review, `closed` refuses it. */
export type FailMode = 'open' | 'closed'

/** Content safety (moderation/): off — no providers — unless MODERATION_PROVIDERS names some. */
export interface ModerationSettings {
  /** In the order they run; empty: moderation is off and every check passes at no cost. */
  providers: ModerationProviderName[]
  /** The operator's list (MODERATION_WORDS_FILE), read at start. */
  words: WordRule[]
  /** MODERATION_WORDS_FILE, read again by the console's 从文件重新加载 (word-store.ts). */
  wordsFile?: string
  aliyun?: { accessKeyId: string; accessKeySecret: string; endpoint: string }
  tencent?: { secretId: string; secretKey: string; region: string; endpoint: string; bizType?: string }
  openai?: { baseUrl: string; apiKey: string; model: string }
  /** One call to a remote provider may take this long, then it counts as down. */
  timeoutMs: number
  failModes: Record<ModerationKind, FailMode>
  /** Moderation log rows older than this are purged (default 183 days, about 6 months). */
  retentionDays: number
  /** Streamed replies are checked every this many characters (and at their end). */
  windowChars: number
}

/** Closed for images published to the gallery; open (let through for review) for everything else. */
export const DEFAULT_FAIL_MODES: Record<ModerationKind, FailMode> = { chat: 'open', prompt: 'open', name: 'open', reply: 'open', image: 'closed' }

const trimmed = (value: string | undefined) => value?.trim() || undefined

export function moderationSettings(e: Env): ModerationSettings {
  const problems: string[] = []
  const providers = [...new Set(list(e.MODERATION_PROVIDERS))]
  for (const name of providers) {
    if (!(MODERATION_PROVIDERS as readonly string[]).includes(name))
      problems.push(`MODERATION_PROVIDERS: unknown provider "${name}" (known: ${MODERATION_PROVIDERS.join(', ')})`)
  }
  const need = (provider: string, names: string[]) => {
    for (const name of names)
      if (!trimmed((e as unknown as Record<string, string | undefined>)[name])) problems.push(`${name} is required when MODERATION_PROVIDERS has ${provider}`)
  }
  let words: WordRule[] = []
  if (providers.includes('words')) {
    need('words', ['MODERATION_WORDS_FILE'])
    if (e.MODERATION_WORDS_FILE?.trim()) {
      try {
        const read = readWordList(e.MODERATION_WORDS_FILE.trim())
        words = read.rules
        problems.push(...read.problems.map((p) => `MODERATION_WORDS_FILE ${p}`))
      } catch (error) {
        problems.push(`MODERATION_WORDS_FILE cannot be read (${(error as Error).message})`)
      }
    }
  }
  if (providers.includes('aliyun')) need('aliyun', ['MODERATION_ALIYUN_ACCESS_KEY_ID', 'MODERATION_ALIYUN_ACCESS_KEY_SECRET'])
  if (providers.includes('tencent')) need('tencent', ['MODERATION_TENCENT_SECRET_ID', 'MODERATION_TENCENT_SECRET_KEY'])
  const openaiKey = trimmed(e.MODERATION_OPENAI_API_KEY) ?? trimmed(e.OPENAI_API_KEY)
  if (providers.includes('openai') && !openaiKey)
    problems.push('MODERATION_OPENAI_API_KEY (or OPENAI_API_KEY) is required when MODERATION_PROVIDERS has openai')

  const failModes = { ...DEFAULT_FAIL_MODES }
  for (const item of list(e.MODERATION_FAIL_MODE)) {
    const [kind, mode] = item.split('=').map((s) => s.trim())
    if (!(MODERATION_KINDS as readonly string[]).includes(kind ?? '') || (mode !== 'open' && mode !== 'closed')) {
      problems.push(`MODERATION_FAIL_MODE: "${item}" is not kind=open or kind=closed (kinds: ${MODERATION_KINDS.join(', ')})`)
      continue
    }
    failModes[kind as ModerationKind] = mode
  }
  if (problems.length > 0) throw new ConfigError(problems)

  return {
    providers: providers as ModerationProviderName[],
    words,
    ...(providers.includes('words') && e.MODERATION_WORDS_FILE?.trim() ? { wordsFile: e.MODERATION_WORDS_FILE.trim() } : {}),
    aliyun: providers.includes('aliyun')
      ? {
          accessKeyId: e.MODERATION_ALIYUN_ACCESS_KEY_ID!.trim(),
          accessKeySecret: e.MODERATION_ALIYUN_ACCESS_KEY_SECRET!.trim(),
          endpoint: (e.MODERATION_ALIYUN_ENDPOINT ?? 'https://green-cip.cn-shanghai.aliyuncs.com').replace(/\/+$/, '')
        }
      : undefined,
    tencent: providers.includes('tencent')
      ? {
          secretId: e.MODERATION_TENCENT_SECRET_ID!.trim(),
          secretKey: e.MODERATION_TENCENT_SECRET_KEY!.trim(),
          region: trimmed(e.MODERATION_TENCENT_REGION) ?? 'ap-guangzhou',
          endpoint: (e.MODERATION_TENCENT_ENDPOINT ?? 'https://tms.tencentcloudapi.com').replace(/\/+$/, ''),
          bizType: trimmed(e.MODERATION_TENCENT_BIZ_TYPE)
        }
      : undefined,
    openai:
      providers.includes('openai') && openaiKey
        ? {
            baseUrl: e.MODERATION_OPENAI_BASE_URL ?? e.OPENAI_BASE_URL ?? 'https://api.openai.com',
            apiKey: openaiKey,
            model: trimmed(e.MODERATION_OPENAI_MODEL) ?? 'omni-moderation-latest'
          }
        : undefined,
    timeoutMs: e.MODERATION_TIMEOUT_MS,
    failModes,
    retentionDays: e.MODERATION_LOG_DAYS,
    windowChars: e.MODERATION_STREAM_WINDOW
  }
}

/** The secrets of these settings, for the logger to scrub (config.ts's configuredSecrets). */
export function moderationSecrets(s: ModerationSettings): (string | undefined)[] {
  return [s.aliyun?.accessKeySecret, s.tencent?.secretKey, s.openai?.apiKey]
}
