import { ApiError } from '../../core/api'
import { selectTopic } from './replies'
import { $activeTopicId, $messages, $topics, bumpEpoch, call, MAX_TOPIC_NAME, putTopic, type Topic, unfollowTopic } from './state'

// What the topic list does to a topic (rename, pin, delete): in the list's own chunk, so a chat
// that shows no list (the bubble's first screen) does not load it.

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
