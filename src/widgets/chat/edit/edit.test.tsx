// @vitest-environment happy-dom
import { createElement } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { setUpFakeChat, UUID, view } from '../fake-chat.test-helper'
import { deleteMessage, regenerate } from '../message-actions'
import { selectTopic, sendMessage } from '../replies'
import { $messages, $streaming, type ChatMessage } from '../state'
import { editMessage, switchVersion } from './actions'
import { Editor, Versions } from './index'

// Edit and resend, and the versions of a message (edit/actions.ts, edit/index.tsx), against the
// loopback fake of the chat endpoints, taught here what the server does with branches: an edit
// puts the old version's branch aside, a switch brings a branch back.

const fake = setUpFakeChat()
const list = (topicId: string) => $messages.get()[topicId]?.list ?? []

/** Branches put aside, by the id of the version that starts them. */
let aside: Map<string, ChatMessage[]>
const base = fake.handle.bind(fake)
fake.handle = (path: string, body: Record<string, unknown>) => {
  if (path === 'topic/message/edit') {
    const old = fake.message(String(body.messageId))
    if (!old) throw { code: 40400001, message: '消息不存在或已删除', status: 404 }
    const mine = fake.messages.filter((m) => m.topicId === old.topicId)
    const from = mine.indexOf(old)
    const n = (old.versions ?? 1) + 1
    aside.set(
      old.messageId,
      mine.slice(from).map((m, i) => (i === 0 ? { ...m, version: 1, versions: n } : m))
    )
    fake.messages = fake.messages.filter((m) => !mine.slice(from).includes(m))
    const question = fake.addMessage(old.topicId, { content: body.content as string, version: n, versions: n })
    return fake.reply(old.topicId, question.messageId, (body.requestId as string) ?? fake.id('r'))
  }
  if (path === 'topic/message/switch') {
    const shown = fake.message(String(body.messageId))!
    const mine = fake.messages.filter((m) => m.topicId === shown.topicId)
    const from = mine.indexOf(shown)
    const [id, branch] = [...aside.entries()].find(([, b]) => b[0]!.version === body.version)!
    aside.delete(id)
    aside.set(shown.messageId, mine.slice(from))
    fake.messages = [...fake.messages.filter((m) => !mine.slice(from).includes(m)), ...branch]
    return { topicId: shown.topicId, messageId: branch[0]!.messageId, leafId: branch.at(-1)!.messageId }
  }
  return base(path, body)
}

async function exchange() {
  aside = new Map()
  const t = fake.addTopic().topicId
  const q1 = fake.addMessage(t, { content: '问一' })
  fake.addMessage(t, { role: 'assistant', content: '答一' })
  const q2 = fake.addMessage(t, { content: '问二' })
  fake.addMessage(t, { role: 'assistant', content: '答二' })
  await selectTopic(t)
  return { t, q1, q2 }
}

describe('editMessage', () => {
  it('shows the new version at once in place of the old, with nothing after it, then streams its reply', async () => {
    const { t, q2 } = await exchange()
    const release = fake.gate('topic/message/edit')
    const editing = editMessage(q2.messageId, '  问二（改）  ')
    expect(view(t)).toEqual(['user:问一:complete', 'assistant:答一:complete', 'user:问二（改）:complete'])
    expect(list(t)[2]).toMatchObject({ messageId: expect.stringMatching(/^local-/), version: 2, versions: 2 })
    release()
    const sent = await editing
    expect(fake.to('topic/message/edit')[0]!.body).toEqual({ messageId: q2.messageId, content: '问二（改）', requestId: expect.stringMatching(UUID) })
    expect(list(t).map((m) => m.messageId)).toEqual([list(t)[0]!.messageId, list(t)[1]!.messageId, sent.messageId, sent.replyId])
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { content: '新答' })
    fake.emit(sent.requestId, 'done', { status: 'complete' })
    expect(await sent.finished).toBe('ready')
    expect(view(t)).toEqual(['user:问一:complete', 'assistant:答一:complete', 'user:问二（改）:complete', 'assistant:新答:complete'])
  })

  it('puts the old version and its replies back when the server refuses', async () => {
    const { t, q2 } = await exchange()
    const before = list(t)
    fake.failures['topic/message/edit'] = { code: 40200001, message: '对话额度不足', status: 402 }
    await expect(editMessage(q2.messageId, '改')).rejects.toMatchObject({ code: 40200001 })
    expect(list(t)).toEqual(before)
    expect(Object.values($streaming.get())).toEqual([])
  })

  it('refuses empty or too long text without asking the server', async () => {
    const { q2 } = await exchange()
    await expect(editMessage(q2.messageId, '   ')).rejects.toMatchObject({ code: 40000001 })
    await expect(editMessage(q2.messageId, '长'.repeat(20_001))).rejects.toMatchObject({ code: 40000001 })
    expect(fake.to('topic/message/edit')).toEqual([])
  })

  it('stops following a reply of the old version still arriving (the server stops it)', async () => {
    const { t } = await exchange()
    const third = await sendMessage(t, '问三')
    await vi.waitFor(() => expect(fake.subscriptions(third.requestId)).toHaveLength(1))
    fake.emit(third.requestId, 'delta', { content: '旧' })
    await vi.waitFor(() => expect(list(t).at(-1)!.content).toBe('旧'))
    const sent = await editMessage(third.messageId, '问三（改）')
    expect($streaming.get()[third.requestId]).toBeUndefined()
    fake.emit(third.requestId, 'delta', { content: '还在写' })
    expect($streaming.get()[sent.requestId]?.status).toMatch(/submitted|streaming/)
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { content: '新' })
    fake.emit(sent.requestId, 'done', { status: 'complete' })
    await sent.finished
    expect(view(t).slice(-2)).toEqual(['user:问三（改）:complete', 'assistant:新:complete'])
  })
})

