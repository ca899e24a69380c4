import { atom, map } from 'nanostores'
import { ApiError, getJson, NetworkError, notifyError, request } from './api'
import { refreshUser } from './auth'
import { MSG_SYSTEM_ERROR } from './messages'
import { shared } from './shared'
import { subscribe } from './sse'
import { $token } from './stores'
import type { MessageStatus } from './wire'
import { EVENT_CHAT_COMMAND, EVENT_NAVIGATE } from './wire'

// Shapes and calls: docs/chat-wire.md.

export type ChatRole = 'user' | 'assistant' | 'system'

export interface Usage {
  promptTokens: number
  completionTokens: number
  charged: number
}

export interface Topic {
  topicId: string
  name: string
  /** 1 = pinned. */
  topFlag: 0 | 1
  updateTime: number
  createTime: number
  chatType: number
  oldChatType: number | null
  oldTopicIndex: number | null
  /** Set when the topic was started from a role. */
  roleId: string | null
  roleName: string | null
  /** An emoji or an image URL. */
  roleAvatar: string | null
  model: string
  temperature: number
  /** 1 = earlier messages are sent upstream with each question. */
  contextEnabled: 0 | 1
}

export interface ChatMessage {
  messageId: string
  topicId: string
  role: ChatRole
  content: string
  /** The model's reasoning, kept apart from the answer. */
  thinking: string | null
  status: MessageStatus
  /** Assistant replies: the id of their stream. */
  requestId: string | null
  errorCode: number | null
  errorMessage: string | null
  model: string | null
  createTime: number
  usage: Usage | null
}

export interface Paged<T> {
  list: T[]
  total: number
  pageNum: number
  pageSize: number
}

export interface ChatModel {
  id: string
  name: string
  provider?: string
  contextLength?: number
}

/** `/config/chatConfig.json` */
export interface ChatConfig {
  models: ChatModel[]
  defaultModel: string
  contextEnabled: boolean
  /** Example prompts for an empty conversation (the widget has its own otherwise). */
  examples?: string[]
}

/** One topic's messages, oldest first: the newest pages loaded so far. */
export interface TopicMessages {
  list: ChatMessage[]
  /** Older messages remain on the server. */
  hasMore: boolean
  loading: boolean
  /** The first page has arrived. */
  loaded: boolean
}

/**
 * Where a request (a send or a regenerate) stands, as the Vercel AI SDK has it:
 * - `submitted`: sent; waiting for the first event of the reply.
 * - `streaming`: the reply is arriving.
 * - `ready`: over — complete, stopped, or no longer followed.
 * - `error`: the request or its reply failed (`error` says how).
 */
export type StreamStatus = 'submitted' | 'streaming' | 'ready' | 'error'

export interface StreamState {
  status: StreamStatus
  topicId: string
  /** The reply being written (null until the server named it). */
  replyId: string | null
  error?: { code: number; message: string }
}

export interface SendResult {
  requestId: string
  messageId: string
  replyId: string
  /** Settles when the reply's stream is over, with the request's last status. */
  finished: Promise<StreamStatus>
}

export interface TopicConfig {
  model?: string
  /** 0–2 */
  temperature?: number
  contextEnabled?: 0 | 1
}

/** Chat type constant of the spec. */
export const CHAT_TYPE = 30
/** Messages per page. */
export const MESSAGE_PAGE_SIZE = 20
/** Characters a message may have. */
export const MAX_MESSAGE_LENGTH = 20000
export const MAX_TOPIC_NAME = 50
/** Wait before checking whether to follow the bottom of the conversation (spec). */
export const SCROLL_DELAY_MS = 20
/** Allowance exhausted (API.md). */
export const CODE_NO_ALLOWANCE = 40200001

export { EVENT_CHAT_COMMAND, EVENT_NAVIGATE }

