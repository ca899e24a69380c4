import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** Every code of API.md, with the HTTP status that mirrors it. */
export const codeStatus = {
  2000: 200,
  40000001: 400,
  40000002: 400,
  40000003: 413,
  40200001: 402,
  40300001: 403,
  40400001: 404,
  42200001: 422,
  42900001: 429,
  50011001: 400,
  50011002: 400,
  50011003: 429,
  50011004: 401,
  50011005: 401,
  50011006: 401,
  50011007: 429,
  50011008: 400,
  50011009: 409,
  50000000: 500,
  50200001: 502,
  50400001: 504
} as const satisfies Record<number, ContentfulStatusCode>

export type ApiCode = Exclude<keyof typeof codeStatus, 2000>

export const SYSTEM_ERROR_MESSAGE = '系统异常，请稍后重试'

/** The one error type: thrown anywhere, turned into the envelope in one place (app.ts). */
export class ApiError extends Error {
  readonly code: ApiCode
  /** Overrides the status mirrored from the code (only for 405 on a known path). */
  readonly status: ContentfulStatusCode
  readonly headers: Record<string, string> | undefined

  constructor(code: ApiCode, message: string, options: { status?: ContentfulStatusCode; headers?: Record<string, string> } = {}) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.status = options.status ?? codeStatus[code]
    this.headers = options.headers
  }
}

export interface Envelope<T> {
  code: number
  message: string
  data: T | null
}

export function envelope<T>(code: number, message: string, data: T | null): Envelope<T> {
  return { code, message, data }
}
