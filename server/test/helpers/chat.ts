import { eq } from 'drizzle-orm'
import { balanceOf } from '../../src/allowances/ledger.js'
import { balanceLog, chatMessages } from '../../src/db/schema.js'
import type { FakeOpenAi } from '../fakes/openai.js'
import { ADJUSTED, setBalance } from './allowances.js'
import type { TestDatabase } from './database.js'
import type { Harness } from './harness.js'

export const CHAT = '/api/v1/ai-chat'

/** Env that offers the fake upstream's model next to the demo model. */
export function fakeEnv(fake: FakeOpenAi, extra: Record<string, string> = {}): Record<string, string> {
  return { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: fake.apiKey, OPENAI_MODELS: 'fake-gpt', ...extra }
}

export interface Frame {
  id?: string
  event?: string
  data?: string
  comment?: string
}

/** Splits SSE text into frames (comments included, as `comment`). */
export function parseFrames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const frame: Frame = {}
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim()
        else {
          const i = line.indexOf(': ')
          ;(frame as Record<string, string>)[line.slice(0, i)] = line.slice(i + 2)
        }
      }
      return frame
    })
}

/** Reads a response body to its end (or until `stop` says so), as text. */
export async function readAll(res: Response, stop?: (text: string) => boolean): Promise<string> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    if (stop?.(text)) {
      await reader.cancel()
      break
    }
  }
  return text
}

export function chatHelpers(ctx: { h: Harness; db: TestDatabase }) {
  const post = <T = any>(path: string, body: unknown, token: string) => ctx.h.post<T>(`${CHAT}/${path}`, body, { token })

  async function user(phone = '13800138000') {
    const { accessToken, accountId } = await ctx.h.login(phone)
    return { token: accessToken, accountId }
  }

  async function topic(token: string, body: Record<string, unknown> = {}) {
    const res = await post('topic/create', body, token)
    if (res.body.code !== 2000) throw new Error(`topic/create failed: ${JSON.stringify(res.body)}`)
    return res.body.data as { topicId: string; model: string; name: string }
  }

  async function send(token: string, topicId: string, content = '你好', extra: Record<string, unknown> = {}) {
    return post<{ requestId: string; messageId: string; replyId: string }>('topic/message/send', { topicId, content, ...extra }, token)
  }

  async function subscribe(token: string, requestId: string, headers: Record<string, string> = {}): Promise<Response> {
    return ctx.h.app.request(`${CHAT}/sse/subscribe/${requestId}`, { headers: { Authorization: `Bearer ${token}`, ...headers } })
  }

  async function reply(id: string) {
    const [row] = await ctx.db.db.select().from(chatMessages).where(eq(chatMessages.id, id))
    return row!
  }

  async function balance(accountId: string) {
    return (await balanceOf(ctx.db.db, accountId, 'tokens')).balance
  }

  /** The balance log as the app wrote it: the test's own setTokens lines (测试调整) left out. */
  async function log(accountId: string) {
    const rows = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, accountId)).orderBy(balanceLog.id)
    return rows.filter((r) => r.reason !== ADJUSTED).map(({ kind, amount, balance, reason }) => ({ kind, amount, balance, reason }))
  }

  async function setTokens(accountId: string, tokens: number) {
    await setBalance(ctx.db.db, accountId, 'tokens', tokens, new Date(ctx.h.clock.now()))
  }

  return { post, user, topic, send, subscribe, reply, balance, log, setTokens }
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5000, stepMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('waitUntil: timed out')
    await new Promise((resolve) => setTimeout(resolve, stepMs))
  }
}
