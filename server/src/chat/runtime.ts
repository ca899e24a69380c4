import { and, eq, lt } from 'drizzle-orm'
import type { ChatSettings } from '../config.js'
import type { Db } from '../db/database.js'
import { type ChatMessage, chatMessages } from '../db/schema.js'
import { SYSTEM_ERROR_MESSAGE } from '../errors.js'
import type { EventBus, Subscription } from '../events/bus.js'
import type { Logger } from '../logger.js'
import { costOf, finishReply } from './accounting.js'
import { countTokens } from './context.js'
import type { ChatModels, ModelEntry, ProviderKind } from './models.js'
import { createDemoProvider } from './providers/demo.js'
import { createOpenAiProvider } from './providers/openai.js'
import { type ChatProvider, type ChatTurn, ProviderError } from './providers/provider.js'
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
}

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
  /** SSE comment heartbeat period. */
  heartbeatMs?: number
  /**
   * A running generation touches its row at least every leaseMs / 3; a row left `streaming`
   * and untouched for longer than this has lost its node (see sweep's staleMs).
   */
  leaseMs?: number
}

interface Running {
  controller: AbortController
  done: Promise<void>
}

export interface ChatRuntimeStats {
  generations: number
  subscribers: number
  followers: number
  accountListeners: number
}

export interface ChatRuntime {
  bus: EventBus
  models: ChatModels
  heartbeatMs: number
  /** Starts generating a reply whose row exists with status streaming; runs whether or not anyone listens. */
  start(job: GenerationJob): void
  /** Stops a reply's generation, wherever it runs, and waits until the reply has its final status. */
  stop(accountId: string, requestId: string): Promise<void>
  /**
   * Replies left `streaming` by a previous process are marked interrput (run at start); returns how many.
   * With `staleMs` (several nodes on one database), only replies no node has touched for that long
   * (their node died): each keeps everything the bus still holds of what was streamed.
   */
  sweep(options?: { staleMs?: number }): Promise<number>
  /** The lease of running generations (see ChatRuntimeOptions.leaseMs). */
  leaseMs: number
  /** Open SSE responses (the SSE routes keep it); ended on close. */
  subscribers: Set<{ close(): void }>
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
  const running = new Map<string, Running>()
  const subscribers = new Set<{ close(): void }>()
  let closing = false

  const providers: Partial<Record<ProviderKind, ChatProvider>> = {
    demo: createDemoProvider({ delayMs: settings.demoDelayMs }),
    ...(settings.openai
      ? {
          openai: createOpenAiProvider({
            baseUrl: settings.openai.baseUrl,
            apiKey: settings.openai.apiKey,
            firstByteTimeoutMs: settings.firstByteTimeoutMs,
            idleTimeoutMs: settings.idleTimeoutMs
          })
        }
      : {}),
    ...options.providers
  }

  const control: Subscription = bus.onControl((message) => {
    if (message.type === 'stop') running.get(message.stream)?.controller.abort()
  })

  let busFailed = false
  const busError = (error: unknown) => {
    if (busFailed) return
    busFailed = true
    logger.error('event bus write failed; subscribers fall back to the saved reply', { error })
    setTimeout(() => (busFailed = false), 60_000).unref()
  }

