import type { SendResult as WireSendResult, SwitchResult } from '@lingxi/server/wire'
import { ApiError, notifyError } from '../../../core/api'
import { reloadBranch } from '../message-actions'
import { follow, resumeStreams } from '../replies'
import {
  book,
  call,
  type ChatMessage,
  epoch,
  findMessage,
  MAX_MESSAGE_LENGTH,
  patchMessage,
  patchSlot,
  putMessage,
  type SendResult,
  type StreamStatus,
  setStream,
  slot,
  touchTopic,
  unfollowTopic,
  uuid
} from '../state'

// Edit and resend, and the versions of a message (docs/chat-wire.md, Branches): loaded with the
// inline editor or the version switcher, the first time either shows.

/**
 * Asks an edited question again: the new version shows at once in place of the old one, with
 * nothing after it (what followed the old one stays on the server, a branch to switch back to),
 * then its reply streams like a sent question's. Rejects — the old version back in place — when
 * the server refused (e.g. 40200001, no allowance left). A reply of the topic still streaming is
 * stopped by the server first (it stays, interrupted, with the old version).
 */
export async function editMessage(messageId: string, content: string): Promise<SendResult> {
  const text = content.trim()
  if (!text) throw new ApiError(40000001, '请输入内容')
  if (text.length > MAX_MESSAGE_LENGTH) throw new ApiError(40000001, `内容不能超过 ${MAX_MESSAGE_LENGTH} 字`)
  const old = findMessage(messageId)
  if (old?.role !== 'user') throw new ApiError(40400001, '消息不存在')
  const { topicId } = old
  const before = slot(topicId).list
  const at = before.findIndex((m) => m.messageId === messageId)
  const n = (old.versions ?? 1) + 1
  const clientId = uuid()
  const localId = `local-${clientId}`
  const since = epoch(topicId)
  // The old version's replies are another branch now: no longer followed here.
  unfollowTopic(topicId)
  patchSlot(topicId, { list: [...before.slice(0, at), { ...old, messageId: localId, content: text, createTime: Date.now(), version: n, versions: n }] })
  setStream(clientId, { status: 'submitted', topicId, replyId: null })
  import('../../../core/sse').catch(() => {})
  let answer: WireSendResult
  try {
    answer = await call<WireSendResult>('topic/message/edit', { messageId, content: text, requestId: clientId })
  } catch (error) {
    setStream(clientId, undefined)
    if (epoch(topicId) === since) {
      patchSlot(topicId, { list: before })
      resumeStreams(topicId)
    }
    throw error
  }
  const { replyId } = answer
  const requestId = answer.requestId || clientId
  const done = (finished: Promise<StreamStatus>) => ({ requestId, messageId: answer.messageId, replyId, finished })
  setStream(clientId, undefined)
  if (epoch(topicId) !== since) return done(Promise.resolve('ready'))
  const stopped = book().stops.delete(clientId)
  setStream(requestId, { status: stopped ? 'ready' : 'submitted', topicId, replyId })
  patchMessage(topicId, localId, { messageId: answer.messageId })
  const reply: ChatMessage = {
    messageId: replyId,
    topicId,
    role: 'assistant',
    content: '',
    thinking: null,
    status: 'streaming',
    requestId,
    errorCode: null,
    errorMessage: null,
    model: null,
    createTime: Date.now(),
    usage: null
  }
  patchSlot(topicId, { list: [...slot(topicId).list, reply] })
  touchTopic(topicId)
  if (stopped) {
    call<ChatMessage>('topic/message/stop', { requestId }).then(putMessage, notifyError)
    return done(Promise.resolve('ready'))
  }
  return done(follow(requestId, topicId, replyId, false))
}

/**
 * Shows another version of a message (1-based) and the branch last written after it; the server
 * keeps the choice (a reload shows it). Resolves with the id of the version now shown.
 */
export async function switchVersion(message: ChatMessage, version: number): Promise<string> {
  const answer = await call<SwitchResult>('topic/message/switch', { messageId: message.messageId, version })
  await reloadBranch(message.topicId, message.messageId)
  return answer.messageId
}