/**
 * - `topics`: show the topic list (the drawer on phones).
 * - `settings`: show the conversation settings.
 * - `clear`: clear the current conversation (asks first).
 * - `bottom`: scroll to the newest message.
 */
export type ChatCommand = 'topics' | 'settings' | 'clear' | 'bottom'

declare global {
  interface WindowEventMap {
    [EVENT_NAVIGATE]: CustomEvent<{ path: string; topicId?: string }>
    [EVENT_CHAT_COMMAND]: CustomEvent<{ command: ChatCommand }>
  }
}

/** Topics, pinned first then most recently updated; null until loaded. */
export const $topics = /* @__PURE__ */ shared('$topics', () => atom<Topic[] | null>(null))
export const $activeTopicId = /* @__PURE__ */ shared('$activeTopicId', () => atom<string | null>(null))
/** Messages by topicId. */
export const $messages = /* @__PURE__ */ shared('$messages', () => map<Record<string, TopicMessages>>({}))
export const $chatConfig = /* @__PURE__ */ shared('$chatConfig', () => atom<ChatConfig | null>(null))
/** Requests by requestId (sends and regenerates, also finished ones). */
export const $streaming = /* @__PURE__ */ shared('$streaming', () => map<Record<string, StreamState>>({}))

interface Follower {
  controller: AbortController
  topicId: string
  replyId: string
}

/** Page-wide bookkeeping beside the stores (not state anyone renders). */
const book = () =>
  shared('chat.book', () => ({
    followers: new Map<string, Follower>(),
    /** Requests stopped before the server named their reply. */
    stops: new Set<string>(),
    /** Destructive changes (clear, delete, reset) make in-flight answers stale. */
    clock: 0,
    resetAt: 0,
    epochs: {} as Record<string, number>,
    loads: {} as Record<string, number>,
    start: null as { token: string; promise: Promise<void> } | null,
  }))

const call = <T>(path: string, body: object) => request<T>(`/ai-chat/${path}`, body)

const EMPTY: TopicMessages = { list: [], hasMore: false, loading: false, loaded: false }

function epoch(topicId: string): number {
  const b = book()
  return Math.max(b.epochs[topicId] ?? 0, b.resetAt)
}

function bumpEpoch(topicId: string): void {
  const b = book()
  b.epochs[topicId] = ++b.clock
}

function slot(topicId: string): TopicMessages {
  return $messages.get()[topicId] ?? EMPTY
}

function patchSlot(topicId: string, patch: Partial<TopicMessages>): void {
  $messages.setKey(topicId, { ...slot(topicId), ...patch })
}

function patchMessage(
  topicId: string,
  messageId: string,
  patch: Partial<ChatMessage> | ((m: ChatMessage) => Partial<ChatMessage>),
): boolean {
  const s = $messages.get()[topicId]
  const i = s ? s.list.findIndex((m) => m.messageId === messageId) : -1
  if (!s || i < 0) return false
  const list = s.list.slice()
  const m = list[i]!
  list[i] = { ...m, ...(typeof patch === 'function' ? patch(m) : patch) }
  $messages.setKey(topicId, { ...s, list })
  return true
}

function removeMessages(topicId: string, drop: (m: ChatMessage) => boolean): void {
  const s = $messages.get()[topicId]
  if (s) $messages.setKey(topicId, { ...s, list: s.list.filter((m) => !drop(m)) })
}

/** Replaces a message by id with the server's copy. */
function putMessage(message: ChatMessage): void {
  patchMessage(message.topicId, message.messageId, message)
}

function findMessage(messageId: string): ChatMessage | undefined {
  for (const s of Object.values($messages.get())) {
    const m = s.list.find((x) => x.messageId === messageId)
    if (m) return m
  }
  return undefined
}

const isLocal = (m: ChatMessage) => m.messageId.startsWith('local-')

