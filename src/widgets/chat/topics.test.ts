// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { $config } from '../../core/config'
import { handOff } from '../../core/handoff'
import { setUpFakeChat, view } from './fake-chat.test-helper'
import { selectTopic } from './replies'
import { $activeTopicId, $chatConfig, $messages, $topics, type Topic } from './state'
import { deleteTopic, renameTopic, togglePin } from './topic-actions'
import { createTopic, startChat, toggleContext } from './topics'

// The chat session and its topics (topics.ts), against a loopback fake of the chat endpoints.

const fake = setUpFakeChat()

describe('topics', () => {
  it('startChat loads the models and the topics and opens the newest topic', async () => {
    const older = fake.addTopic({ name: '旧话题' })
    const newer = fake.addTopic({ name: '新话题' })
    fake.addMessage(newer.topicId, { content: '在吗' })
    await startChat()
    expect($chatConfig.get()?.models.map((m) => m.id)).toEqual(['lingxi-demo'])
    expect($topics.get()?.map((t) => t.topicId)).toEqual([newer.topicId, older.topicId])
    expect($activeTopicId.get()).toBe(newer.topicId)
    expect(view(newer.topicId)).toEqual(['user:在吗:complete'])
  })

  it('a topic created while startChat is still loading stays the active one', async () => {
    // The first message sent right after login: the topic list has answered (empty), the models
    // have not, and the send creates a topic. startChat must not then reset the view to no topic.
    $chatConfig.set(null)
    const release = fake.gate('config')
    const started = startChat()
    await vi.waitFor(() => expect($topics.get()).toEqual([]))
    const created = await createTopic()
    expect($activeTopicId.get()).toBe(created.topicId)
    release()
    await started
    expect($activeTopicId.get()).toBe(created.topicId)
    expect($topics.get()?.map((t) => t.topicId)).toEqual([created.topicId])
  })

  it('createTopic makes the new topic active; a role topic starts with its welcome message', async () => {
    const plain = await createTopic()
    expect($activeTopicId.get()).toBe(plain.topicId)
    expect($messages.get()[plain.topicId]).toMatchObject({ list: [], loaded: true })
    expect(fake.to('topic/messages')).toEqual([]) // a new topic without a role has nothing to load
    const role = await createTopic({ roleId: 'role-1' })
    expect(fake.to('topic/create').map((c) => c.body)).toEqual([{}, { roleId: 'role-1' }])
    expect($activeTopicId.get()).toBe(role.topicId)
    expect(view(role.topicId)).toEqual(['assistant:你好，我是翻译官。:complete'])
  })

  /** What the role repository's 开始对话 does: a topic created with the role, left for the chat. */
  function roleTopic(): Topic {
    const topic = fake.addTopic({ name: '翻译官', roleId: 'role-1' })
    fake.addMessage(topic.topicId, { role: 'assistant', content: '你好，我是翻译官。' })
    return topic
  }

  it('opens a topic another tool left for it (开始对话 on a role) at once while it runs, before a pinned one', async () => {
    const pinned = fake.addTopic({ name: '置顶', topFlag: 1 })
    await startChat()
    expect($activeTopicId.get()).toBe(pinned.topicId)
    const role = roleTopic()
    handOff('chat', role)
    await vi.waitFor(() => expect($activeTopicId.get()).toBe(role.topicId))
    await vi.waitFor(() => expect(view(role.topicId)).toEqual(['assistant:你好，我是翻译官。:complete']))
    expect($topics.get()?.map((t) => t.topicId)).toEqual([pinned.topicId, role.topicId])
  })

  it('opens a topic left before any chat code ran, when the chat starts (开始对话, then /chat)', async () => {
    const { apiBase } = $config.get()
    const KEY = Symbol.for('lingxi.v1')
    const g = globalThis as unknown as Record<symbol, unknown>
    const page = g[KEY]
    delete g[KEY]
    vi.resetModules()
    try {
      // a page where only the role repository has run so far
      ;(await import('../../core/config')).configure({ apiBase })
      ;(await import('../../core/stores')).$token.set('tok')
      const pinned = fake.addTopic({ name: '置顶', topFlag: 1 })
      const role = roleTopic()
      ;(await import('../../core/handoff')).handOff('chat', role)
      const chat = { ...(await import('./state')), ...(await import('./topics')) }
      await chat.startChat()
      expect(chat.$activeTopicId.get()).toBe(role.topicId)
      expect(chat.$topics.get()?.map((t) => t.topicId)).toEqual([pinned.topicId, role.topicId])
      await vi.waitFor(() => expect(chat.$messages.get()[role.topicId]?.list.map((m) => m.content)).toEqual(['你好，我是翻译官。']))
    } finally {
      g[KEY] = page
    }
  })

  it('pins, renames, saves config and deletes, keeping the list ordered', async () => {
    const a = fake.addTopic({ name: 'a' })
    const b = fake.addTopic({ name: 'b' })
    await startChat()
    expect($topics.get()?.map((t) => t.name)).toEqual(['b', 'a'])
    await togglePin(a.topicId)
    expect($topics.get()?.map((t) => [t.name, t.topFlag])).toEqual([
      ['a', 1],
      ['b', 0]
    ])
    await renameTopic(b.topicId, '  周末计划 ')
    expect(fake.to('topic/name/edit')[0]!.body).toEqual({ topicId: b.topicId, name: '周末计划' })
    await expect(renameTopic(b.topicId, '   ')).rejects.toMatchObject({ code: 40000001 })
    await expect(renameTopic(b.topicId, 'x'.repeat(51))).rejects.toMatchObject({ code: 40000001 })
    expect(fake.to('topic/name/edit')).toHaveLength(1)
    await toggleContext(b.topicId)
    expect($topics.get()?.find((t) => t.topicId === b.topicId)?.contextEnabled).toBe(0)
    await selectTopic(b.topicId)
    await deleteTopic(b.topicId)
    expect($topics.get()?.map((t) => t.name)).toEqual(['a'])
    expect($activeTopicId.get()).toBe(a.topicId)
    expect($messages.get()[b.topicId]).toBeUndefined()
  })
})
