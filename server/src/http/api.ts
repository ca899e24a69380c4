import type { HttpBindings } from '@hono/node-server'
import type { Context, Hono, MiddlewareHandler } from 'hono'
import type { z } from 'zod'
import type { SessionCache } from '../auth/session-cache.js'
import { authenticateRequest } from '../auth/cookie.js'
import type { PartnerOrigins } from '../auth/partner-origin.js'
import type { AuthInfo } from '../auth/sessions.js'
import type { Db } from '../db/database.js'
import type { EventBus } from '../events/bus.js'
import { ApiError, envelope } from '../errors.js'
import type { JobQueue } from '../jobs/queue.js'
import { requestContext } from '../logger.js'
import { requestText } from './json-body.js'
import type { Storage } from '../storage/index.js'

export type AppEnv = {
  Bindings: HttpBindings
  Variables: { requestId: string; auth: AuthInfo | undefined }
}
export type App = Hono<AppEnv>
export type AppContext = Context<AppEnv>

/** A path, query or header parameter of a route that is not a JSON call (SSE, files, redirects). */
export interface RouteParameter {
  name: string
  in: 'path' | 'query' | 'header'
  description?: string
  /** Path parameters are always required. */
  required?: boolean
}

/** An answer that is not the envelope: a redirect, a page, a file. */
export interface RouteResponse {
  description: string
  /** The body's media type; none for an empty body. */
  contentType?: string
  /** Response headers worth naming (Location, Content-Range), each with its description. */
  headers?: Record<string, string>
}

export interface RouteDoc {
  method: 'get' | 'post' | 'put'
  path: string
  summary: string
  tag: string
  auth: boolean
  /** The name generated clients use; derived from the method and path unless given (see openapi.ts). */
  operationId?: string
  body?: z.ZodType
  /** A request body that is not JSON (an upload's bytes): its media type. */
  bodyContentType?: string
  response?: z.ZodType
  /** For GET routes that answer something other than the envelope. */
  contentType?: string
  /** Query and header parameters; every `{name}` of the path is declared whether listed or not. */
  parameters?: RouteParameter[]
  /** The answers besides the refusal envelopes, by HTTP status; replaces the default 200 when given. */
  responses?: Record<number, RouteResponse>
}

/** Looks up a permission's display name ("AI对话") for refusal messages. */
export type PermissionName = (code: string) => Promise<string>

/** What route modules share: the app, the docs registry and the auth check. */
export interface Api {
  app: App
  docs: RouteDoc[]
  db: Db
  now: () => number
  permissionName: PermissionName
  /** The event bus; `bus.publish(accountId, {event, data})` reaches the account channel (job progress). */
  bus: EventBus
  /** Validate handler results against their response schemas (tests turn it on). */
  checkResponses: boolean
  /** Files: uploads, generated images and audio (local disk or S3); see storage/images.ts for saving. */
  storage: Storage
  /** Background jobs (jobs/queue.ts): in this process, or BullMQ on Redis shared by every node. */
  jobs: JobQueue
  /** Recently read sessions (auth/session-cache.ts); a revocation or account change must clear its entries. */
  sessions?: SessionCache
  /** Where sessions opened through a partner may be used from (auth/partner-origin.ts). */
  partnerOrigins?: PartnerOrigins
}

export interface RouteOptions<S extends z.ZodType, Auth extends boolean> {
  summary: string
  tag: string
  body: S
  /** Requires a logged-in account. Implied by `permission`. */
  auth?: Auth
  /** A tool's permission code (or several, any of which will do); also refuses accounts whose state is 0. */
  permission?: string | readonly string[]
  /** Documents (and in tests checks) `data` of the success envelope. */
  response?: z.ZodType
  /** The success message; "操作成功" unless given. */
  message?: string
  /** The OpenAPI operationId, when the one derived from the path would not do (a clash, a rename). */
  operationId?: string
}

export interface RouteInput<S extends z.ZodType, Auth extends boolean> {
  c: AppContext
  body: z.output<S>
  auth: Auth extends true ? AuthInfo : AuthInfo | undefined
}

const NOT_AN_OBJECT = '请求体必须是 JSON 对象'

async function readJsonObject(c: AppContext): Promise<Record<string, unknown>> {
  const text = await requestText(c)
  // Clients send `{}` when there is nothing to send; an empty body means the same.
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ApiError(40000002, '请求体不是合法的 JSON')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError(40000001, NOT_AN_OBJECT)
  // PostgreSQL text cannot hold U+0000: refused here, once, rather than as a failed query anywhere.
  if (text.includes('\\u0000') && hasNul(value)) throw new ApiError(40000001, '请求内容不能包含空字符（U+0000）')
  return value as Record<string, unknown>
}

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (typeof value !== 'object' || value === null || depth > 200) return depth > 200
  for (const [key, item] of Object.entries(value)) if (key.includes('\u0000') || hasNul(item, depth + 1)) return true
  return false
}

export function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const field = issue?.path.join('.') || '请求体'
  // Field helpers give Chinese messages; anything else still names the field.
  const message = issue && /[\u4e00-\u9fff]/.test(issue.message) ? issue.message : `${field} 格式不正确`
  throw new ApiError(40000001, message)
}

export async function requireAuth(api: Api, c: AppContext): Promise<AuthInfo> {
  const known = c.get('auth')
  if (known) return known
  const auth = await authenticateRequest(c, api)
  c.set('auth', auth)
  const context = requestContext.getStore()
  if (context) context.accountId = auth.account.id
  return auth
}

/** Passes when the account holds `code`, or any one of the codes given; the refusal names the first. */
export async function checkPermission(api: Api, auth: AuthInfo, code: string | readonly string[]): Promise<void> {
  if (auth.account.state !== 1) throw new ApiError(40300001, '账号已过期')
  const codes = typeof code === 'string' ? [code] : code
  if (!codes.some((c) => auth.account.permissionCodes.includes(c))) {
    throw new ApiError(40300001, `您没有使用「${await api.permissionName(codes[0] ?? '')}」的权限`)
  }
}

/** Middleware form of the tool gate, for routes not made by defineRoute (SSE, uploads). */
export function requirePermission(api: Api, code: string | readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await checkPermission(api, await requireAuth(api, c), code)
    await next()
  }
}

/**
 * A POST JSON endpoint: parses and validates the body, checks login and permission, wraps the
 * handler's result in the envelope and records the schemas for /api/openapi.json.
 */
export function defineRoute<S extends z.ZodType, Auth extends boolean = false>(
  api: Api,
  path: string,
  options: RouteOptions<S, Auth>,
  handler: (input: RouteInput<S, Auth>) => Promise<unknown>
): void {
  const needsAuth = Boolean(options.auth || options.permission)
  api.docs.push({
    method: 'post',
    path,
    summary: options.summary,
    tag: options.tag,
    auth: needsAuth,
    body: options.body,
    ...(options.operationId ? { operationId: options.operationId } : {}),
    ...(options.response ? { response: options.response } : {})
  })
  api.app.post(path, async (c) => {
    // Auth before the body: an anonymous caller learns nothing about what a valid body is.
    const auth = needsAuth ? await requireAuth(api, c) : undefined
    if (auth && options.permission) await checkPermission(api, auth, options.permission)
    const body = validate(options.body, await readJsonObject(c))
    const data = (await handler({ c, body, auth } as RouteInput<S, Auth>)) ?? null
    if (api.checkResponses && options.response) options.response.parse(data)
    return c.json(envelope(2000, options.message ?? '操作成功', data))
  })
}
