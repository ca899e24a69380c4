import { ApiError, NetworkError, notifyError } from '../../core/api'
import { refreshUser } from '../../core/auth'
import { MSG_SYSTEM_ERROR } from '../../core/messages'
import type { Paged } from '../../core/paged-list'
import { $token, $user, saveUser } from '../../core/stores'
import {
  $activeTopicId,
  $streaming,
  book,
  call,
  epoch,
  errorInfo,
  isAbort,
  isLocal,
  loadTopics,
  MAX_MESSAGE_LENGTH,
  MESSAGE_PAGE_SIZE,
  outbox,
  patchMessage,
  patchSlot,
  patchStream,
  putMessage,
  removeMessages,
  setStream,
  slot,
  touchTopic,
  unfollow,
  uuid,
  type ChatMessage,
  type Follower,
  type SendResult,
  type StreamStatus,
  type Usage,
  type PageInfo
} from './state'

// A topic's messages and the replies streaming into them (docs/chat-wire.md, Streams).

/** Makes a topic the active one, loading its newest messages the first time (null: none). */
export async function selectTopic(topicId: string | null): Promise<void> {
  $activeTopicId.set(topicId)
  if (!topicId) return
  const s = slot(topicId)
  if (!s.loaded && !s.loading) await loadMessages(topicId)
  else resumeStreams(topicId)
}

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
  if (!older) b.loads[topicId] = ++b.clock
  const load = b.loads[topicId] ?? 0
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
      ...current.filter((m) => !ids.has(m.messageId) && (isLocal(m) || m.createTime > newest))
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
export async function follow(requestId: string, topicId: string, replyId: string, replay: boolean): Promise<StreamStatus> {
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
  /** What the finished reply took from the balance (its `done` event's usage.charged). */
  let charged: number | undefined

  const end = (patch: Partial<ChatMessage>, status: StreamStatus, error?: { code: number; message: string }) => {
    patchMessage(topicId, replyId, patch)
    patchStream(requestId, error ? { status, error } : { status })
    result = status
  }

  try {
    // The stream parser loads with the first reply to follow: the chat's first screen needs none.
    const { subscribe } = await import('../../core/sse')
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
              status: 'streaming'
            }
          })
          fresh = false
          if ($streaming.get()[requestId]?.status !== 'streaming') patchStream(requestId, { status: 'streaming' })
        } else if (name === 'done') {
          const usage = (d.usage as Usage | undefined) ?? null
          charged = typeof usage?.charged === 'number' ? usage.charged : undefined
          end({ status: 'complete', usage }, 'ready')
        } else if (name === 'error') {
          const code = typeof d.code === 'number' ? d.code : 0
          const message = typeof d.message === 'string' ? d.message : MSG_SYSTEM_ERROR
          end({ status: d.status === 'timeout' ? 'timeout' : 'error', errorCode: code, errorMessage: message }, 'error', { code, message })
        } else if (name === 'stopped') {
          end({ status: 'interrput' }, 'ready')
        } else if (name === 'moderated') {
          // Content safety stopped the reply: what was shown is replaced by the server's notice.
          patchMessage(topicId, replyId, { content: typeof d.content === 'string' ? d.content : '', thinking: null })
          fresh = false
        }
      }
    })
    // The saved copy is the whole answer: fetch it when the stream may not have carried it all — a
    // replay without a single delta, or a reconnect after the server had let the events expire
    // (it then sends only the final event).
    if ((fresh || reconnected) && live()) {
      const message = await call<ChatMessage>('topic/message/get', { messageId: replyId }).catch(() => null)
      if (message && live()) putMessage(message)
    }
    if (result === 'ready' && live()) settleBalance(replay, charged)
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

/**
 * The balance after a reply: the `done` event says what it took, so a reply followed from its
 * send takes that off `$user` without asking `user/info` again (the balance had the hold taken
 * off only on the server). A replayed reply (resumed after a reload) was held before `$user`
 * was read, and a stopped one says nothing of its cost: those ask the server.
 */
function settleBalance(replay: boolean, charged: number | undefined): void {
  const user = $user.get()
  if (!replay && charged !== undefined && user) saveUser({ ...user, tokens: Math.max(0, user.tokens - charged) })
  else refreshUser().catch(() => {})
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
    usage: null
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
 * (e.g. 40200001, no allowance left). `page`: the page's title and URL, for this question only.
 */
export async function sendMessage(topicId: string, content: string, page?: PageInfo): Promise<SendResult> {
  const text = content.trim()
  if (!text) throw new ApiError(40000001, '请输入内容')
  if (text.length > MAX_MESSAGE_LENGTH) throw new ApiError(40000001, `内容不能超过 ${MAX_MESSAGE_LENGTH} 字`)
  const { stops } = book()
  const clientId = uuid()
  const localId = `local-${clientId}`
  const since = epoch(topicId)
  const first = !slot(topicId).list.some((m) => m.role === 'user')
  const { files } = outbox
  outbox.files = []
  patchSlot(topicId, { list: [...slot(topicId).list, { ...userMessage(topicId, localId, text), attachments: files[0] && files }] })
  setStream(clientId, { status: 'submitted', topicId, replyId: null })
  // The stream parser (follow) comes while the server accepts the question, not after.
  import('../../core/sse').catch(() => {})
  let answer: Omit<SendResult, 'finished'>
  try {
    answer = await sendOnce({ topicId, content: text, requestId: clientId, attachmentIds: files[0] && files.map((f) => f.attachmentId), page })
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
    list: [...slot(topicId).list, { ...userMessage(topicId, replyId, ''), role: 'assistant', status: 'streaming', requestId }]
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