function setStream(requestId: string, state: StreamState | undefined): void {
  if (state) $streaming.setKey(requestId, state)
  else if (requestId in $streaming.get()) {
    const { [requestId]: _, ...rest } = $streaming.get()
    $streaming.set(rest)
  }
}

function patchStream(requestId: string, patch: Partial<StreamState>): void {
  const state = $streaming.get()[requestId]
  if (state) $streaming.setKey(requestId, { ...state, ...patch })
}

/** Stops following a request's stream (the server carries on; nothing more is shown). */
function unfollow(requestId: string | null): void {
  if (!requestId) return
  const { followers } = book()
  followers.get(requestId)?.controller.abort()
  followers.delete(requestId)
}

function unfollowTopic(topicId: string): void {
  for (const [requestId, f] of book().followers) if (f.topicId === topicId) unfollow(requestId)
  for (const [requestId, s] of Object.entries($streaming.get())) if (s.topicId === topicId) setStream(requestId, undefined)
}

function sortTopics(list: Topic[]): Topic[] {
  return [...list].sort((a, b) => b.topFlag - a.topFlag || b.updateTime - a.updateTime)
}

function putTopic(topic: Topic): void {
  $topics.set(sortTopics([topic, ...($topics.get() ?? []).filter((t) => t.topicId !== topic.topicId)]))
}

function touchTopic(topicId: string): void {
  const topic = $topics.get()?.find((t) => t.topicId === topicId)
  if (topic) putTopic({ ...topic, updateTime: Date.now() })
}

function errorInfo(error: unknown): { code: number; message: string } {
  if (error instanceof ApiError) return { code: error.code, message: error.message }
  return { code: 0, message: MSG_SYSTEM_ERROR }
}

const isAbort = (error: unknown) => typeof error === 'object' && error !== null && (error as Error).name === 'AbortError'

/** A v4 UUID, also on plain-http pages where `crypto.randomUUID` is missing. */
export function uuid(): string {
  const c = globalThis.crypto
  if (typeof c?.randomUUID === 'function') return c.randomUUID()
  const b = new Uint8Array(16)
  if (c?.getRandomValues) c.getRandomValues(b)
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256)
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

// ---------------------------------------------------------------------------------------------
// Topic groups

export type TopicGroupKey = 'top' | 'today' | 'week' | 'older'

export interface TopicGroup {
  key: TopicGroupKey
  /** 置顶, 今天, 七天内, 更早 */
  label: string
  topics: Topic[]
}

const GROUP_LABELS: Record<TopicGroupKey, string> = { top: '置顶', today: '今天', week: '七天内', older: '更早' }
const DAY = 864e5

const startOfDay = (ms: number) => new Date(ms).setHours(0, 0, 0, 0)

/**
 * The topic list's groups, in order, empty ones left out: 置顶 (topFlag 1), 今天 (the same
 * calendar day as `now`), 七天内 (1 to 7 calendar days before: the spec's 0–7 days difference,
 * today being its own group) and 更早. A time in the future counts as today. Topics keep their
 * order within a group.
 */
export function groupTopics(topics: Topic[], now: number = Date.now()): TopicGroup[] {
  const today = startOfDay(now)
  const groups: Record<TopicGroupKey, Topic[]> = { top: [], today: [], week: [], older: [] }
  for (const topic of topics) {
    // Rounded: a day of a daylight-saving change lasts 23 or 25 hours.
    const days = Math.round((today - startOfDay(topic.updateTime)) / DAY)
    const key: TopicGroupKey = topic.topFlag === 1 ? 'top' : days <= 0 ? 'today' : days <= 7 ? 'week' : 'older'
    groups[key].push(topic)
  }
  return (Object.keys(groups) as TopicGroupKey[])
    .filter((key) => groups[key].length)
    .map((key) => ({ key, label: GROUP_LABELS[key], topics: groups[key] }))
}

