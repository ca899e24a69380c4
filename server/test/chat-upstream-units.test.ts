import { describe, expect, it } from 'vitest'
import { createSseDataParser } from '../src/replies/providers/sse-lines.js'
import { configuredSecrets, loadConfig } from '../src/config.js'
import { createConsoleLogger, redactingLogger } from '../src/logger.js'
import { createRedactor, REDACTED } from '../src/redact.js'
import { memoryLogger } from './helpers/harness.js'

/** Feeds the chunks in order and collects every event's data, noting after which chunk each came out. */
function feed(chunks: string[]) {
  const parser = createSseDataParser()
  return chunks.map((chunk) => parser.push(chunk))
}

describe('SSE lines of the upstream', () => {
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r']
  ])('lines ended by %s', (_name, eol) => {
    const text = [': keep-alive', '', 'data: {"a":1}', '', 'event: x', 'data: two', 'data:lines', '', 'data: [DONE]', '', ''].join(eol)
    expect(feed([text]).flat()).toEqual(['{"a":1}', 'two\nlines', '[DONE]'])
  })

  it('an event ended by CRs comes out at once, without waiting for the next chunk', () => {
    expect(feed(['data: a\r\r', 'data: b\r', '\r'])).toEqual([['a'], [], ['b']])
  })

  it('a CR at the end of one chunk and an LF at the start of the next are one line end, not two', () => {
    // Were the LF a line end of its own, it would end the event after "a" with a blank line, before "b" joins it.
    expect(feed(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual([[], [], ['a\nb'], []])
    expect(feed(['data: c\r', '', '\n', '\r\n'])).toEqual([[], [], [], ['c']])
  })

  it('a CR at the end of a chunk followed by anything else is still a line end', () => {
    expect(feed(['data: a\r', 'data: b\r', 'data: c\r\r'])).toEqual([[], [], ['a\nb\nc']])
  })

  it('a text split anywhere, line ends mixed, gives the same events', () => {
    const text = 'data: {"content":"你好"}\r\rdata: x\r\ndata: y\n\r\ndata: [DONE]\n\n'
    for (let i = 1; i < text.length; i++) expect(feed([text.slice(0, i), text.slice(i)]).flat()).toEqual(['{"content":"你好"}', 'x\ny', '[DONE]'])
  })
})

/** An environment with every secret the configuration knows, none in a well-known format. */
const SECRETS = {
  OPENAI_API_KEY: 'abc123-notsk-XYZ789uvw',
  SUNO_API_KEY: 'suno-Secret-0001',
  MJ_API_SECRET: 'mj:secret/0002',
  MJ_NOTIFY_SECRET: 'notify0003secret',
  A1111_AUTH: 'painter:hunter2pass',
  SMS_HTTP_TOKEN: 'smsToken0004',
  S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY0005',
  UPLOAD_SECRET: 'upload"secret\\0006',
  WECHAT_APP_SECRET: 'wxappsecret0007',
  WECHAT_PAY_API_KEY: 'wxpaykey0008abcdefghijklmnopqrst'
}
const env = {
  ...SECRETS,
  DATA_DIR: '/tmp/lingxi-unused',
  MJ_PROXY_URL: 'http://mj.example',
  A1111_URL: 'http://sd.example',
  SMS_PROVIDER: 'http',
  SMS_HTTP_URL: 'http://sms.example',
  S3_BUCKET: 'b',
  S3_ENDPOINT: 'http://s3.example',
  S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  WECHAT_APP_ID: 'wxapp',
  WECHAT_PAY_MCH_ID: '1900000109',
  WECHAT_PAY_URL: 'http://pay.example',
  DATABASE_URL: 'postgres://lingxi:db%40pass0009@db.example/lingxi',
  REDIS_URL: 'redis://:redispass0010@redis.example:6379'
}

describe('configured secrets never reach a log line', () => {
  it('configuredSecrets lists every secret of the configuration', () => {
    const secrets = configuredSecrets(loadConfig(env))
    for (const secret of [...Object.values(SECRETS), 'hunter2pass', 'db@pass0009', 'redispass0010']) expect(secrets).toContain(secret)
    // Ids are no secrets (the merchant id is part of every bill number in the log).
    expect(secrets).not.toContain('1900000109')
    expect(secrets).not.toContain('AKIDEXAMPLE')
  })

  it('the console logger scrubs them from messages, fields, nested values, errors and stacks, in any encoding', () => {
    const lines: string[] = []
    const logger = createConsoleLogger({ config: loadConfig(env), write: (_stream, line) => lines.push(line) })
    const all = Object.values(SECRETS)
    const error = new Error(`upstream said: ${all.join(' ')}`)
    logger.error(`message ${SECRETS.OPENAI_API_KEY}`, {
      body: `{"error":{"message":"Incorrect API key provided: ${SECRETS.OPENAI_API_KEY}"}}`,
      nested: { list: all, url: new URL(`https://x.example/?key=${encodeURIComponent(SECRETS.MJ_API_SECRET)}`) },
      quoted: JSON.stringify({ secret: SECRETS.UPLOAD_SECRET }),
      basic: `Basic ${Buffer.from(SECRETS.A1111_AUTH).toString('base64')}`,
      database: 'connect to postgres://lingxi:db%40pass0009@db.example failed; password db@pass0009',
      [`key ${SECRETS.SUNO_API_KEY}`]: 1,
      error,
      wrapped: new Error('outer', { cause: new Error(`inner ${SECRETS.WECHAT_APP_SECRET}`) })
    })
    logger.info(SECRETS.WECHAT_PAY_API_KEY)
    logger.warn('fine', { redis: 'redispass0010' })
    expect(lines).toHaveLength(3)
    const text = lines.join('')
    for (const secret of [...all, 'hunter2pass', 'db@pass0009', 'db%40pass0009', 'redispass0010', Buffer.from(SECRETS.A1111_AUTH).toString('base64')]) {
      expect(text).not.toContain(secret)
      expect(text).not.toContain(JSON.stringify(secret).slice(1, -1))
      expect(text).not.toContain(encodeURIComponent(secret))
    }
    expect(lines[0]).toContain(`message ${REDACTED}`)
    expect(lines[0]).toContain(`Incorrect API key provided: ${REDACTED}`)
    expect(lines[0]).toContain('"stack":"Error: upstream said:')
    expect(lines[0]).toContain(`inner ${REDACTED}`)
    expect(lines[1]).toMatch(/ info \[REDACTED\]\n$/)
  })

  it("redactingLogger wraps any logger the same way, and leaves the caller's objects alone", () => {
    const inner = memoryLogger()
    const logger = redactingLogger(inner, ['k-e-y-1234'])
    const fields = { error: new Error('bad k-e-y-1234'), n: 5, ok: true, none: null }
    logger.warn('with k-e-y-1234', fields)
    expect(inner.entries[0]).toMatchObject({
      level: 'warn',
      message: `with ${REDACTED}`,
      fields: { error: { name: 'Error', message: `bad ${REDACTED}` }, n: 5, ok: true, none: null }
    })
    expect(JSON.stringify(inner.entries)).not.toContain('k-e-y-1234')
    expect(fields.error.message).toBe('bad k-e-y-1234')
  })

  it('secrets are matched literally, longest first; very short values are left alone', () => {
    const redact = createRedactor(['a.b*c+d', 'a.b*c+d-longer', 'ab', undefined, ''])
    expect(redact('x a.b*c+d-longer y a.b*c+d z aXb*c+d ab')).toBe(`x ${REDACTED} y ${REDACTED} z aXb*c+d ab`)
  })
})
