import { countTokens } from 'gpt-tokenizer'
import { describe, expect, it } from 'vitest'
import { costOf } from '../src/replies/accounting.js'
import { answerReserve, buildContext } from '../src/replies/context.js'
import { resolveChatConfig } from '../src/replies/models.js'
import { demoChunks } from '../src/replies/providers/demo.js'
import { redact } from '../src/replies/providers/openai.js'
import { createSseDataParser } from '../src/replies/providers/sse-lines.js'
import { validAvatar } from '../src/modules/chat/roles.js'
import { frame, lastEventId } from '../src/http/sse.js'
import { type ChatSettings, ConfigError, loadConfig } from '../src/config.js'

const noOpenAi: ChatSettings = {
  openai: undefined,
  firstByteTimeoutMs: 60000,
  idleTimeoutMs: 120000,
  demoDelayMs: 25,
  attachments: loadConfig({}).chat.attachments
}
const withOpenAi: ChatSettings = { ...noOpenAi, openai: { baseUrl: 'https://api.example.com', apiKey: 'sk-secret', models: ['gpt-4o-mini', 'deepseek-chat'] } }

describe('context window', () => {
  const model = { contextLength: 1000 }
  const turn = (role: 'user' | 'assistant', n: number) => ({ role, content: `消息${n}：${'内容'.repeat(40)}`, tokens: null })

  it('keeps the system prompt first and the newest history that fits, whole messages only', async () => {
    const history = Array.from({ length: 30 }, (_, i) => turn(i % 2 === 0 ? 'user' : 'assistant', i))
    const built = (await buildContext({ model, systemPrompt: '你是翻译。', history, message: '最后的问题' }))!
    expect(answerReserve(model)).toBe(250)
    const total = built.messages.reduce((sum, m) => sum + countTokens(m.content) + 4, 3)
    expect(total).toBe(built.promptTokens)
    expect(total).toBeLessThanOrEqual(750)
    // One more message would not have fitted.
    const next = history[history.length - built.messages.length + 1]!
    expect(total + countTokens(next.content) + 4).toBeGreaterThan(750)
    expect(built.messages[0]).toEqual({ role: 'system', content: '你是翻译。' })
    expect(built.messages.at(-1)).toEqual({ role: 'user', content: '最后的问题' })
    const kept = built.messages.slice(1, -1)
    expect(kept).toEqual(history.slice(history.length - kept.length).map(({ role, content }) => ({ role, content })))
    expect(built.dropped).toBe(history.length - kept.length)
  })

  it('uses known token counts, sends everything that fits, and refuses what cannot fit', async () => {
    const short = [
      { role: 'user' as const, content: 'a', tokens: 100 },
      { role: 'assistant' as const, content: 'b', tokens: 100 }
    ]
    const built = (await buildContext({ model, systemPrompt: null, history: short, message: 'c' }))!
    expect(built.messages.map((m) => m.content)).toEqual(['a', 'b', 'c'])
    expect(built.promptTokens).toBe(3 + 4 + countTokens('c') + 208)
    expect(await buildContext({ model, systemPrompt: null, history: [], message: '很长'.repeat(800) })).toBeUndefined()
    expect(answerReserve({ contextLength: 128000 })).toBe(2048)
    expect(answerReserve({ contextLength: 128000, maxTokens: 4096 })).toBe(4096)
  })
})