  /** To the reply's stream (replayable), then to the account channel with the requestId added. */
  async function emit(
    to: { accountId: string; requestId: string },
    event: string,
    data: Record<string, unknown>,
    final = false,
    json = JSON.stringify(data)
  ) {
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

    // The growing reply reaches the database at a bounded rate; writes never overlap.
    let pending = 0
    let timer: NodeJS.Timeout | undefined
    let writes = Promise.resolve()
    const flush = () => {
      if (timer) clearTimeout(timer)
      timer = undefined
      pending = 0
      const snapshot = { content, thinking: thinking === '' ? null : thinking }
      writes = writes
        .then(async () => {
          await db
            .update(chatMessages)
            .set({ ...snapshot, updatedAt: new Date(now()) })
            .where(and(eq(chatMessages.id, job.replyId), eq(chatMessages.status, 'streaming')))
        })
        .catch((error: unknown) => logger.error('saving a streaming reply failed', { error, replyId: job.replyId }))
    }
    // The lease: other nodes' sweeps leave a reply alone while its row keeps being touched.
    const lease = setInterval(() => {
      db.update(chatMessages)
        .set({ updatedAt: new Date(now()) })
        .where(and(eq(chatMessages.id, job.replyId), eq(chatMessages.status, 'streaming')))
        .catch((error: unknown) => logger.error('renewing a reply lease failed', { error, replyId: job.replyId }))
    }, Math.max(50, Math.floor(leaseMs / 3)))
    lease.unref()
    const grew = (text: string) => {
      pending += Buffer.byteLength(text)
      if (pending >= flushBytes) flush()
      else timer ??= setTimeout(flush, flushIntervalMs)
    }

    let status: FinalStatus = 'complete'
    let errorCode: number | null = null
    let errorMessage: string | null = null
    try {
      const provider = providers[job.model.provider]
      if (!provider) throw new ProviderError('upstream', `模型「${job.model.name}」的服务没有配置`)
      for await (const chunk of provider.stream({
        model: job.model,
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
        grew(chunk.text)
      }
    } catch (error) {
      if (controller.signal.aborted) {
        status = STOPPED
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
    if (timer) clearTimeout(timer)
    clearInterval(lease)
    await writes

    // A reply that produced nothing costs nothing; otherwise the upstream's usage, or our own count.
    const produced = content !== '' || thinking !== ''
    const contentTokens = await countTokens(content)
    const counted = produced
      ? (usage ?? { promptTokens: job.promptTokens, completionTokens: contentTokens + (await countTokens(thinking)) })
      : { promptTokens: 0, completionTokens: 0 }
    const finished = await finishReply(db, {
      replyId: job.replyId,
      accountId: job.accountId,
      status,
      content,
      thinking,
      errorCode,
      errorMessage,
      promptTokens: counted.promptTokens,
      completionTokens: counted.completionTokens,
      contentTokens,
      cost: costOf(counted, job.model.price),
      reason: `对话：${job.model.name}`,
      at: new Date(now())
    })
    // Saved and charged first; only then the final event.
    if (finished) await emitTerminal(job.accountId, finished)
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

  /** Ends a reply that no generation here owns (its node is gone): interrput, nothing charged. */
  async function endOrphan(accountId: string, requestId: string): Promise<void> {
    const [row] = await db
      .update(chatMessages)
      .set({ status: STOPPED, promptTokens: 0, completionTokens: 0, cost: 0, charged: 0, updatedAt: new Date(now()) })
      .where(and(eq(chatMessages.accountId, accountId), eq(chatMessages.requestId, requestId), eq(chatMessages.status, 'streaming')))
      .returning()
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
    heartbeatMs: options.heartbeatMs ?? 15_000,
    leaseMs,
    subscribers,

    start(job) {
      const key = streamKey(job.accountId, job.requestId)
      const controller = new AbortController()
      if (closing) controller.abort()
      const done = generate(job, controller)
        .catch((error: unknown) => logger.error('chat generation could not be saved', { error, replyId: job.replyId }))
        .finally(() => {
          if (running.get(key)?.controller === controller) running.delete(key)
        })
      running.set(key, { controller, done })
    },

    async stop(accountId, requestId) {
      const key = streamKey(accountId, requestId)
      const local = running.get(key)
      if (local) {
        local.controller.abort()
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
        if (!row || row.status !== 'streaming') return
        await sleep(50)
      }
      await endOrphan(accountId, requestId)
    },

    async sweep(sweepOptions = {}) {
      const cutoff = sweepOptions.staleMs === undefined ? undefined : new Date(now() - sweepOptions.staleMs)
      const streaming = eq(chatMessages.status, 'streaming')
      const candidates = await db
        .select()
        .from(chatMessages)
        .where(cutoff ? and(streaming, lt(chatMessages.updatedAt, cutoff)) : streaming)
      let swept = 0
      for (const candidate of candidates) {
        // Generations of this process are alive (their lease keeps them out of a stale sweep anyway).
        if (candidate.requestId && running.has(streamKey(candidate.accountId, candidate.requestId))) continue
        // What was streamed may be ahead of the last save: the shared bus still has every delta.
        const streamed = candidate.requestId ? await streamedText(candidate.accountId, candidate.requestId) : undefined
        const content = streamed && streamed.content.length > candidate.content.length ? streamed.content : candidate.content
        const thinking = streamed && streamed.thinking.length > (candidate.thinking ?? '').length ? streamed.thinking : candidate.thinking
        const [row] = await db
          .update(chatMessages)
          .set({ status: STOPPED, content, thinking, promptTokens: 0, completionTokens: 0, cost: 0, charged: 0, updatedAt: new Date(now()) })
          .where(
            and(
              eq(chatMessages.id, candidate.id),
              streaming,
              // Touched since it was read: its node is alive after all.
              eq(chatMessages.updatedAt, candidate.updatedAt)
            )
          )
          .returning()
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
      return { generations: running.size, subscribers: subscribers.size, followers, accountListeners }
    },

    async idle() {
      while (running.size > 0) await Promise.all([...running.values()].map((r) => r.done))
    },

    async close() {
      closing = true
      for (const r of running.values()) r.controller.abort()
      await this.idle()
      control.close()
      for (const sink of [...subscribers]) sink.close()
    }
  }
}
