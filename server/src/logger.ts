import { AsyncLocalStorage } from 'node:async_hooks'
import { type Config, configuredSecrets } from './config.js'
import { createRedactor } from './redact.js'

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

/** What is known about the request being served: every log line made while serving it carries it. */
export interface RequestContext {
  requestId: string
  /** Set once the request's session is read (http/api.ts requireAuth). */
  accountId?: string
}

/**
 * The request being served, across awaits: the access-log middleware (metrics/http.ts) runs each
 * request inside it, so a line logged deep in a reply or an upstream call names its request.
 */
export const requestContext = new AsyncLocalStorage<RequestContext>()

/** The fields with the current request's id (and account) added, unless they name their own. */
export function withRequestContext(fields?: Record<string, unknown>): Record<string, unknown> | undefined {
  const context = requestContext.getStore()
  if (!context) return fields
  // A chat reply's own `requestId` (its stream) keeps its name; the HTTP request's then goes beside it.
  const idKey = fields && 'requestId' in fields && fields.requestId !== context.requestId ? 'httpRequestId' : 'requestId'
  const own = { [idKey]: context.requestId, ...(context.accountId ? { accountId: context.accountId } : {}) }
  return fields ? { ...own, ...fields } : own
}

function line(level: string, message: string, given?: Record<string, unknown>): string {
  const fields = withRequestContext(given)
  const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields, errorReplacer)}` : ''
  return `${new Date().toISOString()} ${level} ${message}${extra}`
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack }
  return value
}

/**
 * A copy of a log field with `scrub` applied to every string in it, keys included. Errors become
 * `{name, message, stack}` (scrubbed: a stack repeats the message) as they are logged anyway, and
 * objects with toJSON (URLs, Dates) become what they would be logged as.
 */
function scrubValue(value: unknown, scrub: (text: string) => string, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return scrub(value)
  if (typeof value !== 'object' || value === null) return value
  if (seen.has(value)) return '[Circular]'
  seen.add(value)
  try {
    if (value instanceof Error) {
      const { name, message, stack } = value
      const cause = (value as { cause?: unknown }).cause
      return {
        name: scrub(name),
        message: scrub(message),
        stack: stack === undefined ? undefined : scrub(stack),
        ...(cause === undefined ? {} : { cause: scrubValue(cause, scrub, seen) })
      }
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON
    if (typeof toJSON === 'function') return scrubValue(toJSON.call(value), scrub, seen)
    if (Array.isArray(value)) return value.map((item) => scrubValue(item, scrub, seen))
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[scrub(key)] = scrubValue(item, scrub, seen)
    return out
  } finally {
    seen.delete(value)
  }
}

/**
 * Wraps a logger so that no configured secret reaches it: messages, fields, errors' messages and
 * stacks. Secrets are matched literally, whatever their format (see redact.ts).
 */
export function redactingLogger(logger: Logger, secrets: Iterable<string | undefined>): Logger {
  const scrub = createRedactor(secrets)
  const wrap = (level: keyof Logger) => (message: string, fields?: Record<string, unknown>) =>
    logger[level](scrub(message), fields === undefined ? undefined : (scrubValue(fields, scrub, new WeakSet()) as Record<string, unknown>))
  return { info: wrap('info'), warn: wrap('warn'), error: wrap('error') }
}

export interface ConsoleLoggerOptions {
  /** Every secret of this configuration is scrubbed from every line (configuredSecrets). */
  config?: Config
  /** More secrets to scrub. */
  secrets?: Iterable<string | undefined>
  /** Where lines go (tests); by default info to stdout, problems to stderr. */
  write?: (stream: 'stdout' | 'stderr', line: string) => void
}

/** Info on stdout, problems on stderr, one line each. */
export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const write = options.write ?? ((stream, text) => process[stream].write(text))
  const logger: Logger = {
    info: (message, fields) => write('stdout', `${line('info', message, fields)}\n`),
    warn: (message, fields) => write('stderr', `${line('warn', message, fields)}\n`),
    error: (message, fields) => write('stderr', `${line('error', message, fields)}\n`)
  }
  const secrets = [...(options.config ? configuredSecrets(options.config) : []), ...(options.secrets ?? [])]
  return secrets.length > 0 ? redactingLogger(logger, secrets) : logger
}
