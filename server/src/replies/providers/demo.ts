import { loadTokenizer } from '../context.js'
import type { ChatChunk, ChatProvider, ChatRequest } from './provider.js'

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
  const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? ''
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
