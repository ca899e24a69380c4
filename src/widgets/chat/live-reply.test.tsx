// @vitest-environment happy-dom
import { flushSync } from 'react-dom'
import { createRoot, type Root } from 'react-dom/client'
import { LiveReply } from './live-reply'
import type { ChatMessage } from './state'

// What a screen reader hears of a streamed reply (under React and preact/compat): each whole sentence once, as it arrives, then
// the rest when the reply ends; never the history, never the whole message again.

let root: Root
let box: HTMLElement
const said = () => box.querySelector('[aria-live=polite]')!.textContent

beforeEach(() => {
  box = document.createElement('div')
  document.body.append(box)
  root = createRoot(box)
})
afterEach(() => {
  flushSync(() => root.unmount())
  box.remove()
})

const reply = (content: string, status: string, messageId = 'r1') => ({ messageId, role: 'assistant', content, status }) as unknown as ChatMessage
const show = (message: ChatMessage) => flushSync(() => root.render(<LiveReply message={message} />))
/** What the region says once the effects ran. */
const hears = (text: string) => vi.waitFor(() => expect(said()).toBe(text))

it('reads a streamed reply sentence by sentence, without markdown marks, and the tail at the end', async () => {
  show(reply('', 'streaming'))
  await hears('')
  show(reply('**你好**！今天', 'streaming'))
  await hears('你好 ！')
  show(reply('**你好**！今天天气', 'streaming'))
  await hears('你好 ！') // no whole sentence yet: nothing new
  show(reply('**你好**！今天天气不错。适合', 'streaming'))
  await hears('今天天气不错。')
  show(reply('**你好**！今天天气不错。适合出门', 'complete'))
  await hears('适合出门')
})

it('does not read a reply that was already finished (the history)', async () => {
  show(reply('早就写好的回答。', 'complete', 'old'))
  await hears('')
})

it('reads a reply that arrived whole right after the question', async () => {
  show({ messageId: 'q1', role: 'user', content: '你好', status: 'complete' } as unknown as ChatMessage)
  show(reply('你好！很高兴见到你。', 'complete', 'r2'))
  await hears('你好！很高兴见到你。')
})