/** The request of `topicId` that is still under way (submitted or streaming), if any. */
export function activeRequest(streams: Record<string, StreamState>, topicId: string | null): [string, StreamState] | null {
  for (const entry of Object.entries(streams)) {
    const state = entry[1]
    if (state.topicId === topicId && (state.status === 'submitted' || state.status === 'streaming')) return entry
  }
  return null
}

// ---------------------------------------------------------------------------------------------
// Session

/** Forgets every conversation and stops following every stream (log out, another account). */
export function resetChat(): void {
  const b = book()
  for (const f of b.followers.values()) f.controller.abort()
  b.followers.clear()
  b.stops.clear()
  b.resetAt = ++b.clock
  b.start = null
  $topics.set(null)
  $activeTopicId.set(null)
  $messages.set({})
  $streaming.set({})
}

/**
 * What a chat widget calls when it appears (any number of times): once per page it starts
 * forgetting the conversations whenever the account changes; then, logged in, it loads the
 * models, the topics and the active topic (`topicId`, else the current one, else the newest),
 * resuming replies still streaming. Never rejects: failures are reported through notifyError.
 */
export function startChat(topicId?: string | null): Promise<void> {
  if (typeof window === 'undefined') return Promise.resolve()
  shared('chat.session', () => {
    let current = $token.get()
    $token.listen((token) => {
      if (token === current) return
      current = token
      resetChat()
    })
    return true
  })
  const token = $token.get()
  if (!token) return Promise.resolve()
  const b = book()
  if (b.start?.token === token) return b.start.promise
  const promise = (async () => {
    const [, topics] = await Promise.allSettled([
      $chatConfig.get() ? null : loadChatConfig(),
      loadTopics(),
    ])
    if (topics.status === 'rejected') return notifyError(topics.reason)
    if ($token.get() !== token) return
    const list = topics.value
    const want = topicId ?? $activeTopicId.get()
    // Looked up in the store, not the answer: a topic created meanwhile (a first message sent while
    // the models were still loading) is in it and stays the active one. Else the newest topic.
    const pick = ($topics.get() ?? list).find((t) => t.topicId === want) ?? list[0]
    await selectTopic(pick?.topicId ?? null).catch(notifyError)
  })()
  b.start = { token, promise }
  return promise
}

/** `/config/chatConfig.json` into `$chatConfig`; a missing or broken file gives an empty model list. */
export async function loadChatConfig(): Promise<ChatConfig> {
  const raw = await getJson<Partial<ChatConfig>>('/config/chatConfig.json').catch(() => ({}) as Partial<ChatConfig>)
  const models = Array.isArray(raw.models) ? raw.models.filter((m) => m && typeof m.id === 'string') : []
  const config: ChatConfig = {
    models,
    defaultModel: typeof raw.defaultModel === 'string' ? raw.defaultModel : (models[0]?.id ?? ''),
    contextEnabled: raw.contextEnabled !== false,
  }
  if (Array.isArray(raw.examples)) config.examples = raw.examples.filter((e) => typeof e === 'string')
  $chatConfig.set(config)
  return config
}

// ---------------------------------------------------------------------------------------------
// Topics

/** Lists in flight, and the topics created meanwhile (an answer may predate them). */
let listing = 0
const createdWhileListing = new Map<string, Topic>()

export async function loadTopics(): Promise<Topic[]> {
  const token = $token.get()
  listing++
  try {
    const answer = await call<Topic[]>('topic/list', {})
    const listed = Array.isArray(answer) ? answer : []
    const list = [...listed, ...[...createdWhileListing.values()].filter((t) => !listed.some((l) => l.topicId === t.topicId))]
    if ($token.get() === token) $topics.set(sortTopics(list))
    return list
  } finally {
    if (--listing === 0) createdWhileListing.clear()
  }
}

/**
 * Creates a topic (with a role: named after it, its welcome message stored as the first reply)
 * and makes it the active one.
 */