describe('chat config', () => {
  it('offers only the demo model without a key, and never carries the key', () => {
    const config = resolveChatConfig(
      {
        models: [
          { id: 'lingxi-demo', provider: 'demo' },
          { id: 'gpt-4o', provider: 'openai' }
        ],
        defaultModel: 'gpt-4o'
      },
      noOpenAi
    )
    expect(config.models.map((m) => m.id)).toEqual(['lingxi-demo'])
    expect(config).toMatchObject({ defaultModel: 'lingxi-demo', defaultTemperature: 0.7, contextEnabled: true })
    expect(JSON.stringify(resolveChatConfig({}, withOpenAi))).not.toContain('sk-secret')
  })

  it('adds each OPENAI_MODELS id, letting a file entry name and price it', () => {
    const config = resolveChatConfig(
      {
        models: [
          { id: 'lingxi-demo', provider: 'demo' },
          { id: 'mini', name: 'GPT-4o mini', provider: 'openai', upstreamModel: 'gpt-4o-mini', contextLength: 128000, price: { input: 0.5, output: 2 } }
        ],
        defaultModel: 'mini',
        defaultTemperature: 1,
        contextEnabled: false,
        banner: 'kept'
      },
      withOpenAi
    )
    expect(config.models).toEqual([
      expect.objectContaining({ id: 'lingxi-demo', provider: 'demo', price: { input: 1, output: 1 } }),
      {
        id: 'mini',
        name: 'GPT-4o mini',
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
        contextLength: 128000,
        price: { input: 0.5, output: 2 },
        description: '',
        // Known by its upstream name to take images (models.ts looksVisual).
        vision: true
      },
      { id: 'deepseek-chat', name: 'deepseek-chat', provider: 'openai', contextLength: 16384, price: { input: 1, output: 1 }, description: '', vision: false }
    ])
    expect(config).toMatchObject({ defaultModel: 'mini', defaultTemperature: 1, contextEnabled: false, banner: 'kept' })
  })

  it('falls back to the built-in list when the file has the wrong shape', () => {
    const config = resolveChatConfig({ models: 'all of them' }, noOpenAi)
    expect(config.models.map((m) => m.id)).toEqual(['lingxi-demo'])
  })

  it('reads the chat variables', () => {
    expect(loadConfig({}).chat).toEqual({
      openai: undefined,
      firstByteTimeoutMs: 60000,
      idleTimeoutMs: 120000,
      demoDelayMs: 25,
      attachments: expect.any(Object)
    })
    const chat = loadConfig({
      OPENAI_BASE_URL: 'https://api.deepseek.com/v1/',
      OPENAI_API_KEY: ' sk-x ',
      OPENAI_MODELS: 'deepseek-chat, deepseek-reasoner,deepseek-chat',
      CHAT_TIMEOUT_MS: '30000',
      CHAT_IDLE_TIMEOUT_MS: '90000',
      CHAT_DEMO_DELAY_MS: '0'
    }).chat
    expect(chat).toEqual({
      openai: { baseUrl: 'https://api.deepseek.com', apiKey: 'sk-x', models: ['deepseek-chat', 'deepseek-reasoner'] },
      firstByteTimeoutMs: 30000,
      idleTimeoutMs: 90000,
      demoDelayMs: 0,
      attachments: expect.any(Object)
    })
    expect(loadConfig({ OPENAI_API_KEY: 'k' }).chat.openai?.baseUrl).toBe('https://api.openai.com')
    expect(() => loadConfig({ CHAT_IDLE_TIMEOUT_MS: '900000', OPENAI_BASE_URL: 'ftp://x' })).toThrow(ConfigError)
  })
})

describe('wire helpers', () => {
  it('parses upstream SSE: CRLF, comments, split packets, multi-line data', () => {
    const parser = createSseDataParser()
    expect(parser.push(': keep-alive\r\n\r\ndata: {"a":')).toEqual([])
    expect(parser.push('1}\r\n\r\ndata: x\ndata: y\n\ndata:[DONE]\n\n')).toEqual(['{"a":1}', 'x\ny', '[DONE]'])
  })

  it('writes frames id, event, data in that order, and reads Last-Event-ID leniently', () => {
    expect(frame(7, 'delta', '{"content":"你"}')).toBe('id: 7\nevent: delta\ndata: {"content":"你"}\n\n')
    expect(lastEventId('3')).toBe(3)
    expect(lastEventId(' 12 ')).toBe(12)
    for (const bad of [undefined, '', '-1', 'abc', '1.5', '9'.repeat(20)]) expect(lastEventId(bad)).toBe(0)
  })

  it('prices usage in whole tokens, rounding up, without float noise', () => {
    expect(costOf({ promptTokens: 30, completionTokens: 0 }, { input: 0.1, output: 1 })).toBe(3)
    expect(costOf({ promptTokens: 1, completionTokens: 1 }, { input: 0.25, output: 0.5 })).toBe(1)
    expect(costOf({ promptTokens: 9, completionTokens: 3 }, { input: 1, output: 2 })).toBe(15)
    expect(costOf({ promptTokens: 0, completionTokens: 0 }, { input: 1, output: 1 })).toBe(0)
  })

  it('redacts keys from upstream text', () => {
    expect(redact('Incorrect API key provided: sk-proj-abcdefgh1234. Bearer sk-abc')).toBe('Incorrect API key provided: sk-***. Bearer ***')
  })

  it('accepts emoji and same-origin /files/ avatars only', () => {
    const site = 'https://ai.example.com'
    for (const ok of ['🤖', '👩‍💻', '🇨🇳', '❤️', '/files/a/b.png', 'https://ai.example.com/files/x.webp']) expect(validAvatar(ok, site), ok).toBe(true)
    for (const bad of [
      'a',
      '12',
      '#',
      '🤖🤖🤖🤖🤖🤖🤖🤖🤖',
      '/files/../x',
      'https://other.example.com/files/x.png',
      'https://ai.example.com/other/x.png',
      'data:image/png;base64,xx',
      ''
    ])
      expect(validAvatar(bad, site), bad).toBe(false)
  })

  it('chunks the demo answer the same way for the same question, differently for another', () => {
    const a = demoChunks([{ role: 'user', content: '你好' }])
    expect(demoChunks([{ role: 'user', content: '你好' }])).toEqual(a)
    expect(demoChunks([{ role: 'user', content: '再见' }])).not.toEqual(a)
    expect(a.join('')).toContain('> 你好')
  })
})
