import { z } from 'zod'
import { codeStatus } from '../errors.js'
import type { RouteDoc, RouteParameter, RouteResponse } from './api.js'

type JsonSchema = Record<string, unknown>

const SCHEMAS = '#/components/schemas/'
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/

/**
 * The path without `/api/v1`, in camel case, a path parameter as `By<Name>`:
 * `/api/v1/ai-chat/topic/message/send` → `aiChatTopicMessageSend`, GET `/files/{key}` → `getFilesByKey`.
 * POST, the verb of nearly every call, is unmarked; other methods lead (`getConfigSystemJson`), so
 * adding a GET beside a POST never renames the POST. Generated clients call these names: they are API.
 */
export function operationIdOf(method: string, path: string): string {
  const words = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean)
  const parts = path
    .replace(/^\/api(?:\/v\d+)?(?=\/)/, '')
    .split('/')
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment)
      return param ? ['by', ...words(param[1] ?? '')] : words(segment)
    })
  if (method !== 'post') parts.unshift(method)
  return parts
    .map((word, i) => {
      if (i > 0) return word.charAt(0).toUpperCase() + word.slice(1)
      return word === word.toUpperCase() ? word.toLowerCase() : word.charAt(0).toLowerCase() + word.slice(1)
    })
    .join('')
}

const pathParams = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '')

/**
 * The named schemas of the document. zod puts a recursive schema, and any schema given `.meta({ id })`,
 * into `$defs` at the root of each converted schema; embedded in an operation those `#/$defs/…` refs
 * resolve against the whole document and break, so they move here and point at `#/components/schemas/`.
 */
function createSchemaRegistry(reserved: Record<string, JsonSchema>) {
  const schemas: Record<string, JsonSchema> = { ...reserved }

  const rewrite = (value: unknown, to: (ref: string) => string): unknown => {
    if (Array.isArray(value)) return value.map((item) => rewrite(item, to))
    if (typeof value !== 'object' || value === null) return value
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, key === '$ref' && typeof item === 'string' ? to(item) : rewrite(item, to)]))
  }

  /**
   * `schema` as JSON Schema 2020-12 (what OpenAPI 3.1 uses), its named parts moved to the components.
   * An id names the output form; the input form is `<id>Input`, since objects accept unknown keys as
   * input but list them as output. `anonymous` names recursive schemas that carry no id
   * (`<anonymous>1`, …): give those an id instead.
   */
  function convert(schema: z.ZodType, io: 'input' | 'output', anonymous: string): JsonSchema {
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema
    const { $schema: _, $defs, ...root } = json as JsonSchema & { $defs?: Record<string, JsonSchema> }
    const defs: Record<string, JsonSchema> = { ...$defs }
    let body: JsonSchema = root
    // An anonymous schema that contains itself refers to its root as `#`.
    if (JSON.stringify(root).includes('"$ref":"#"')) {
      defs['#'] = root
      body = { $ref: '#' }
    }
    if (Object.keys(defs).length === 0) return body

    const names = new Map<string, string>()
    let unnamed = 0
    for (const id of Object.keys(defs)) {
      if (id === '#' || /^__schema\d+$/.test(id)) {
        names.set(id, `${anonymous}${++unnamed}`)
        continue
      }
      if (!COMPONENT_NAME.test(id)) throw new Error(`OpenAPI: schema id "${id}" is not a valid component name`)
      names.set(id, io === 'input' ? `${id}Input` : id)
    }
    const to = (ref: string) => {
      const id = ref === '#' ? ref : ref.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : undefined
      return id === undefined ? ref : `${SCHEMAS}${names.get(id)}`
    }
    for (const [id, def] of Object.entries(defs)) {
      const name = names.get(id) ?? id
      const converted = rewrite(def, to) as JsonSchema
      const known = schemas[name]
      if (known && JSON.stringify(known) !== JSON.stringify(converted)) {
        throw new Error(`OpenAPI: two different schemas have the id ${name}`)
      }
      schemas[name] = converted
    }
    return rewrite(body, to) as JsonSchema
  }

  return { schemas, convert }
}

function envelopeSchema(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['code', 'message', 'data'],
    properties: {
      code: { type: 'integer', description: '2000 on success; see the error codes in info.description' },
      message: { type: 'string' },
      data
    }
  }
}

const codesOf = (from: number, to: number) =>
  Object.entries(codeStatus)
    .filter(([, status]) => status >= from && status < to)
    .map(([code, status]) => `${code} (HTTP ${status})`)
    .join(', ')

const SSE_DESCRIPTION =
  'Server-sent events: each event has `id:` (a decimal count), `event:` and one `data:` line holding a JSON object; comment lines are heartbeats.'