export async function createTopic(input: { name?: string; roleId?: string; model?: string } = {}): Promise<Topic> {
  const topic = await call<Topic>('topic/create', input)
  if (listing > 0) createdWhileListing.set(topic.topicId, topic)
  putTopic(topic)
  // Without a role the new topic has no messages: nothing to fetch.
  if (!topic.roleId) $messages.setKey(topic.topicId, { ...EMPTY, loaded: true })
  await selectTopic(topic.topicId)
  return topic
}

/** Makes a topic the active one, loading its newest messages the first time (null: none). */
export async function selectTopic(topicId: string | null): Promise<void> {
  $activeTopicId.set(topicId)
  if (!topicId) return
  const s = slot(topicId)
  if (!s.loaded && !s.loading) await loadMessages(topicId)
  else resumeStreams(topicId)
}

export async function renameTopic(topicId: string, name: string): Promise<Topic> {
  const value = name.trim()
  if (!value || value.length > MAX_TOPIC_NAME) throw new ApiError(40000001, `话题名称需为 1–${MAX_TOPIC_NAME} 个字`)
  const topic = await call<Topic>('topic/name/edit', { topicId, name: value })
  putTopic(topic)
  return topic
}

export async function togglePin(topicId: string): Promise<Topic> {
  const topic = await call<Topic>('topic/top/switch', { topicId })
  putTopic(topic)
  return topic
}

/** Deletes a topic; when it was the active one, the first remaining topic becomes active. */
export async function deleteTopic(topicId: string): Promise<void> {
  await call<null>('topic/del', { topicId })
  bumpEpoch(topicId)
  unfollowTopic(topicId)
  const { [topicId]: _, ...rest } = $messages.get()
  $messages.set(rest)
  const remaining = ($topics.get() ?? []).filter((t) => t.topicId !== topicId)
  $topics.set(remaining)
  if ($activeTopicId.get() === topicId) await selectTopic(remaining[0]?.topicId ?? null)
}

/** Saves the model, temperature (0–2) or context switch of a topic. */
export async function saveTopicConfig(topicId: string, config: TopicConfig): Promise<Topic> {
  const topic = await call<Topic>('topic/configs/save', { topicId, ...config })
  putTopic(topic)
  return topic
}

/** Switches whether earlier messages are sent upstream. */
export async function toggleContext(topicId: string): Promise<Topic> {
  const topic = await call<Topic>('topic/configs/context/switch', { topicId })
  putTopic(topic)
  return topic
}

// ---------------------------------------------------------------------------------------------
// Messages

/**
 * Loads a topic's newest page (replacing what was there, except what is arriving live), or with
 * `older` the page before the oldest loaded message. Pages come newest first; the page number is
 * derived from how many messages are loaded, so messages sent or deleted meanwhile leave no gap
 * (an overlap is merged away). The first page also resumes replies still streaming.
 */
export async function loadMessages(topicId: string, { older = false }: { older?: boolean } = {}): Promise<void> {
  const b = book()
  const s = slot(topicId)
  if (older && (!s.hasMore || s.loading || !s.loaded)) return
  const since = epoch(topicId)
  const load = older ? (b.loads[topicId] ?? 0) : (b.loads[topicId] = ++b.clock)
  const stale = () => epoch(topicId) !== since || b.loads[topicId] !== load
  const known = s.list.filter((m) => !isLocal(m)).length
  const pageNum = older ? Math.floor(known / MESSAGE_PAGE_SIZE) + 1 : 1
  patchSlot(topicId, { loading: true })
  let page: Paged<ChatMessage>
  try {
    page = await call<Paged<ChatMessage>>('topic/messages', { topicId, pageNum, pageSize: MESSAGE_PAGE_SIZE })
  } catch (error) {
    if (!stale()) patchSlot(topicId, { loading: false })
    throw error
  }
  if (stale()) return
  const incoming = [...(page.list ?? [])].reverse()
  const current = slot(topicId).list
  let list: ChatMessage[]
  if (older) {
    const have = new Set(current.map((m) => m.messageId))
    list = [...incoming.filter((m) => !have.has(m.messageId)), ...current]
  } else {
    // Keep what the page cannot know yet: replies followed live, messages not saved yet, and
    // anything that arrived after the page was cut.
    const live = book().followers
    const mine = new Map(current.map((m) => [m.messageId, m]))
    const ids = new Set(incoming.map((m) => m.messageId))
    const newest = incoming.at(-1)?.createTime ?? 0
    list = [
      ...incoming.map((m) => (m.requestId && live.has(m.requestId) ? (mine.get(m.messageId) ?? m) : m)),
      ...current.filter((m) => !ids.has(m.messageId) && (isLocal(m) || m.createTime > newest)),
    ]
  }
  const count = list.filter((m) => !isLocal(m)).length
  patchSlot(topicId, { list, hasMore: count < (page.total ?? 0), loading: false, loaded: true })
  if (!older) resumeStreams(topicId)
}

