import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { RouteDoc } from '../src/http/api.js'
import { buildOpenApi, operationIdOf } from '../src/http/openapi.js'
import { systemConfigSchema } from '../src/site/wire.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()

type Parameter = { name: string; in: string; required: boolean }
type Doc = {
  paths: Record<string, Record<string, { operationId?: string; parameters?: Parameter[] }>>
  components: { schemas: Record<string, unknown> }
}

async function served(): Promise<Doc> {
  const res = await ctx.h.app.request('/api/openapi.json')
  expect(res.status).toBe(200)
  return (await res.json()) as Doc
}

/** The value at a JSON pointer of the document (`#/paths/~1x/get/responses`). */
function at(doc: unknown, pointer: string): unknown {
  const keys = pointer.replace(/^#\/?/, '').split('/').filter(Boolean)
  return keys.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
}

/** An operation's parameters as `in name` (`query sig`, `header Range`), required ones marked `!`. */
const parametersOf = (doc: Doc, path: string, method: string) =>
  (doc.paths[path]?.[method]?.parameters ?? []).map((p) => `${p.in} ${p.name}${p.required ? '!' : ''}`)

/** `data` of an operation's 200 envelope. */
const dataOf = (doc: Doc, path: string, method = 'post') =>
  at(doc, `#/paths/${path.replace(/\//g, '~1')}/${method}/responses/200/content/application~1json/schema/properties/data`)

/**
 * Redocly's recommended ruleset, as `redocly lint` runs it without a config file. One warning is
 * justified and left out: `operation-2xx-response` on an operation that answers with a redirect
 * (WeChat's authorize page has no 2XX answer by design).
 */
async function lint(doc: unknown) {
  const config = await createConfig({ extends: ['recommended'] })
  const problems = await lintFromString({ source: JSON.stringify(doc), config })
  const redirects = (pointer: string | undefined) => Object.keys((at(doc, pointer ?? '') as object | undefined) ?? {}).some((status) => status.startsWith('3'))
  const show = (severity: string) =>
    problems
      .filter((p) => p.severity === severity)
      .filter((p) => !(p.ruleId === 'operation-2xx-response' && redirects(p.location[0]?.pointer)))
      .map((p) => `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)
  return { errors: show('error'), warnings: show('warn') }
}

const operations = (doc: Doc) => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })))

describe('operationIdOf', () => {
  it('names a call by its path: POST unmarked, other methods first, path parameters as By<Name>', () => {
    expect(operationIdOf('post', '/api/v1/ai-chat/topic/message/send')).toBe('aiChatTopicMessageSend')
    expect(operationIdOf('post', '/api/v1/user/info')).toBe('userInfo')
    expect(operationIdOf('post', '/api/v1/oss/upload/getOssSTS')).toBe('ossUploadGetOssSTS')
    expect(operationIdOf('post', '/api/v1/wx-red-pack/v2/send')).toBe('wxRedPackV2Send')
    expect(operationIdOf('get', '/api/v1/ai-chat/sse/subscribe/{requestId}')).toBe('getAiChatSseSubscribeByRequestId')
    expect(operationIdOf('get', '/config/system.json')).toBe('getConfigSystemJson')
    expect(operationIdOf('get', '/api/openapi.json')).toBe('getOpenapiJson')
    expect(operationIdOf('put', '/api/v1/oss/upload/put/{key}')).toBe('putOssUploadPutByKey')
  })
})

describe('GET /api/openapi.json', () => {
  it('is valid OpenAPI 3.1: no errors and no warnings from Redocly’s recommended rules', async () => {
    const { errors, warnings } = await lint(await served())
    expect(errors).toEqual([])
    expect(warnings).toEqual([])
  })

  it('gives every operation a unique, stable operationId and declares every path parameter', async () => {
    const doc = await served()
    const ops = operations(doc)
    expect(ops.length).toBeGreaterThan(60)
    const ids = ops.map(({ op }) => op.operationId)
    for (const { path, method, op } of ops) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]*$/)
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        expect(op.parameters, `${method} ${path}`).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }))
      }
    }
    expect(new Set(ids).size).toBe(ids.length)
    // Generated clients call these names: renaming one is a breaking change.
    expect(doc.paths['/api/v1/ai-chat/topic/message/send']?.post?.operationId).toBe('aiChatTopicMessageSend')
    expect(doc.paths['/api/v1/user/info']?.post?.operationId).toBe('userInfo')
    expect(doc.paths['/api/v1/ai-chat/sse/subscribe/{requestId}']?.get?.operationId).toBe('getAiChatSseSubscribeByRequestId')
  })

  it('names the recursive permission tree once and refers to it, instead of a $defs pointer that resolves nowhere', async () => {
    const doc = await served()
    expect(JSON.stringify(doc)).not.toContain('#/$defs/')
    expect(doc.components.schemas.PermissionNode).toMatchObject({
      properties: { childList: { type: 'array', items: { $ref: '#/components/schemas/PermissionNode' } } }
    })
  })

  it('describes the routes that are not JSON calls as they answer: redirects, pages, files, uploads, callbacks, streams', async () => {
    const doc = await served()
    const responses = (path: string, method: string) => at(doc, `#/paths/${path.replace(/\//g, '~1')}/${method}/responses`) as Record<string, any>
    const wechat = '/api/v1/auth/wechat'

    // authorize always redirects (or refuses with the envelope): no 200 page.
    expect(Object.keys(responses(`${wechat}/authorize`, 'get'))).toEqual(['302', '4XX', '5XX'])
    expect(responses(`${wechat}/authorize`, 'get')['302'].headers).toHaveProperty('Location')
    expect(parametersOf(doc, `${wechat}/authorize`, 'get')).toEqual(['query redirect', 'query popup', 'query ticket'])
    // callback: back to the site with ?login=, or the popup page, or the error page.
    const callback = responses(`${wechat}/callback`, 'get')
    expect(Object.keys(callback).sort()).toEqual(['200', '302', '400', '4XX', '5XX'])
    expect(Object.keys(callback['200'].content)).toEqual(['text/html'])
    expect(callback['302'].content).toBeUndefined()
    expect(parametersOf(doc, `${wechat}/callback`, 'get')).toEqual(['query code', 'query state'])

    // Files: the key keeps its slashes; byte ranges; 404 in plain text; 410 once taken down; 416 with no body.
    const files = responses('/files/{key}', 'get')
    expect(Object.keys(files).sort()).toEqual(['200', '206', '404', '410', '416', '4XX', '5XX'])
    expect(files['410'].content).toEqual({ 'text/plain': { schema: { type: 'string' } } })
    expect(files['206'].headers).toHaveProperty('Content-Range')
    expect(files['404'].content).toEqual({ 'text/plain': { schema: { type: 'string' } } })
    expect(files['416']).not.toHaveProperty('content')
    expect(parametersOf(doc, '/files/{key}', 'get')).toEqual(['path key!', 'header Range'])

    // The local upload's signed PUT: the image's bytes, answered with the envelope.
    const put = '/api/v1/oss/upload/put/{key}'
    expect(doc.paths[put]?.put?.operationId).toBe('putOssUploadPutByKey')
    expect(parametersOf(doc, put, 'put')).toEqual(['path key!', 'query expires!', 'query sig!'])
    expect(at(doc, `#/paths/${put.replace(/\//g, '~1')}/put/requestBody/content`)).toEqual({ 'image/*': {} })
    expect(dataOf(doc, put, 'put')).toEqual({ type: 'null' })
    expect(at(doc, '#/paths/~1api~1v1~1oss~1upload~1getOssSTS/post/security')).toEqual([{ bearer: [] }])
    expect(doc.paths[put]?.put).toMatchObject({ security: [] })

    // The midjourney-proxy callback: signed, with the proxy's task as its body.
    const notify = '/api/v1/painting/notify/{taskId}'
    expect(parametersOf(doc, notify, 'post')).toEqual(['path taskId!', 'query sig!'])
    const task = at(doc, '#/paths/~1api~1v1~1painting~1notify~1{taskId}/post/requestBody/content/application~1json/schema') as any
    expect(task.required).toEqual(['id'])
    expect(Object.keys(task.properties)).toEqual(
      expect.arrayContaining(['id', 'action', 'status', 'state', 'progress', 'imageUrl', 'failReason', 'properties', 'buttons'])
    )
    expect(dataOf(doc, notify)).toEqual({ type: 'null' })

    // A reply's stream resumes after Last-Event-ID.
    expect(parametersOf(doc, '/api/v1/ai-chat/sse/subscribe/{requestId}', 'get')).toEqual(['path requestId!', 'header Last-Event-ID'])

    // The config files take ?t=; system.json is documented as served.
    for (const name of ['system.json', 'chatConfig.json', 'MJHelper.json']) expect(parametersOf(doc, `/config/${name}`, 'get')).toEqual(['query t'])
    expect(at(doc, '#/paths/~1config~1system.json/get/responses/200/content/application~1json/schema')).toEqual({ $ref: '#/components/schemas/SystemConfig' })

    // Calls that answer nothing say so.
    for (const path of ['auth/logout', 'ai-chat/topic/del', 'ai-chat/topic/message/del', 'ai-chat/topic/message/clear', 'ai-chat/role-play/del']) {
      expect(dataOf(doc, `/api/v1/${path}`), path).toEqual({ type: 'null' })
    }
  })

  it('names the shared wire objects as components, and refers to them wherever they appear', async () => {
    const doc = await served()
    const named = [
      ...['LoginResult', 'SendCodeResult', 'PermissionNode', 'SystemConfig', 'PermissionMeta'],
      ...['Topic', 'Message', 'Usage', 'Role', 'RoleTag', 'SendResult', 'ToolReply'],
      ...['PaintingTask', 'TaskButton', 'GalleryItem', 'SdOptions', 'Song', 'HotSource', 'HotItem', 'HotList', 'Image', 'UploadTicket'],
      ...['Activity', 'ActivitySession', 'ActivityDetail', 'Order', 'RedPackResult', 'RedPackState']
    ]
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(named))
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
    expect(dataOf(doc, '/api/v1/auth/login')).toEqual(ref('LoginResult'))
    expect(dataOf(doc, '/api/v1/auth/send-sms-code')).toEqual(ref('SendCodeResult'))
    expect(dataOf(doc, '/api/v1/oss/upload/getOssSTS')).toEqual(ref('UploadTicket'))
    expect(dataOf(doc, '/api/v1/sd/options')).toEqual(ref('SdOptions'))
    expect(dataOf(doc, '/api/v1/orders/activity/detail')).toEqual(ref('ActivityDetail'))
    // One schema for the reply a tool starts, whichever tool starts it.
    expect(dataOf(doc, '/api/v1/hot/interpret')).toEqual(ref('ToolReply'))
    expect(dataOf(doc, '/api/v1/orders/draft')).toEqual(ref('ToolReply'))
    expect(at(doc, '#/components/schemas/Message/properties/usage')).toEqual({ anyOf: [ref('Usage'), { type: 'null' }] })
    expect(at(doc, '#/components/schemas/ActivityDetail/properties/myOrder')).toEqual({ anyOf: [ref('Order'), { type: 'null' }] })
  })

  it('generates a typed client that compiles and agrees with the server’s zod types', { timeout: 180_000 }, async () => {
    const doc = await served()
    const dir = mkdtempSync(join(tmpdir(), 'lingxi-openapi-'))
    try {
      writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(doc as never, { silent: true })))
      const wire = relative(dir, fileURLToPath(new URL('../src/wire.ts', import.meta.url)))
        .replace(/\\/g, '/')
        .replace(/\.ts$/, '.js')
      writeFileSync(
        join(dir, 'calls.ts'),
        `import type { components, operations } from './api.js'
import type {
  ActivityDetail, GalleryItem, HotList, LoginResult, Message, Order, PaintingTask, PermissionNode, SdOptions, SendCodeResult, SendResult, Song,
  SystemConfig, ToolReply, Topic, UploadTicket, UserInfo
} from '${wire}'

type Body<Op extends keyof operations> = operations[Op]['requestBody'] extends { content: { 'application/json': infer B } } ? B : never
type Data<Op extends keyof operations> = operations[Op]['responses'] extends { 200: { content: { 'application/json': { data: infer D } } } } ? D : never
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

// topic/message/send: the body
export const first: Body<'aiChatTopicMessageSend'> = { topicId: 't1', content: '你好' }
export const retry: Body<'aiChatTopicMessageSend'> = { topicId: 't1', content: '你好', requestId: '6f1c0e8e-4a8b-4d6e-9d7a-2f1b3c4d5e6f' }
// @ts-expect-error the field is \`content\`, not \`text\`
export const wrongField: Body<'aiChatTopicMessageSend'> = { topicId: 't1', text: '你好' }
// @ts-expect-error content is required
export const missing: Body<'aiChatTopicMessageSend'> = { topicId: 't1' }

// user/info: the data of the envelope
declare const info: Data<'userInfo'>
export const tokens: number = info.tokens
export const codes: string[] = info.permissionCodes
export const state: 0 | 1 = info.state
// @ts-expect-error allowances are tokens, mjCount and sunoCount; there is no balance
export const balance = info.balance

// the recursive permission tree resolves to itself
declare const tree: Data<'userPermission'>
export const deep: 0 | 1 | undefined = tree.bodyList[0]?.childList[0]?.childList[0]?.checked

// the generated types and the server's zod types are the same types, both ways
export const sameUserInfo: Same<Data<'userInfo'>, UserInfo> = true
export const sameTopic: Same<Data<'aiChatTopicCreate'>, Topic> = true
export const sameMessage: Same<Data<'aiChatTopicMessageGet'>, Message> = true
export const sameSendResult: Same<Data<'aiChatTopicMessageSend'>, SendResult> = true
export const sameNode: Same<NonNullable<Data<'userPermission'>['bodyList'][number]>, PermissionNode> = true
export const sameLogin: Same<Data<'authLogin'>, LoginResult> = true
export const sameSendCode: Same<Data<'authSendSmsCode'>, SendCodeResult> = true
export const sameTicket: Same<Data<'ossUploadGetOssSTS'>, UploadTicket> = true
export const sameGallery: Same<NonNullable<Data<'galleryList'>['list'][number]>, GalleryItem> = true
export const sameSdOptions: Same<Data<'sdOptions'>, SdOptions> = true
export const sameDetail: Same<Data<'ordersActivityDetail'>, ActivityDetail> = true
export const sameDraft: Same<Data<'ordersDraft'>, ToolReply> = true
export const sameInterpret: Same<Data<'hotInterpret'>, ToolReply> = true
export const sameHotList: Same<Data<'hotList'>, HotList> = true
export const sameSystem: Same<operations['getConfigSystemJson']['responses'][200]['content']['application/json'], SystemConfig> = true

// the shared objects are named components of the client
export const sameTopicComponent: Same<components['schemas']['Topic'], Topic> = true
export const samePaintingTask: Same<components['schemas']['PaintingTask'], PaintingTask> = true
export const sameSong: Same<components['schemas']['Song'], Song> = true
export const sameOrder: Same<components['schemas']['Order'], Order> = true

// calls that answer nothing have data null
export const loggedOut: Data<'authLogout'> = null
// the upload PUT and the files route are in the client too
export type Upload = operations['putOssUploadPutByKey']['parameters']['query']
export const upload: Upload = { expires: '1', sig: 'x' }
export type Partial206 = operations['getFilesByKey']['responses'][206]
`
      )
      const program = ts.createProgram([join(dir, 'api.ts'), join(dir, 'calls.ts')], {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: true,
        noEmit: true,
        types: ['node']
      })
      // Only the two files: the server sources they reach are type-checked by the server's own tsc run.
      const files = [join(dir, 'api.ts'), join(dir, 'calls.ts')].map((file) => program.getSourceFile(file))
      expect(files.every(Boolean)).toBe(true)
      const diagnostics = [
        ...program.getOptionsDiagnostics(),
        ...program.getGlobalDiagnostics(),
        ...files.flatMap((source) => [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)])
      ]
      const messages = diagnostics.map((d) => {
        const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0
        return `${d.file ? relative(dir, d.file.fileName) : ''}:${line} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`
      })
      expect(messages).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('buildOpenApi', () => {
  const base = { summary: 'x', tag: 't', auth: false } as const

  it('describes non-JSON routes: raw uploads, redirects, files with ranges, streams with Last-Event-ID', async () => {
    type Tree = { name: string; children: Tree[] }
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(tree) }))
    const docs: RouteDoc[] = [
      {
        ...base,
        method: 'put',
        path: '/api/v1/oss/upload/put/{key}',
        bodyContentType: 'application/octet-stream',
        parameters: [
          { name: 'key', in: 'path', description: 'The storage key, slashes included' },
          { name: 'expires', in: 'query', required: true },
          { name: 'sig', in: 'query', required: true }
        ]
      },
      {
        ...base,
        method: 'get',
        path: '/api/v1/auth/wechat/authorize',
        parameters: [{ name: 'redirect', in: 'query' }],
        responses: { 302: { description: 'To WeChat’s QR login', headers: { Location: 'open.weixin.qq.com' } } }
      },
      {
        ...base,
        method: 'get',
        path: '/files/{key}',
        parameters: [{ name: 'Range', in: 'header' }],
        responses: {
          200: { description: 'The file', contentType: '*/*' },
          206: { description: 'A byte range', contentType: '*/*', headers: { 'Content-Range': 'bytes a-b/size' } },
          404: { description: 'No such file', contentType: 'text/plain' },
          416: { description: 'Range not satisfiable', headers: { 'Content-Range': 'bytes */size' } }
        }
      },
      { ...base, method: 'get', path: '/sse/{requestId}', auth: true, contentType: 'text/event-stream', parameters: [{ name: 'Last-Event-ID', in: 'header' }] },
      { ...base, method: 'post', path: '/tree', body: z.object({ root: tree }), response: tree, operationId: 'treeEcho' }
    ]
    const doc = buildOpenApi(docs, 'http://127.0.0.1:8787') as unknown as Doc
    const { errors, warnings } = await lint(doc)
    expect(errors).toEqual([])
    expect(warnings).toEqual([])
    expect(doc.paths['/tree']?.post?.operationId).toBe('treeEcho')
    // An anonymous recursive schema is named after its operation, once as input and once as output.
    expect(Object.keys(doc.components.schemas).sort()).toEqual(['Failure', 'TreeEchoBody1', 'TreeEchoData1'])
    expect(doc.paths['/api/v1/oss/upload/put/{key}']?.put?.parameters?.map((p) => p.name)).toEqual(['key', 'expires', 'sig'])
    expect(at(doc, '#/paths/~1api~1v1~1oss~1upload~1put~1{key}/put/requestBody/content')).toEqual({ 'application/octet-stream': {} })
    // No 200 where the route never answers one; refusals stay the envelope unless a status says otherwise.
    expect(Object.keys(at(doc, '#/paths/~1api~1v1~1auth~1wechat~1authorize/get/responses') as object)).toEqual(['302', '4XX', '5XX'])
    expect(at(doc, '#/paths/~1files~1{key}/get/responses/404/content')).toEqual({ 'text/plain': { schema: { type: 'string' } } })
    expect(at(doc, '#/paths/~1files~1{key}/get/responses/4XX')).toEqual({ $ref: '#/components/responses/Refused' })
    await openapiTS(doc as never, { silent: true })
  })

  it('refuses clashing operationIds, path parameters the path lacks and two schemas under one id', () => {
    const clash: RouteDoc[] = [
      { ...base, method: 'post', path: '/api/v1/a-b' },
      { ...base, method: 'post', path: '/api/v1/a/b' }
    ]
    expect(() => buildOpenApi(clash, 'http://x')).toThrow(/both have the operationId aB/)
    expect(() => buildOpenApi([clash[0]!, { ...clash[1]!, operationId: 'aSlashB' }], 'http://x')).not.toThrow()
    expect(() => buildOpenApi([{ ...base, method: 'get', path: '/x', parameters: [{ name: 'id', in: 'path' }] }], 'http://x')).toThrow(/\{id\}/)
    const one = z.object({ n: z.number() }).meta({ id: 'Thing' })
    const other = z.object({ s: z.string() }).meta({ id: 'Thing' })
    const named: RouteDoc[] = [
      { ...base, method: 'post', path: '/one', response: one },
      { ...base, method: 'post', path: '/other', response: other }
    ]
    expect(() => buildOpenApi(named, 'http://x')).toThrow(/two different schemas have the id Thing/)
  })
})

