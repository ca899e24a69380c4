import { ApiError, notifyError } from '../../core/api'
import { follow, loadMessages } from './replies'
import {
  $messages,
  book,
  bumpEpoch,
  call,
  type ChatMessage,
  EMPTY,
  epoch,
  findMessage,
  isLocal,
  patchMessage,
  patchSlot,
  putMessage,
  removeMessages,
  type SendResult,
  type StreamStatus,
  setStream,
  slot,
  touchTopic,
  unfollow,
  unfollowTopic,
  uuid
} from './state'

// What a person does to messages already there (regenerate, delete, clear, another version shown):
// loaded on the first such action, so a chat that only reads and sends does not carry it.

/**
 * Writes the topic's last reply again (the server allows only the last one): the reply starts
 * over in place and is followed as it streams; the old one stays on the server as the version
 * before it (‹ 1/2 ›).
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
  const n = (old.versions ?? 1) + 1
  patchMessage(topicId, replyId, { messageId: answer.replyId, requestId, createTime: Date.now(), version: n, versions: n })
  setStream(requestId, { status: stopped ? 'ready' : 'submitted', topicId, replyId: answer.replyId })
  touchTopic(topicId)
  if (stopped) {
    call<ChatMessage>('topic/message/stop', { requestId }).then(putMessage, notifyError)
    return done(Promise.resolve('ready'))
  }
  return done(follow(requestId, topicId, answer.replyId, false))
}

/** Shows the branch the server now shows from `messageId` on (another version chosen or deleted). */
export async function reloadBranch(topicId: string, messageId: string): Promise<void> {
  const list = slot(topicId).list
  const i = list.findIndex((m) => m.messageId === messageId)
  // Replies of the branch left are followed again only if shown (resumeStreams replays them whole).
  unfollowTopic(topicId)
  patchSlot(topicId, { list: i < 0 ? list : list.slice(0, i) })
  await loadMessages(topicId)
}

export async function deleteMessage(messageId: string): Promise<void> {
  const m = findMessage(messageId)
  if (m && isLocal(m)) return
  await call<null>('topic/message/del', { messageId })
  if (!m) return
  unfollow(m.requestId)
  if (m.requestId) setStream(m.requestId, undefined)
  // One of several versions: the server shows another in its place.
  if (m.versions) return reloadBranch(m.topicId, messageId)
  removeMessages(m.topicId, (x) => x.messageId === messageId)
}

/** Deletes every message of a topic. */
export async function clearTopic(topicId: string): Promise<void> {
  await call<null>('topic/message/clear', { topicId })
  bumpEpoch(topicId)
  unfollowTopic(topicId)
  $messages.setKey(topicId, { ...EMPTY, loaded: true })
}