/**
 * Follows every reply of the topic saved as `streaming` that is not followed yet. The server
 * replays such a stream from its first event, so the replay REPLACES the saved (partial) text.
 */
export function resumeStreams(topicId: string): void {
  for (const m of slot(topicId).list) {
    if (m.role === 'assistant' && m.status === 'streaming' && m.requestId && !book().followers.has(m.requestId)) {
      setStream(m.requestId, { status: 'submitted', topicId, replyId: m.messageId })
      void follow(m.requestId, topicId, m.messageId, true)
    }
  }
}

/**
 * Applies a reply's stream to its message until a terminal event. Events reach the store only
 * while this follower is the registered one for the request (a stop, a regenerate, a clear or a
 * reset makes it stale), and each event id only once.
 */
async function follow(requestId: string, topicId: string, replyId: string, replay: boolean): Promise<StreamStatus> {
  const { followers } = book()
  followers.get(requestId)?.controller.abort()
  const controller = new AbortController()
  const me: Follower = { controller, topicId, replyId }
  followers.set(requestId, me)
  const live = () => followers.get(requestId) === me && !controller.signal.aborted
  let fresh = replay
  let lastId = 0
  let reconnected = false
  let result: StreamStatus = 'ready'

  const end = (patch: Partial<ChatMessage>, status: StreamStatus, error?: { code: number; message: string }) => {
    patchMessage(topicId, replyId, patch)
    patchStream(requestId, error ? { status, error } : { status })
    result = status
  }

  try {
    await subscribe(`/ai-chat/sse/subscribe/${encodeURIComponent(requestId)}`, {
      signal: controller.signal,
      onOpen: (n) => (reconnected ||= n > 1),
      onEvent(name, data, id) {
        if (!live()) return
        const n = Number(id)
        if (id !== undefined && Number.isFinite(n)) {
          if (n <= lastId) return // a replayed duplicate
          lastId = n
        }
        const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>
        if (name === 'delta') {
          patchMessage(topicId, replyId, (m) => {
            const base = fresh ? { content: '', thinking: null } : m
            return {
              content: base.content + (typeof d.content === 'string' ? d.content : ''),
              thinking: typeof d.thinking === 'string' ? (base.thinking ?? '') + d.thinking : base.thinking,
              status: 'streaming',
            }
          })
          fresh = false
          if ($streaming.get()[requestId]?.status !== 'streaming') patchStream(requestId, { status: 'streaming' })
        } else if (name === 'done') {
          end({ status: 'complete', usage: (d.usage as Usage | undefined) ?? null }, 'ready')
        } else if (name === 'error') {
          const code = typeof d.code === 'number' ? d.code : 0
          const message = typeof d.message === 'string' ? d.message : MSG_SYSTEM_ERROR
          end({ status: d.status === 'timeout' ? 'timeout' : 'error', errorCode: code, errorMessage: message }, 'error', { code, message })
        } else if (name === 'stopped') {
          end({ status: 'interrput' }, 'ready')
        }
      },
    })
    // The saved copy is the whole answer: fetch it when the stream may not have carried it all — a
    // replay without a single delta, or a reconnect after the server had let the events expire
    // (it then sends only the final event).
    if ((fresh || reconnected) && live()) {
      const message = await call<ChatMessage>('topic/message/get', { messageId: replyId }).catch(() => null)
      if (message && live()) putMessage(message)
    }
    if (result === 'ready' && live()) refreshUser().catch(() => {})
    return result
  } catch (error) {
    if (!live() || isAbort(error)) return 'ready'
    // The stream is gone (e.g. expired): the saved message says how the reply ended.
    const message = await call<ChatMessage>('topic/message/get', { messageId: replyId }).catch(() => null)
    if (!live()) return 'ready'
    if (message && message.status !== 'streaming') {
      putMessage(message)
      patchStream(requestId, { status: 'ready' })
      return 'ready'
    }
    const info = errorInfo(error)
    end({ status: 'error', errorCode: info.code, errorMessage: info.message }, 'error', info)
    notifyError(error)
    return 'error'
  } finally {
    if (followers.get(requestId) === me) followers.delete(requestId)
  }
}

