// @vitest-environment happy-dom
import { createElement } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { setUpFakeChat } from '../fake-chat.test-helper'
import { $topics } from '../state'
import { TopicList } from '../topic-list'
import { awaitTitle } from '../topics'
import type { SearchResult } from './search'

// The search field over the topic list (topic-list.tsx → search/panel.tsx) against the loopback
// fake; under React and preact/compat.

const fake = setUpFakeChat()
let answer: SearchResult
let root: Root
let host: HTMLDivElement

beforeEach(() => {
  answer = { topics: [], messages: [], nextCursor: null }
  const handle = fake.handle.bind(fake)
  fake.handle = (path, body) => {
    if (path === 'search') {
      const keyword = String(body.keyword ?? '').trim()
      if (!keyword || keyword.length > 100) throw { code: 40000001, message: '搜索内容不能超过 100 个字符', status: 400 }
      return answer
    }
    if (path === 'topic/title') return { ...fake.topics.find((t) => t.topicId === body.topicId)!, name: '自动标题' }
    return handle(path, body)
  }
})
afterEach(() => {
  root?.unmount()
  host?.remove()
})

function mount(onPick: (id: string) => void = () => {}) {
  host = document.createElement('div')
  document.body.append(host)
  root = createRoot(host)
  root.render(createElement(TopicList, { activeId: null, onPick, onNew: () => {} }))
}

const field = () => host.querySelector<HTMLInputElement>('input[type=search]')!
async function type(text: string) {
  await vi.waitFor(() => expect(field()).not.toBeNull())
  field().value = text
  field().dispatchEvent(new Event('input', { bubbles: true }))
}

describe('topic list search', () => {
  it('searches after a pause, shows topics and highlighted messages, and more on demand', async () => {
    const t = fake.addTopic({ name: '杭州旅行' })
    $topics.set([...fake.topics])
    answer = {
      topics: [{ topicId: t.topicId, name: '杭州旅行', updateTime: Date.now() }],
      messages: [
        {
          messageId: 'm1',
          topicId: t.topicId,
          topicName: '杭州旅行',
          role: 'user',
          snippet: '…去看西湖吧',
          matchStart: 3,
          matchLength: 2,
          createTime: Date.now()
        }
      ],
      nextCursor: 42
    }
    const picked: string[] = []
    mount((id) => picked.push(id))
    await type('西湖')
    await vi.waitFor(() => expect(host.querySelector('[data-testid=search-hit]')).not.toBeNull())
    expect(host.querySelector('[data-testid=search-hit] mark')?.textContent).toBe('西湖')
    expect(host.textContent).toContain('话题')
    expect(fake.to('search').map((c) => c.body)).toEqual([{ keyword: '西湖' }])
    const more = [...host.querySelectorAll('button')].find((b) => b.textContent === '加载更多')!
    answer = { topics: [], messages: [{ ...answer.messages[0]!, messageId: 'm2' }], nextCursor: null }
    more.click()
    await vi.waitFor(() => expect(host.querySelectorAll('[data-testid=search-hit]')).toHaveLength(2))
    expect(fake.to('search').at(-1)?.body).toEqual({ keyword: '西湖', cursor: 42 })
    ;[...host.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent?.includes('杭州旅行') && !b.dataset.testid)!.click()
    expect(picked).toEqual([t.topicId])
  })

  it('says when nothing matches, shows the server’s error, and Escape brings the topics back', async () => {
    fake.addTopic({ name: '某个话题' })
    $topics.set([...fake.topics])
    mount()
    await type('火星')
    await vi.waitFor(() => expect(host.textContent).toContain('没有找到「火星」相关的话题或消息'))
    await type('字'.repeat(101))
    await vi.waitFor(() => expect(host.querySelector('[role=alert]')?.textContent).toBe('搜索内容不能超过 100 个字符'))
    field().dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(host.querySelector('[data-testid=topic-item]')).not.toBeNull())
    expect(field().value).toBe('')
  })

  it('after a topic’s first reply, its automatic title replaces the name', async () => {
    const t = fake.addTopic({ name: '新对话' })
    fake.addMessage(t.topicId, { content: '第一个问题' })
    $topics.set([...fake.topics])
    const { selectTopic } = await import('../replies')
    await selectTopic(t.topicId)
    awaitTitle(t.topicId, Promise.resolve())
    await vi.waitFor(() => expect($topics.get()?.[0]?.name).toBe('自动标题'))
  })
})