describe('switchVersion', () => {
  it('shows the other version with its replies; a reply still streaming there is replayed whole', async () => {
    const { t, q2 } = await exchange()
    const sent = await editMessage(q2.messageId, '改')
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { content: '写了一半' })
    const shown = await switchVersion(list(t)[2]!, 1)
    expect(shown).toBe(q2.messageId)
    expect(fake.to('topic/message/switch')[0]!.body).toEqual({ messageId: sent.messageId, version: 1 })
    expect(view(t)).toEqual(['user:问一:complete', 'assistant:答一:complete', 'user:问二:complete', 'assistant:答二:complete'])
    expect(list(t)[2]).toMatchObject({ version: 1, versions: 2 })
    expect($streaming.get()[sent.requestId]).toBeUndefined()
    // Back to version 2: its reply, still streaming, is followed again from its first event.
    fake.emit(sent.requestId, 'delta', { content: '，另一半' })
    await switchVersion(list(t)[2]!, 2)
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(2))
    await vi.waitFor(() => expect(list(t).at(-1)!.content).toBe('写了一半，另一半'))
    fake.emit(sent.requestId, 'done', { status: 'complete' })
    await vi.waitFor(() => expect(list(t).at(-1)!.status).toBe('complete'))
    expect(view(t).slice(-2)).toEqual(['user:改:complete', 'assistant:写了一半，另一半:complete'])
  })
})

describe('with versions', () => {
  it('regenerate shows the new reply as the newest version', async () => {
    const { t } = await exchange()
    const again = await regenerate(list(t).at(-1)!.messageId)
    expect(list(t).at(-1)).toMatchObject({ messageId: again.replyId, version: 2, versions: 2 })
  })

  it('deleting a version shows the branch the server shows in its place', async () => {
    const { t, q2 } = await exchange()
    const sent = await editMessage(q2.messageId, '改')
    fake.emit(sent.requestId, 'done', { status: 'complete' })
    await sent.finished
    // The server: with this version gone, the other shows again (alone: no versions left).
    const branch = aside.get(q2.messageId)!.map((m) => ({ ...m, version: undefined, versions: undefined }))
    fake.messages = [...fake.messages.filter((m) => m.messageId !== sent.replyId), ...branch]
    await deleteMessage(sent.messageId)
    expect(view(t)).toEqual(['user:问一:complete', 'assistant:答一:complete', 'user:问二:complete', 'assistant:答二:complete'])
  })
})

describe('Editor and Versions', () => {
  let root: Root | undefined
  let host: HTMLDivElement
  afterEach(() => {
    root?.unmount()
    host?.remove()
    root = undefined
  })

  function mount(element: ReturnType<typeof createElement>) {
    host = document.createElement('div')
    document.body.append(host)
    root = createRoot(host)
    root.render(element)
  }

  const key = (el: Element, init: KeyboardEventInit) => el.dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init }))

  it('starts with the text, focused; Escape cancels; Shift+Enter does not send; Enter sends the edit', async () => {
    const { t, q2 } = await exchange()
    const closed: number[] = []
    mount(createElement(Editor, { message: list(t)[2]!, onClose: () => closed.push(1) }))
    await vi.waitFor(() => expect(host.querySelector('textarea')).not.toBeNull())
    const field = host.querySelector('textarea')!
    expect(field.value).toBe('问二')
    expect(field.getAttribute('aria-label')).toBe('编辑消息')
    await vi.waitFor(() => expect(document.activeElement).toBe(field))
    key(field, { key: 'Escape' })
    expect(closed).toEqual([1])
    field.value = '问二？'
    field.dispatchEvent(new Event('input', { bubbles: true }))
    await new Promise((resolve) => setTimeout(resolve, 20))
    key(field, { key: 'Enter', shiftKey: true })
    expect(fake.to('topic/message/edit')).toEqual([])
    key(field, { key: 'Enter' })
    await vi.waitFor(() => expect(fake.to('topic/message/edit')).toHaveLength(1))
    expect(fake.to('topic/message/edit')[0]!.body).toMatchObject({ messageId: q2.messageId, content: '问二？' })
  })

  it('the switcher names the version for screen readers and disables the ends', async () => {
    const { t } = await exchange()
    const message = { ...list(t)[2]!, version: 1, versions: 3 }
    mount(createElement(Versions, { message }))
    await vi.waitFor(() => expect(host.querySelector('fieldset')).not.toBeNull())
    expect(host.querySelector('fieldset')!.getAttribute('aria-label')).toBe('消息版本：第 1 个，共 3 个')
    expect(host.textContent).toBe('1/3')
    expect(host.querySelector<HTMLButtonElement>('[aria-label="上一个版本"]')!.disabled).toBe(true)
    expect(host.querySelector<HTMLButtonElement>('[aria-label="下一个版本"]')!.disabled).toBe(false)
  })
})