function userMessage(topicId: string, messageId: string, content: string): ChatMessage {
  return {
    messageId,
    topicId,
    role: 'user',
    content,
    thinking: null,
    status: 'complete',
    requestId: null,
    errorCode: null,
    errorMessage: null,
    model: null,
    createTime: Date.now(),
    usage: null,
  }
}

async function sendOnce(body: object): Promise<Omit<SendResult, 'finished'>> {
  try {
    return await call('topic/message/send', body)
  } catch (error) {
    // The answer may have been lost on the way back: the same requestId makes a retry safe.
    if (!(error instanceof NetworkError)) throw error
    await new Promise((r) => setTimeout(r, 1000))
    return call('topic/message/send', body)
  }
}

/**
 * Sends a question: it shows at once (optimistic), the server's ids replace the local one, and
 * the reply is followed as it streams. Resolves when the server accepted the question (the
 * reply's end: `finished`); rejects — the question taken back off the list — when it refused
 * (e.g. 40200001, no allowance left).
 */
export async function sendMessage(topicId: string, content: string): Promise<SendResult> {
  const text = content.trim()
  if (!text) throw new ApiError(40000001, '请输入内容')
  if (text.length > MAX_MESSAGE_LENGTH) throw new ApiError(40000001, `内容不能超过 ${MAX_MESSAGE_LENGTH} 字`)
  const { stops } = book()
  const clientId = uuid()
  const localId = `local-${clientId}`
  const since = epoch(topicId)
  const first = !slot(topicId).list.some((m) => m.role === 'user')
  patchSlot(topicId, { list: [...slot(topicId).list, userMessage(topicId, localId, text)] })
  setStream(clientId, { status: 'submitted', topicId, replyId: null })
  let answer: Omit<SendResult, 'finished'>
  try {
    answer = await sendOnce({ topicId, content: text, requestId: clientId })
  } catch (error) {
    removeMessages(topicId, (m) => m.messageId === localId)
    if (epoch(topicId) === since) patchStream(clientId, { status: 'error', error: errorInfo(error) })
    throw error
  }
  const { messageId, replyId } = answer
  const requestId = answer.requestId || clientId
  const done = (finished: Promise<StreamStatus>) => ({ requestId, messageId, replyId, finished })
  if (epoch(topicId) !== since) return done(Promise.resolve('ready'))
  const stopped = stops.delete(clientId)
  setStream(clientId, undefined)
  setStream(requestId, { status: stopped ? 'ready' : 'submitted', topicId, replyId })
  patchMessage(topicId, localId, { messageId })
  patchSlot(topicId, {
    list: [
      ...slot(topicId).list,
      { ...userMessage(topicId, replyId, ''), role: 'assistant', status: 'streaming', requestId },
    ],
  })
  touchTopic(topicId)
  if (stopped) {
    call<ChatMessage>('topic/message/stop', { requestId }).then(putMessage, notifyError)
    return done(Promise.resolve('ready'))
  }
  const finished = follow(requestId, topicId, replyId, false)
  // The server may name a topic after its first question.
  if (first)
    void finished.then(() => {
      if ($token.get()) loadTopics().catch(() => {})
    })
  return done(finished)
}

