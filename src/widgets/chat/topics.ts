import { getJson, notifyError } from '../../core/api'
import { $handoffs, takeHandoff } from '../../core/handoff'
import { shared } from '../../core/shared'
import { $token } from '../../core/stores'
import { $topicsError } from './notice'
import { selectTopic } from './replies'
import {
  $activeTopicId,
  $chatConfig,
  $messages,
  $topics,
  book,
  call,
  EMPTY,
  loadTopics,
  noteCreated,
  putTopic,
  resetChat,
  slot,
  type ChatConfig,
  type Topic,
  type TopicConfig
} from './state'

// The chat session (starting, the account changing, the models) and the topics.

/**
 * What a chat widget calls when it appears (any number of times): once per page it starts
 * forgetting the conversations whenever the account changes; then, logged in, it opens a topic
 * another tool left for it, and loads the models, the topics and the active topic (`topicId`,
 * else the current one, else the newest), resuming replies still streaming. Never rejects: failures are reported through notifyError.
 */
export function startChat(topicId?: string | null): Promise<void> {
  if (typeof window === 'undefined') return Promise.resolve()
  shared('chat.session', () => {
    let current = $token.get()
    $token.listen((token) => {
      if (token === current) return
      current = token
      resetChat()
      $topicsError.set(null)
    })
    // A topic left while a chat is on the page opens at once.
    $handoffs.listen(() => adopt(takeHandoff('chat')))
    return true
  })
  const token = $token.get()
  if (!token) return Promise.resolve()
  adopt(takeHandoff('chat'))
  const b = book()
  if (b.start?.token === token) return b.start.promise
  const promise = (async () => {
    const [, topics] = await Promise.allSettled([$chatConfig.get() ? null : loadChatConfig(), loadTopics()])
    if (topics.status === 'rejected') {
      $topicsError.set(topics.reason instanceof Error && topics.reason.message ? topics.reason.message : '话题加载失败')
      return notifyError(topics.reason)
    }
    $topicsError.set(null)
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
    contextEnabled: raw.contextEnabled !== false
  }
  if (Array.isArray(raw.examples)) config.examples = raw.examples.filter((e) => typeof e === 'string')
  $chatConfig.set(config)
  return config
}

/** Puts a new topic on the list and makes it the active one. */
async function open(topic: Topic): Promise<Topic> {
  noteCreated(topic)
  putTopic(topic)
  // Without a role the new topic has no messages: nothing to fetch.
  if (!topic.roleId) $messages.setKey(topic.topicId, { ...EMPTY, loaded: true })
  await selectTopic(topic.topicId)
  return topic
}

/** The last topic creation: a question sent while it runs goes to the topic it opens. */
export let creating: Promise<unknown> | undefined

/**
 * Creates a topic (with a role: named after it, its welcome message stored as the first reply)
 * and makes it the active one.
 */
export function createTopic(input: { name?: string; roleId?: string; model?: string } = {}): Promise<Topic> {
  const topic = call<Topic>('topic/create', input).then(open)
  creating = topic
  return topic
}

/** Opens a topic another tool started and left for the chat (a role's: see the role repository). */
function adopt(value: unknown): void {
  const topic = value as Topic | undefined
  if (topic && typeof topic.topicId === 'string') open(topic).catch(notifyError)
}

/**
 * After a topic's first question is answered, its automatic title (the server names the topic
 * then; with a title model it answers once the model's title is saved).
 */
export function awaitTitle(topicId: string, finished: Promise<unknown>): void {
  if (slot(topicId).list.filter((m) => m.role === 'user').length !== 1) return
  void finished
    .then(() => call<Topic>('topic/title', { topicId }))
    .then(
      (t) => $topics.get()?.some((x) => x.topicId === t.topicId) && putTopic(t),
      () => {}
    )
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
