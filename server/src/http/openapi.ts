import { z } from 'zod'
import { codeStatus } from '../errors.js'
import type { RouteDoc } from './api.js'

type JsonSchema = Record<string, unknown>

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema
  return rest
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

const errorCodes = Object.entries(codeStatus)
  .filter(([code]) => code !== '2000')
  .map(([code, status]) => `${code} (HTTP ${status})`)
  .join(', ')

/** OpenAPI 3.1 from the same zod schemas that validate the requests. */
export function buildOpenApi(docs: readonly RouteDoc[], serverUrl: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const doc of docs) {
    const operation: Record<string, unknown> = {
      summary: doc.summary,
      tags: [doc.tag],
      ...(doc.auth ? { security: [{ bearer: [] }] } : { security: [] })
    }
    if (doc.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: toSchema(doc.body, 'input') } }
      }
    }
    const data = doc.response ? toSchema(doc.response, 'output') : {}
    operation.responses = {
      200: {
        description: 'Success',
        content: { [doc.contentType ?? 'application/json']: { schema: doc.contentType ? data : envelopeSchema(data) } }
      },
      default: {
        description: 'Failure: the envelope with a non-2000 code and data null',
        content: { 'application/json': { schema: envelopeSchema({ type: 'null' }) } }
      }
    }
    paths[doc.path] = { ...paths[doc.path], [doc.method]: operation }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lingxi API',
      version: '1',
      description: `Every response is {code, message, data}; code 2000 is success. Error codes: ${errorCodes}.`
    },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths
  }
}