/**
 * Stops a request: it returns to ready at once and the reply shows as interrupted; the server's
 * copy (the text up to the stop, or the final status if it had already ended) then replaces it.
 */
export async function stopMessage(requestId: string): Promise<void> {
  const b = book()
  const state = $streaming.get()[requestId]
  if (!state || (state.status !== 'submitted' && state.status !== 'streaming')) return
  patchStream(requestId, { status: 'ready' })
  // Followed from the moment the server accepts a request: no follower, not accepted yet. It is
  // stopped as soon as the server names the reply.
  if (!b.followers.has(requestId)) {
    b.stops.add(requestId)
    return
  }
  unfollow(requestId)
  if (state.replyId) patchMessage(state.topicId, state.replyId, (m) => (m.status === 'streaming' ? { status: 'interrput' } : {}))
  putMessage(await call<ChatMessage>('topic/message/stop', { requestId }))
}

/**
 * Writes the topic's last reply again (the server allows only the last one): the reply starts
 * over in place and is followed as it streams.
 */
export async function regenerate(replyId: string): Promise<SendResult> {
  const old = findMessage(replyId)
  if (!old) throw new ApiError(40400001, '消息不存在')
  const { topicId } = old
  const { stops } = book()
  const since = epoch(topicId)
  unfollow(old.requestId)
  if (old.requestId) setStream(old.requestId, undefined)
  const key = `local-${uuid()}`
  setStream(key, { status: 'submitted', topicId, replyId })
  patchMessage(topicId, replyId, { content: '', thinking: null, status: 'streaming', errorCode: null, errorMessage: null, usage: null })
  let answer: Omit<SendResult, 'finished'>
  try {
    answer = await call('topic/message/regenerate', { replyId })
  } catch (error) {
    patchMessage(topicId, replyId, old)
    setStream(key, undefined)
    throw error
  }
  const { requestId, messageId } = answer
  const done = (finished: Promise<StreamStatus>) => ({ requestId, messageId, replyId: answer.replyId, finished })
  setStream(key, undefined)
  if (epoch(topicId) !== since) return done(Promise.resolve('ready'))
  const stopped = stops.delete(key)
  patchMessage(topicId, replyId, { messageId: answer.replyId, requestId, createTime: Date.now() })
  setStream(requestId, { status: stopped ? 'ready' : 'submitted', topicId, replyId: answer.replyId })
  touchTopic(topicId)
  if (stopped) {
    call<ChatMessage>('topic/message/stop', { requestId }).then(putMessage, notifyError)
    return done(Promise.resolve('ready'))
  }
  return done(follow(requestId, topicId, answer.replyId, false))
}

export async function deleteMessage(messageId: string): Promise<void> {
  const m = findMessage(messageId)
  if (m && isLocal(m)) return
  await call<null>('topic/message/del', { messageId })
  if (!m) return
  unfollow(m.requestId)
  if (m.requestId) setStream(m.requestId, undefined)
  removeMessages(m.topicId, (x) => x.messageId === messageId)
}

/** Deletes every message of a topic. */
export async function clearTopic(topicId: string): Promise<void> {
  await call<null>('topic/message/clear', { topicId })
  bumpEpoch(topicId)
  unfollowTopic(topicId)
  $messages.setKey(topicId, { ...EMPTY, loaded: true })
}
