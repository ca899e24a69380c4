import { and, eq, lt, or } from 'drizzle-orm'
import type { ChatSettings } from '../config.js'
import type { Db } from '../db/database.js'
import { type ChatMessage, chatMessages } from '../db/schema.js'
import { SYSTEM_ERROR_MESSAGE } from '../errors.js'
import type { EventBus, Subscription } from '../events/bus.js'
import type { Logger } from '../logger.js'
import type { Moderator } from '../moderation/index.js'
import { endStreaming } from './accounting.js'
import type { Channels } from './channels.js'
import { createLeases } from './lease.js'
import { BLOCKED_REPLY_NOTICE, blockedEnd, watchStream } from './moderate-stream.js'
import type { ChatModels, ModelEntry, ProviderKind } from './models.js'
import { createDemoProvider } from './providers/demo.js'
import { createOpenAiProvider } from './providers/openai.js'
import { type ChatProvider, type ChatTurn, ProviderError } from './providers/provider.js'
import { createReplyWriter } from './reply-writer.js'
import { settleReply } from './settle.js'
import { type FinalStatus, STOPPED, terminalEvent } from './wire.js'

export interface GenerationJob {
  accountId: string
  topicId: string
  replyId: string
  requestId: string
  model: ModelEntry
  messages: ChatTurn[]
  /** Prompt tokens counted locally, for when the upstream reports no usage. */
  promptTokens: number
  temperature: number
  /** What holdTokens reserved: the answer is limited to `maxTokens` when the balance ran short. */
  hold: { held: number; maxTokens: number | undefined }
}

/** Why a generation was aborted: the user's stop is charged for what was shown; a shutdown is not. */
export const STOPPED_BY_USER = 'stopped-by-user'
export const STOPPED_BY_SHUTDOWN = 'stopped-by-shutdown'

export interface ChatRuntimeOptions {
  db: Db
  bus: EventBus
  models: ChatModels
  settings: ChatSettings
  logger: Logger
  now: () => number
  /** Replaces the built-in providers (tests). */
  providers?: Partial<Record<ProviderKind, ChatProvider>>
  /** The growing reply is saved at most this often… */
  flushIntervalMs?: number
  /** …or as soon as this many new bytes arrived. */
  flushBytes?: number
  /** How long a stop waits for the generation to end before ending the reply itself. */
  stopWaitMs?: number
  /**
   * A running generation touches its row at least every leaseMs / 3; a row left `streaming`
   * and untouched for longer than this has lost its node (see sweep's staleMs).
   */
  leaseMs?: number
  /**
   * This node's name, saved on the replies it generates: at start a node ends its own orphans at
   * once (they died with its last run), and leaves other nodes' to their leases.
   */
  nodeId?: string
  /** Content safety: the reply is checked in windows as it streams (moderate-stream.ts); none when off. */
  moderation?: Moderator
}

interface Running {
  replyId: string
  controller: AbortController
  done: Promise<void>
}

export interface ChatRuntimeStats {
  generations: number
  followers: number
  accountListeners: number
}

export interface ChatRuntime {
  bus: EventBus
  models: ChatModels
  /** The upstream channels of `openai` models (set by createChat; the operator API edits them). */
  channels?: Channels
  /** Saved as node_id on the replies this node generates. */
  nodeId: string | null
  /** Starts generating a reply whose row exists with status streaming; runs whether or not anyone listens. */
  start(job: GenerationJob): void
  /**
   * The reply this node is generating for the account's requestId, if any: its row exists and is
   * the account's, so a subscriber needs no database read to know it (modules/chat/stream-route.ts).
   */
  generating(accountId: string, requestId: string): string | undefined
  /** Stops a reply's generation, wherever it runs, and waits until the reply has its final status. */
  stop(accountId: string, requestId: string): Promise<void>
  /**
   * Replies left `streaming` by a previous process are marked interrput (run at start); returns how many.
   * With `staleMs` (several nodes on one database), only replies no node has touched for that long
   * (their node died), plus this node's own (with `own`: at start, they died with its last run).
   * Each keeps everything the bus still holds of what was streamed; nothing is charged, and the
   * hold goes back.
   */
  sweep(options?: { staleMs?: number; own?: boolean }): Promise<number>
  /** The lease of running generations (see ChatRuntimeOptions.leaseMs). */
  leaseMs: number
  stats(): ChatRuntimeStats
  /** Resolves when no generation runs here (tests). */
  idle(): Promise<void>
  /** Stops every generation (their replies end as interrput) and waits for them. */
  close(): Promise<void>
}