/** A media type entry of an answer that is not the envelope. */
function rawContent(contentType: string, schema: JsonSchema | undefined): Record<string, unknown> {
  if (schema) return { [contentType]: { schema } }
  if (contentType === 'text/event-stream') return { [contentType]: { schema: { type: 'string', description: SSE_DESCRIPTION } } }
  if (contentType.startsWith('text/')) return { [contentType]: { schema: { type: 'string' } } }
  if (/[/+]json$/.test(contentType)) return { [contentType]: { schema: {} } }
  // Bytes (files, uploads): OpenAPI 3.1 describes them by the media type alone, without a schema.
  return { [contentType]: {} }
}

function responseObject(response: RouteResponse): Record<string, unknown> {
  return {
    description: response.description,
    ...(response.headers
      ? { headers: Object.fromEntries(Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
      : {}),
    ...(response.contentType ? { content: rawContent(response.contentType, undefined) } : {})
  }
}

/** OpenAPI 3.1 from the same zod schemas that validate the requests. */
export function buildOpenApi(docs: readonly RouteDoc[], serverUrl: string): JsonSchema {
  const registry = createSchemaRegistry({
    Failure: { ...envelopeSchema({ type: 'null' }), description: 'A refusal or a fault: the envelope with a code other than 2000 and data null' }
  })
  const paths: Record<string, Record<string, unknown>> = {}
  const operationIds = new Map<string, string>()

  for (const doc of docs) {
    const where = `${doc.method.toUpperCase()} ${doc.path}`
    const operationId = doc.operationId ?? operationIdOf(doc.method, doc.path)
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(operationId)) throw new Error(`OpenAPI: operationId "${operationId}" of ${where} is not an identifier`)
    const taken = operationIds.get(operationId)
    if (taken) throw new Error(`OpenAPI: ${where} and ${taken} both have the operationId ${operationId}; give one an explicit operationId`)
    operationIds.set(operationId, where)
    if (paths[doc.path]?.[doc.method]) throw new Error(`OpenAPI: ${where} is documented twice`)
    const pascal = operationId.charAt(0).toUpperCase() + operationId.slice(1)

    const declared = doc.parameters ?? []
    const inPath = pathParams(doc.path)
    for (const p of declared) {
      if (p.in === 'path' && !inPath.includes(p.name)) throw new Error(`OpenAPI: ${where} declares a path parameter {${p.name}} its path lacks`)
    }
    const undeclared = inPath.filter((name) => !declared.some((p) => p.in === 'path' && p.name === name))
    const parameters = [...undeclared.map((name): RouteParameter => ({ name, in: 'path' })), ...declared].map((p) => ({
      name: p.name,
      in: p.in,
      required: p.in === 'path' || p.required === true,
      ...(p.description ? { description: p.description } : {}),
      schema: { type: 'string' }
    }))

    const operation: Record<string, unknown> = {
      operationId,
      summary: doc.summary,
      tags: [doc.tag],
      ...(doc.auth ? { security: [{ bearer: [] }] } : { security: [] }),
      ...(parameters.length > 0 ? { parameters } : {})
    }
    if (doc.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: registry.convert(doc.body, 'input', `${pascal}Body`) } }
      }
    } else if (doc.bodyContentType) {
      operation.requestBody = { required: true, content: rawContent(doc.bodyContentType, undefined) }
    }

    const success: Record<string, unknown> = {}
    if (doc.responses) {
      for (const [status, response] of Object.entries(doc.responses)) success[status] = responseObject(response)
    } else {
      const data = doc.response ? registry.convert(doc.response, 'output', `${pascal}Data`) : undefined
      success[200] = {
        description: 'Success',
        content: doc.contentType ? rawContent(doc.contentType, data) : { 'application/json': { schema: envelopeSchema(data ?? {}) } }
      }
    }
    operation.responses = {
      ...success,
      // Refusals are the envelope whatever the route answers on success (a bad path, a missing token…).
      '4XX': { $ref: '#/components/responses/Refused' },
      '5XX': { $ref: '#/components/responses/Failed' }
    }
    paths[doc.path] = { ...paths[doc.path], [doc.method]: operation }
  }

  const failure = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: `${SCHEMAS}Failure` } } }
  })
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lingxi API',
      version: '1',
      license: { name: 'MIT', identifier: 'MIT' },
      description: `Every JSON answer is the envelope {code, message, data}; code 2000 is success. Error codes: ${codesOf(400, 600)}.`
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: registry.schemas,
      responses: {
        Refused: failure(`Refused; the code says why: ${codesOf(400, 500)}`),
        Failed: failure(`A server or upstream fault: ${codesOf(500, 600)}`)
      }
    },
    paths
  }
}
