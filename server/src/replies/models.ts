import { z } from 'zod'
import type { ChatSettings } from '../config.js'
import type { Logger } from '../logger.js'
import type { ConfigFiles } from '../site/config-files.js'
import type { ChatSiteConfig, ModelEntry } from './wire.js'

export type { ChatSiteConfig, ModelEntry, ProviderKind } from './wire.js'

export const DEMO_MODEL_ID = 'lingxi-demo'

const DEMO_MODEL: ModelEntry = {
  id: DEMO_MODEL_ID,
  name: '灵犀演示模型（离线）',
  provider: 'demo',
  contextLength: 8192,
  price: { input: 1, output: 1 },
  description: '离线演示模型：不连接任何 AI 服务，用固定格式的回复演示流式输出和 Markdown 渲染。',
  // It "sees" an image by its size, so attachments work end to end offline.
  vision: true
}

/**
 * Models known to accept images, for entries that do not say (`vision` in chatConfig.json wins):
 * GPT-4o/4.1/5 and o-series, Qwen-VL/Omni, GLM-4V, Claude 3+, Gemini, Llava, InternVL, MiniCPM-V, Pixtral…
 */
const VISION_NAMES =
  /gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-5|\bo[134](?:-|$)|vision|[-_.]vl\b|-vl-|qwen-?vl|qvq|omni|glm-4v|glm-4\.[15]v|claude-(?:3|sonnet|opus|haiku)|gemini|llava|internvl|minicpm-v|pixtral|step-1v|yi-vision|doubao.*vision/i
export const looksVisual = (name: string) => VISION_NAMES.test(name)

/** Defaults of a model that appears only in OPENAI_MODELS. */
const OPENAI_DEFAULTS = { contextLength: 16384, price: { input: 1, output: 1 } }

const modelSchema = z.object({
  id: z.string().trim().min(1).max(100),
  name: z.string().trim().min(1).max(100).optional(),
  provider: z.enum(['demo', 'openai']),
  upstreamModel: z.string().trim().min(1).max(200).optional(),
  contextLength: z.number().int().min(512).max(10_000_000).optional(),
  price: z.object({ input: z.number().min(0), output: z.number().min(0) }).optional(),
  description: z.string().max(500).optional(),
  maxTokens: z.number().int().min(1).optional(),
  /** Accepts images; unset: guessed from the model's name (looksVisual). */
  vision: z.boolean().optional()
})

const fileSchema = z.looseObject({
  models: z.array(modelSchema).default([]),
  defaultModel: z.string().optional(),
  defaultTemperature: z.number().min(0).max(2).optional(),
  contextEnabled: z.boolean().optional()
})

function normalise(entry: z.infer<typeof modelSchema>): ModelEntry {
  const base = entry.provider === 'demo' ? DEMO_MODEL : { ...OPENAI_DEFAULTS, name: entry.id, description: '' }
  return {
    id: entry.id,
    name: entry.name ?? base.name,
    provider: entry.provider,
    ...(entry.upstreamModel ? { upstreamModel: entry.upstreamModel } : {}),
    contextLength: entry.contextLength ?? base.contextLength,
    price: entry.price ?? base.price,
    description: entry.description ?? base.description,
    ...(entry.maxTokens ? { maxTokens: entry.maxTokens } : {}),
    vision: entry.vision ?? (entry.provider === 'demo' ? true : looksVisual(entry.upstreamModel ?? entry.id))
  }
}

/**
 * The models users may pick: chatConfig.json (server/config, or the operator's override in
 * DATA_DIR/config) merged with the environment. "openai" entries are offered only when
 * OPENAI_API_KEY is set; each id of OPENAI_MODELS not already listed becomes an entry of its own.
 * The demo model is there whenever nothing else is, so chat always works.
 */
export function resolveChatConfig(file: unknown, chat: ChatSettings, logger?: Logger, catalog?: ModelCatalog): ChatSiteConfig {
  let parsed = fileSchema.safeParse(file)
  if (!parsed.success) {
    logger?.error('chatConfig.json does not have the expected shape; using the built-in defaults', {
      problem: parsed.error.issues[0]?.message,
      path: parsed.error.issues[0]?.path.join('.')
    })
    parsed = fileSchema.safeParse({})
  }
  const { models: listed, defaultModel, defaultTemperature, contextEnabled, ...rest } = parsed.data!
  const models: ModelEntry[] = []
  const seen = new Set<string>()
  const add = (entry: ModelEntry) => {
    if (seen.has(entry.id)) return
    seen.add(entry.id)
    models.push(entry)
  }
  // With upstream channels (channels.ts), `openai` models are offered while one is enabled, and
  // each model a channel lists becomes an entry; without, OPENAI_API_KEY decides as before.
  const openai = catalog ? catalog.openai : Boolean(chat.openai)
  for (const entry of listed) {
    if (entry.provider === 'openai' && !openai) continue
    add(normalise(entry))
  }
  if (openai) {
    for (const id of [...(chat.openai?.models ?? []), ...(catalog?.models ?? [])]) {
      if (models.some((m) => m.provider === 'openai' && (m.upstreamModel ?? m.id) === id)) continue
      add(normalise({ id, provider: 'openai' }))
    }
  }
  if (models.length === 0) add(DEMO_MODEL)
  // Prices set in the operator console win over the file's.
  for (const [i, m] of models.entries()) {
    const price = catalog?.prices.get(m.id)
    if (price) models[i] = { ...m, price }
  }
  return {
    ...rest,
    models,
    defaultModel: models.some((m) => m.id === defaultModel) ? defaultModel! : models[0]!.id,
    defaultTemperature: defaultTemperature ?? 0.7,
    contextEnabled: contextEnabled ?? true
  }
}

export interface ChatModels {
  /** The effective config, as served at /config/chatConfig.json. */
  read(): Promise<ChatSiteConfig>
  find(id: string): Promise<ModelEntry | undefined>
}

/** What the upstream channels add to the file's models (channels.ts's Catalog). */
export interface ModelCatalog {
  openai: boolean
  models: string[]
  prices: Map<string, { input: number; output: number }>
}

export function createChatModels(files: ConfigFiles, chat: ChatSettings, logger: Logger, catalogOf?: () => Promise<ModelCatalog>): ChatModels {
  let cached: { json: unknown; catalog: ModelCatalog | undefined; config: ChatSiteConfig } | undefined
  const read = async () => {
    const { json } = await files.read('chatConfig.json')
    const catalog = await catalogOf?.()
    // The files module hands back the same object until the file changes; so does the catalog.
    if (cached?.json !== json || cached?.catalog !== catalog) cached = { json, catalog, config: resolveChatConfig(json, chat, logger, catalog) }
    return cached!.config
  }
  return {
    read,
    async find(id) {
      return (await read()).models.find((m) => m.id === id)
    }
  }
}