/** Stream keys include the account: a requestId chosen by one client can never reach another account's stream. */
export const streamKey = (accountId: string, requestId: string) => `${accountId}:${requestId}`

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export function createChatRuntime(options: ChatRuntimeOptions): ChatRuntime {
  const { db, bus, models, settings, logger, now } = options
  const flushIntervalMs = options.flushIntervalMs ?? 500
  const flushBytes = options.flushBytes ?? 2048
  const stopWaitMs = options.stopWaitMs ?? 3000
  const leaseMs = options.leaseMs ?? 15_000
  const nodeId = options.nodeId ?? null
  const running = new Map<string, Running>()
  let closing = false

  const providers: Partial<Record<ProviderKind, ChatProvider>> = {
    demo: createDemoProvider({ delayMs: settings.demoDelayMs }),
    ...(settings.openai
      ? {
          openai: createOpenAiProvider({
            baseUrl: settings.openai.baseUrl,
            apiKey: settings.openai.apiKey,
            firstByteTimeoutMs: settings.firstByteTimeoutMs,
            idleTimeoutMs: settings.idleTimeoutMs,
            logger
          })
        }
      : {}),
    ...options.providers
  }

  const control: Subscription = bus.onControl((message) => {
    if (message.type === 'stop') running.get(message.stream)?.controller.abort(STOPPED_BY_USER)
  })

  const lease = createLeases({ db, logger, now, leaseMs })

  let busFailed = false
  const busError = (error: unknown) => {
    if (busFailed) return
    busFailed = true
    logger.error('event bus write failed; subscribers fall back to the saved reply', { error })
    setTimeout(() => (busFailed = false), 60_000).unref()
  }

  /** To the reply's stream (replayable), then to the account channel with the requestId added. */
  async function emit(to: { accountId: string; requestId: string }, event: string, data: Record<string, unknown>, final = false, json = JSON.stringify(data)) {
    try {
      await bus.append(streamKey(to.accountId, to.requestId), event, json, final)
    } catch (error) {
      busError(error)
    }
    bus.publish(to.accountId, { event, data: { ...data, requestId: to.requestId } }).catch(busError)
  }

  async function generate(job: GenerationJob, controller: AbortController): Promise<void> {
    let content = ''
    let thinking = ''
    let usage: { promptTokens: number; completionTokens: number } | undefined
    // A short balance limits the answer to what it pays for (the upstream gets max_tokens).
    const model = job.hold.maxTokens === undefined ? job.model : { ...job.model, maxTokens: Math.min(job.hold.maxTokens, job.model.maxTokens ?? Infinity) }
    const watch = watchStream(options.moderation, job, (reason) => controller.abort(reason))

    // The growing reply reaches the database at a bounded rate; writes never overlap.
    const writer = createReplyWriter({ db, logger, now, flushIntervalMs, flushBytes }, job.replyId, () => ({ content, thinking }))
    // The lease: other nodes' sweeps leave a reply alone while its row keeps being touched.
    const endLease = lease(job.replyId)

    let status: FinalStatus = 'complete'
    let errorCode: number | null = null
    let errorMessage: string | null = null
    let stoppedByUser = false
    try {
      const provider = providers[job.model.provider]
      if (!provider) throw new ProviderError('upstream', `模型「${job.model.name}」的服务没有配置`)
      for await (const chunk of provider.stream({
        model,
        messages: job.messages,
        temperature: job.temperature,
        signal: controller.signal
      })) {
        if (chunk.type === 'usage') {
          usage = { promptTokens: chunk.promptTokens, completionTokens: chunk.completionTokens }
          continue
        }
        if (chunk.type === 'content') content += chunk.text
        else thinking += chunk.text
        // The hot path: the delta's JSON is built by hand rather than by stringifying an object.
        const text = JSON.stringify(chunk.text)
        await emit(
          job,
          'delta',
          chunk.type === 'content' ? { content: chunk.text } : { thinking: chunk.text },
          false,
          chunk.type === 'content' ? `{"content":${text}}` : `{"thinking":${text}}`
        )
        writer.grew(chunk.text)
        if (chunk.type === 'content') watch?.grew(content)
      }
    } catch (error) {
      if (controller.signal.aborted) {
        status = STOPPED
        stoppedByUser = controller.signal.reason !== STOPPED_BY_SHUTDOWN
      } else if (error instanceof ProviderError) {
        status = error.kind === 'timeout' ? 'timeout' : 'error'
        errorCode = error.kind === 'timeout' ? 50400001 : 50200001
        errorMessage = error.message
      } else {
        logger.error('chat generation failed', { error, replyId: job.replyId })
        status = 'error'
        errorCode = 50000000
        errorMessage = SYSTEM_ERROR_MESSAGE
      }
    }
    const written = writer.end()
    endLease()
    await written
    const block = await watch?.finish(content)
    if (block) await emit(job, 'moderated', { content: BLOCKED_REPLY_NOTICE })
    const end = block ? { ...blockedEnd(block), usage, stoppedByUser } : { status, content, thinking, errorCode, errorMessage, usage, stoppedByUser }
    const settled = await settleReply({ db, logger, now }, job, end)
    // Saved and charged first; only then the final event.
    if (settled.row) await emitTerminal(job.accountId, settled.row)
    // The database is gone: subscribers still get an end; the row is left to the next sweep.
    else if (settled.lost) await emit(job, 'error', { status: 'error', code: 50000000, message: SYSTEM_ERROR_MESSAGE, messageId: job.replyId }, true)
  }

  async function emitTerminal(accountId: string, reply: ChatMessage) {
    if (!reply.requestId) return
    const terminal = terminalEvent({ ...reply, status: reply.status as FinalStatus })
    await emit({ accountId, requestId: reply.requestId }, terminal.event, terminal.data, true)
  }

  async function waitFor(done: Promise<void>, ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
    clearTimeout(timer)
  }

  /** Ends a reply that no generation here owns (its node is gone): interrput, nothing charged, the hold given back. */
  async function endOrphan(accountId: string, requestId: string): Promise<void> {
    const [row] = await db.transaction((tx) =>
      endStreaming(tx, and(eq(chatMessages.accountId, accountId), eq(chatMessages.requestId, requestId))!, new Date(now()))
    )
    if (row) await emitTerminal(accountId, row)
  }

  /** The text a reply's stream carried so far, from the bus's replay (empty when the bus has none). */
  async function streamedText(accountId: string, requestId: string): Promise<{ content: string; thinking: string }> {
    const text = { content: '', thinking: '' }
    try {
      const follow = await bus.follow(streamKey(accountId, requestId), 0, {
        event(e) {
          if (e.event !== 'delta') return
          const data = JSON.parse(e.data) as { content?: string; thinking?: string }
          text.content += data.content ?? ''
          text.thinking += data.thinking ?? ''
        },
        end() {}
      })
      follow.close()
    } catch (error) {
      busError(error)
    }
    return text
  }

  return {
    bus,
    models,
    nodeId,
    leaseMs,

    start(job) {
      const key = streamKey(job.accountId, job.requestId)
      const controller = new AbortController()
      if (closing) controller.abort(STOPPED_BY_SHUTDOWN)
      const done = generate(job, controller)
        .catch((error: unknown) => logger.error('chat generation could not be saved', { error, replyId: job.replyId }))
        .finally(() => {
          if (running.get(key)?.controller === controller) running.delete(key)
        })
      running.set(key, { replyId: job.replyId, controller, done })
    },

    generating(accountId, requestId) {
      return running.get(streamKey(accountId, requestId))?.replyId
    },

    async stop(accountId, requestId) {
      const key = streamKey(accountId, requestId)
      const local = running.get(key)
      if (local) {
        local.controller.abort(STOPPED_BY_USER)
        await waitFor(local.done, stopWaitMs)
        return
      }
      // Another node may run it: ask over the control channel, then watch the row.
      await bus.control({ type: 'stop', stream: key }).catch(busError)
      const deadline = Date.now() + stopWaitMs
      while (Date.now() < deadline) {
        const [row] = await db
          .select({ status: chatMessages.status })
          .from(chatMessages)
          .where(and(eq(chatMessages.accountId, accountId), eq(chatMessages.requestId, requestId)))
        if (row?.status !== 'streaming') return
        await sleep(50)
      }
      await endOrphan(accountId, requestId)
    },

    async sweep(sweepOptions = {}) {
      const cutoff = sweepOptions.staleMs === undefined ? undefined : new Date(now() - sweepOptions.staleMs)
      const streaming = eq(chatMessages.status, 'streaming')
      const stale = cutoff ? lt(chatMessages.updatedAt, cutoff) : undefined
      const mine = sweepOptions.own && nodeId !== null ? eq(chatMessages.nodeId, nodeId) : undefined
      const candidates = await db
        .select()
        .from(chatMessages)
        .where(stale ? and(streaming, mine ? or(stale, mine) : stale) : streaming)
      let swept = 0
      for (const candidate of candidates) {
        // Generations of this process are alive (their lease keeps them out of a stale sweep anyway).
        if (candidate.requestId && running.has(streamKey(candidate.accountId, candidate.requestId))) continue
        // What was streamed may be ahead of the last save: the shared bus still has every delta.
        const streamed = candidate.requestId ? await streamedText(candidate.accountId, candidate.requestId) : undefined
        const content = streamed && streamed.content.length > candidate.content.length ? streamed.content : candidate.content
        const thinking = streamed && streamed.thinking.length > (candidate.thinking ?? '').length ? streamed.thinking : candidate.thinking
        const [row] = await db.transaction((tx) =>
          endStreaming(
            tx,
            // Touched since it was read: its node is alive after all.
            and(eq(chatMessages.id, candidate.id), eq(chatMessages.updatedAt, candidate.updatedAt))!,
            new Date(now()),
            { content, thinking }
          )
        )
        if (!row) continue
        swept++
        if (!row.requestId) continue
        // A shared bus (Redis) may still hold the unfinished stream: give its followers an end.
        try {
          const last = await bus.last(streamKey(row.accountId, row.requestId))
          if (last && !last.final) await emitTerminal(row.accountId, row)
        } catch (error) {
          busError(error)
        }
      }
      return swept
    },

    stats() {
      const { followers, accountListeners } = bus.stats()
      return { generations: running.size, followers, accountListeners }
    },

    async idle() {
      while (running.size > 0) await Promise.all([...running.values()].map((r) => r.done))
    },

    async close() {
      closing = true
      for (const r of running.values()) r.controller.abort(STOPPED_BY_SHUTDOWN)
      await this.idle()
      control.close()
    }
  }
}
