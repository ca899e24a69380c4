import { loadTokenizer } from '../context.js'
import type { ChatChunk, ChatProvider, ChatRequest, TurnFile } from './provider.js'

/** FNV-1a, for a seed that depends only on the question. */
function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32: small, fast, deterministic. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()
const clip = (text: string, max: number) => {
  const chars = [...text]
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text
}

/** The demo model's whole answer to the last user message: plain about being offline, in markdown. */
export function demoReply(messages: ChatRequest['messages']): string {
  const last = [...messages].reverse().find((m) => m.role === 'user')
  // Documents' text follows the question (modules/chat/attachments.ts): the demo quotes the question alone.
  const question = last?.files?.length ? last.content.split(ATTACHED_TEXT)[0]! : (last?.content ?? '')
  const system = messages.find((m) => m.role === 'system')?.content
  const turns = messages.filter((m) => m.role === 'user').length
  const chars = [...question].length
  const lines = question.split('\n').length
  const quoted = clip(question.trim(), 300)
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n')
  const sample = JSON.stringify(clip(oneLine(question), 40)).replace(/`/g, "'")
  const cell = (text: string) => text.replace(/\|/g, '\\|')

  return [
    '## 灵犀离线演示模型',
    '',
    '你好！我是**灵犀离线演示模型**（lingxi-demo）。我没有连接任何真实的 AI 服务，所以不能真正理解或回答你的问题；下面的内容是固定格式的演示，用来展示流式输出和 Markdown 渲染。',
    '',
    '你的问题是：',
    '',
    quoted,
    '',
    ...described(last?.files),
    '### 我收到了什么',
    '',
    `- 字数：${chars} 个字符，共 ${lines} 行`,
    `- 这是本次对话中的第 ${turns} 个问题（开启上下文时会带上历史消息）`,
    system ? `- 当前角色设定：${clip(oneLine(system), 30)}` : '- 当前没有角色设定',
    '',
    '### 代码示例',
    '',
    '```js',
    '// 统计问题的字数',
    `const question = ${sample}`,
    `console.log([...question].length) // ${[...clip(oneLine(question), 40)].length}`,
    '```',
    '',
    '### 演示表格',
    '',
    '| 项目 | 内容 |',
    '| --- | --- |',
    '| 模型 | lingxi-demo（离线演示） |',
    `| 问题开头 | ${cell(clip(oneLine(question), 12))} |`,
    '| 输出方式 | 流式输出，每次 1–4 个字 |',
    '',
    ...extras(question),
    '想得到真正的回答，请让管理员配置 `OPENAI_API_KEY`，然后在模型列表里选择其他模型。'
  ].join('\n')
}

/** Where the text of a message's first document begins (attachments.ts writes it so). */
export const ATTACHED_TEXT = '\n\n【附件：'

const size = (bytes: number) =>
  bytes < 1024 ? `${bytes} 字节` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`
/** Names and the like are the user's text: kept off markdown's syntax. */
const plain = (text: string) => text.replace(/[\\`*_[\]<>|#~]/g, (c) => `\\${c}`)

/** What the demo can tell of attached files without seeing them: name, size, dimensions or first line. */
function described(files: TurnFile[] | undefined): string[] {
  if (!files || files.length === 0) return []
  const out = ['### 你发来的附件', '']
  for (const file of files) {
    if (file.kind === 'image') {
      const dims = file.width && file.height ? `，${file.width}×${file.height} 像素` : ''
      out.push(`- 图片「${plain(file.name)}」：${size(file.size)}${dims}`)
    } else {
      const pages = file.pages ? `，${file.pages} 页` : ''
      const first = file.firstLine ? `，第一行是：「${plain(clip(file.firstLine, 60))}」` : '，没有可提取的文字'
      out.push(`- 文档「${plain(file.name)}」：${size(file.size)}${pages}，提取出 ${file.chars} 个字符${first}`)
    }
  }
  out.push('', '（离线演示模型看不到图片的内容，也不会阅读文档；真实模型会收到图片和文档的文字。）', '')
  return out
}

/** Asked about maths or diagrams, the demo also shows that KaTeX and mermaid render. */
function extras(question: string): string[] {
  const out: string[] = []
  if (/公式|数学|方程|math|latex|katex/i.test(question)) {
    out.push('### 数学公式', '', '勾股定理：$a^2 + b^2 = c^2$，以及质能方程：', '', '$$', 'E = mc^2', '$$', '')
  }
  if (/流程图|mermaid|图表|diagram|flowchart/i.test(question)) {
    out.push('### 流程图', '', '```mermaid', 'flowchart LR', '  A[提问] --> B{灵犀}', '  B --> C[流式回答]', '  B --> D[渲染 Markdown]', '```', '')
  }
  return out
}

/** The chunks of the demo answer: 1–4 characters each, the sizes fixed by the question. */
export function demoChunks(messages: ChatRequest['messages']): string[] {
  const reply = [...demoReply(messages)]
  const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? ''
  const next = random(hash(question))
  const chunks: string[] = []
  for (let i = 0; i < reply.length; ) {
    const size = 1 + Math.floor(next() * 4)
    chunks.push(reply.slice(i, i + size).join(''))
    i += size
  }
  return chunks
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * The offline demo model: streams demoReply at a reading pace. Usage is counted by the caller.
 * Like a real upstream it honours max_tokens (the model's maxTokens): the reply stops there.
 */
export function createDemoProvider({ delayMs }: { delayMs: number }): ChatProvider {
  return {
    async *stream({ model, messages, signal }) {
      const limit = model.maxTokens
      const tokenizer = limit === undefined ? undefined : await loadTokenizer()
      let used = 0
      for (const text of demoChunks(messages)) {
        if (tokenizer && limit !== undefined) {
          used += tokenizer.countTokens(text)
          if (used > limit) return
        }
        if (delayMs > 0) await sleep(delayMs, signal)
        else if (signal.aborted) throw signal.reason
        yield { type: 'content', text } satisfies ChatChunk
      }
    }
  }
}