describe('wire types', () => {
  it('are read from leaf wire files only: importing them type-checks a dozen files that need nothing but zod', () => {
    const src = fileURLToPath(new URL('../src/', import.meta.url))
    const program = ts.createProgram([join(src, 'wire.ts')], {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      noEmit: true,
      types: []
    })
    const own = program
      .getSourceFiles()
      .map((file) => file.fileName)
      .filter((file) => !file.includes('/node_modules/'))
      .map((file) => relative(src, file).replace(/\\/g, '/'))
    expect(own).toContain('wire.ts')
    // Wire files, and three leaves they take `paged` and constants from; never http/api.ts, db, config…
    const leaves = own.filter((file) => !/(^|\/)wire\.ts$/.test(file))
    expect(leaves.sort()).toEqual(['http/fields.ts', 'modules/hot-news/types.ts', 'modules/music/provider.ts'])
    expect(own.length).toBeLessThan(20)
    const external = program
      .getSourceFiles()
      .map((file) => file.fileName)
      .filter((file) => file.includes('/node_modules/') && !file.includes('/node_modules/typescript/'))
    expect(external.every((file) => file.includes('/node_modules/zod/'))).toBe(true)
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> }
    expect(pkg.exports['./wire']).toEqual({ types: './src/wire.ts' })
  })

  it('SystemConfig describes /config/system.json as served, wechatLogin included', async () => {
    const res = await ctx.h.app.request('/config/system.json')
    const served = systemConfigSchema.strict().parse(await res.json())
    expect(served.wechatLogin).toBe(false)
    expect(Object.keys(served.permissionCodes)).toContain('AI_TOOLS_CHAT')
  })
})
