// Upstream channels and per-model prices (replies/channels.ts, admin/http/channels.ts).
import { boolean, doublePrecision, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * An OpenAI-compatible chat upstream. Its keys are stored encrypted (AES-256-GCM with
 * CHANNEL_SECRET_KEY, replies/channel-crypto.ts); only their last 4 characters are kept in clear.
 */
export const upstreamChannels = pgTable('upstream_channels', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  /** `openai`: the OpenAI-compatible chat completions API. */
  kind: text('kind').notNull().default('openai'),
  /** Without /v1. */
  baseUrl: text('base_url').notNull(),
  /** `v1.<iv>.<tag>.<ciphertext>` (base64url) per key. */
  keys: jsonb('keys').$type<string[]>().notNull(),
  /** The last 4 characters of each key, in the order of `keys`. */
  keyHints: jsonb('key_hints').$type<string[]>().notNull(),
  /** The upstream model names it serves; empty: every model. */
  models: jsonb('models').$type<string[]>().notNull(),
  /** Higher first; within one priority, chosen by weight. */
  priority: integer('priority').notNull().default(0),
  weight: integer('weight').notNull().default(1),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull()
})

/** A model's price ratio set in the console: allowance per prompt token and per completion token (overrides chatConfig.json). */
export const modelPrices = pgTable('model_prices', {
  modelId: text('model_id').primaryKey(),
  input: doublePrecision('input').notNull(),
  output: doublePrecision('output').notNull(),
  updatedAt: at('updated_at').notNull()
})

export type UpstreamChannel = typeof upstreamChannels.$inferSelect
