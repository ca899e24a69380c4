import type { MessageRole, Topic, ChatModel as WireChatModel, Message as WireMessage, SendResult as WireSendResult } from '@lingxi/server/wire'
import { atom, map } from 'nanostores'
import { ApiError, request } from '../../core/api'
import { MSG_SYSTEM_ERROR } from '../../core/messages'
import { shared } from '../../core/shared'
import { $token } from '../../core/stores'
import { EVENT_NAVIGATE } from '../../core/wire'

// The chat's shapes, stores and the bookkeeping its actions share (topics.ts: the session and
// topics; replies.ts: messages and streams). Shapes and calls: docs/chat-wire.md; the wire
// objects are the server's (`@lingxi/server/wire`, type-only).

/**
 * A topic (topic/list, topic/create): topFlag 1 = pinned; roleId, roleName and roleAvatar (an
 * emoji or an image URL) are set when it was started from a role; contextEnabled 1 = earlier
 * messages go upstream with each question.
 */
export type { Topic }
export type { Usage } from '@lingxi/server/wire'

export type ChatRole = MessageRole

/** A message (topic/messages): thinking is the model's reasoning; requestId names a reply's stream. */
export type ChatMessage = WireMessage

/**
 * A model of `/config/chatConfig.json` as the chat reads it: a file an operator may write by hand,
 * so only id and name are sure to be there.
 */
export type ChatModel = Pick<WireChatModel, 'id' | 'name'> & Partial<Pick<WireChatModel, 'provider' | 'contextLength' | 'price'>>

/** Files the composer hands to the next sendMessage (attach/tray.tsx, loaded on first use). */
export const outbox: { files: NonNullable<ChatMessage['attachments']> } = { files: [] }

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

/** `topic/message/send` and `regenerate`'s answer, and when the reply's stream is over. */
export interface SendResult extends WireSendResult {
  /** Settles when the reply's stream is over, with the request's last status. */
  finished: Promise<StreamStatus>
}

/** The page a question is asked on, sent with it (`page` of topic/message/send, API.md). */
export interface PageInfo {
  title?: string
  url?: string
}

/**
 * What the page asked of the element (`send(text)`, `prefill(text)`): carried out once by the
 * conversation when it is there (after the login, for a visitor), then marked done.
 */
export interface ChatRequest {
  send?: string
  prefill?: string
  done?: boolean
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

export { EVENT_NAVIGATE }

/**
 * detail `{command}`: the page's own controls drive the chat widgets (the host's header on
 * phones: the manifest's `header`, tool.ts, names the same event).
 */
export const EVENT_CHAT_COMMAND = 'lingxi-chat-command'

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

export interface Follower {
  controller: AbortController
  topicId: string
  replyId: string
}

/** Page-wide bookkeeping beside the stores (not state anyone renders). */
export const book = () =>
  shared('chat.book', () => ({
    followers: new Map<string, Follower>(),
    /** Requests stopped before the server named their reply. */
    stops: new Set<string>(),
    /** Destructive changes (clear, delete, reset) make in-flight answers stale. */
    clock: 0,
    resetAt: 0,
    epochs: {} as Record<string, number>,
    loads: {} as Record<string, number>,
    start: null as { token: string; promise: Promise<void> } | null
  }))

export const call = <T>(path: string, body: object) => request<T>(`/ai-chat/${path}`, body)

export const EMPTY: TopicMessages = { list: [], hasMore: false, loading: false, loaded: false }

export function epoch(topicId: string): number {
  const b = book()
  return Math.max(b.epochs[topicId] ?? 0, b.resetAt)
}

export function bumpEpoch(topicId: string): void {
  const b = book()
  b.epochs[topicId] = ++b.clock
}

export function slot(topicId: string): TopicMessages {
  return $messages.get()[topicId] ?? EMPTY
}

export function patchSlot(topicId: string, patch: Partial<TopicMessages>): void {
  $messages.setKey(topicId, { ...slot(topicId), ...patch })
}

export function patchMessage(topicId: string, messageId: string, patch: Partial<ChatMessage> | ((m: ChatMessage) => Partial<ChatMessage>)): boolean {
  const s = $messages.get()[topicId]
  const i = s ? s.list.findIndex((m) => m.messageId === messageId) : -1
  if (!s || i < 0) return false
  const list = s.list.slice()
  const m = list[i]!
  list[i] = { ...m, ...(typeof patch === 'function' ? patch(m) : patch) }
  $messages.setKey(topicId, { ...s, list })
  return true
}

export function removeMessages(topicId: string, drop: (m: ChatMessage) => boolean): void {
  const s = $messages.get()[topicId]
  if (s) $messages.setKey(topicId, { ...s, list: s.list.filter((m) => !drop(m)) })
}

/** Replaces a message by id with the server's copy. */
export function putMessage(message: ChatMessage): void {
  patchMessage(message.topicId, message.messageId, message)
}

export function findMessage(messageId: string): ChatMessage | undefined {
  for (const s of Object.values($messages.get())) {
    const m = s.list.find((x) => x.messageId === messageId)
    if (m) return m
  }
  return undefined
}

export const isLocal = (m: ChatMessage) => m.messageId.startsWith('local-')

export function setStream(requestId: string, state: StreamState | undefined): void {
  if (state) $streaming.setKey(requestId, state)
  else if (requestId in $streaming.get()) {
    const { [requestId]: _, ...rest } = $streaming.get()
    $streaming.set(rest)
  }
}

export function patchStream(requestId: string, patch: Partial<StreamState>): void {
  const state = $streaming.get()[requestId]
  if (state) $streaming.setKey(requestId, { ...state, ...patch })
}

/** Stops following a request's stream (the server carries on; nothing more is shown). */
export function unfollow(requestId: string | null): void {
  if (!requestId) return
  const { followers } = book()
  followers.get(requestId)?.controller.abort()
  followers.delete(requestId)
}

export function unfollowTopic(topicId: string): void {
  for (const [requestId, f] of book().followers) if (f.topicId === topicId) unfollow(requestId)
  for (const [requestId, s] of Object.entries($streaming.get())) if (s.topicId === topicId) setStream(requestId, undefined)
}

export function sortTopics(list: Topic[]): Topic[] {
  return [...list].sort((a, b) => b.topFlag - a.topFlag || b.updateTime - a.updateTime)
}

export function putTopic(topic: Topic): void {
  $topics.set(sortTopics([topic, ...($topics.get() ?? []).filter((t) => t.topicId !== topic.topicId)]))
}

export function touchTopic(topicId: string): void {
  const topic = $topics.get()?.find((t) => t.topicId === topicId)
  if (topic) putTopic({ ...topic, updateTime: Date.now() })
}

export function errorInfo(error: unknown): { code: number; message: string } {
  if (error instanceof ApiError) return { code: error.code, message: error.message }
  return { code: 0, message: MSG_SYSTEM_ERROR }
}

export const isAbort = (error: unknown) => typeof error === 'object' && error !== null && (error as Error).name === 'AbortError'

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

/** Notes a topic created while a list is in flight, so that list's answer does not drop it. */
export function noteCreated(topic: Topic): void {
  if (listing > 0) createdWhileListing.set(topic.topicId, topic)
}

/** The request of `topicId` that is still under way (submitted or streaming), if any. */
export function activeRequest(streams: Record<string, StreamState>, topicId: string | null): [string, StreamState] | null {
  for (const entry of Object.entries(streams)) {
    const state = entry[1]
    if (state.topicId === topicId && (state.status === 'submitted' || state.status === 'streaming')) return entry
  }
  return null
}
