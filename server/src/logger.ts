export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

function line(level: string, message: string, fields?: Record<string, unknown>): string {
  const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields, errorReplacer)}` : ''
  return `${new Date().toISOString()} ${level} ${message}${extra}`
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack }
  return value
}

/** Info on stdout, problems on stderr, one line each. */
export function createConsoleLogger(): Logger {
  return {
    info: (message, fields) => process.stdout.write(`${line('info', message, fields)}\n`),
    warn: (message, fields) => process.stderr.write(`${line('warn', message, fields)}\n`),
    error: (message, fields) => process.stderr.write(`${line('error', message, fields)}\n`)
  }
}
