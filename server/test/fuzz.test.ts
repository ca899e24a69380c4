/**
 * Fuzz pass over every POST route of the OpenAPI registry (api.docs): fast-check builds bodies
 * from each route's own zod schema (as JSON Schema) and bends them — wrong types, oversize
 * strings and numbers, hostile text (SQL, script, unicode edge cases), deep nesting, arrays for
 * objects, raw bodies that are not JSON at all. Logged in with every permission.
 *
 * Each answer must be the envelope (never 5xx); a refusal must change nothing in the database
 * (every table's row count and content hash compared before and after). Balances start at zero
 * so no background job (painting, music, chat generation) can write while a refusal is checked.
 *
 * Reproduce a run with FUZZ_SEED=<seed printed below>; FUZZ_RUNS sets the runs per route.
 */
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Api, RouteDoc } from '../src/http/api.js'
import { knownPermissionCodes } from '../src/permissions/tree.js'
import { createTestDatabase, type TestDatabase } from './helpers/database.js'
import { createHarness, type Harness, TEST_ADDRESS } from './helpers/harness.js'

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const RUNS = Number(process.env.FUZZ_RUNS ?? 30)

let api!: Api
// One fresh database for the file (no per-test reset: a single test runs here).
const ctx = {} as { db: TestDatabase; h: Harness }
beforeAll(async () => {
  ctx.db = await createTestDatabase()
  ctx.h = createHarness(ctx.db, {
    env: {
      DEFAULT_PERMISSIONS: knownPermissionCodes()
        .filter((code) => code !== 'ADMIN')
        .join(','),
      START_TOKENS: '0',
      START_MJ_COUNT: '0',
      START_SUNO_COUNT: '0',
      // A logout the fuzz happens to send is undone by logging in again, as often as it takes.
      SMS_HOURLY_PER_PHONE: '0',
      SMS_HOURLY_PER_IP: '0'
    },
    extend: (a) => (api = a)
  })
})
afterAll(async () => {
  await ctx.h?.close()
  await ctx.db?.destroy()
})

type Json = Record<string, unknown>

// ---- hostile values -------------------------------------------------------------------------

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  "' OR '1'='1",
  "'; drop table accounts; --",
  '1; select pg_sleep(5)',
  '"; delete from sessions where ""="',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '{{7*7}}$' + '{7*7}', // a template-injection probe, split so it stays a literal, not a template
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00%0d%0a',
  'line\r\nInjected: header',
  'data: x\n\nevent: done\n',
  '\ud800',
  'a\udc00b',
  '\u202eRTL override',
  '\u200f\u200e\u061c',
  '\u200b\u200c\u200d\ufeff',
  '𝕳𝖊𝖑𝖑𝖔 👩‍👩‍👧‍👦 🏳️‍🌈',
  'Z̷̛̤̈́a̶̡͝l̵̢̛g̸͓̈́o̴͙͝',
  '\uffff\ufffe',
  '灵犀'.repeat(40),
  'x'.repeat(101),
  'y'.repeat(5000),
  '1e400',
  'NaN',
  '-1',
  '0x7fffffff',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '00000000-0000-0000-0000-000000000000',
  '1'.repeat(64),
  '13800138000',
  'LOGIN'
]

const HOSTILE_NUMBERS = [0, -0, 1, -1, 0.5, -0.5, 2 ** 31, -(2 ** 31), 2 ** 53, -(2 ** 53), 1e308, -1e308, Number.MIN_VALUE, 123456789012345]

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map((s) => s.repeat(30)) }
)
const hostileNumber = fc.oneof(fc.constantFrom(...HOSTILE_NUMBERS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))

/** Nested arrays and objects, some deep enough to hurt a recursive parser or validator. */
const deep = fc.integer({ min: 20, max: 3000 }).chain((depth) =>
  fc.constantFrom('array', 'object').map((kind) => {
    let value: unknown = 'x'
    for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value }
    return value
  })
)

const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  hostileNumber,
  hostileString,
  fc.array(hostileString, { maxLength: 3 }),
  fc.constant({}),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
  fc.constant(JSON.parse('{"__proto__":{"isAdmin":true}}')),
  deep
)

// ---- bodies from the route's schema ------------------------------------------------------

function resolveRef(root: Json, node: Json): Json {
  const ref = node.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node
  let target: unknown = root
  for (const part of ref.slice(2).split('/')) target = (target as Json)?.[part]
  return (target as Json) ?? {}
}

/** Values near the schema, bent in the ways that break servers; `depth` limits recursion. */
function nearValid(root: Json, raw: Json, depth = 0): fc.Arbitrary<unknown> {
  const node = resolveRef(root, raw)
  if (depth > 6) return wrongType
  const variants: fc.Arbitrary<unknown>[] = []
  const alts = (node.anyOf ?? node.oneOf ?? node.allOf) as Json[] | undefined
  if (alts) variants.push(...alts.map((alt) => nearValid(root, alt, depth + 1)))
  if ('const' in node) variants.push(fc.constant(node.const))
  if (Array.isArray(node.enum)) variants.push(fc.constantFrom(...(node.enum as unknown[])))
  const types = Array.isArray(node.type) ? (node.type as string[]) : node.type ? [node.type as string] : []
  for (const type of types) {
    if (type === 'string') {
      const max = typeof node.maxLength === 'number' ? node.maxLength : 100
      variants.push(hostileString, fc.constant('z'.repeat(max + 1)), fc.constant('界'.repeat(Math.min(max, 5000))), fc.string({ maxLength: Math.min(max, 30) }))
    } else if (type === 'integer' || type === 'number') {
      const min = typeof node.minimum === 'number' ? node.minimum : 0
      const max = typeof node.maximum === 'number' ? node.maximum : 1000
      variants.push(
        hostileNumber,
        fc.constantFrom(min, min - 1, max, max + 1, min + 0.5),
        fc.integer({ min: Math.max(Math.ceil(min), -1e9), max: Math.max(Math.ceil(min), Math.min(Math.floor(max), 1e9)) })
      )
    } else if (type === 'boolean') {
      variants.push(fc.boolean())
    } else if (type === 'null') {
      variants.push(fc.constant(null))
    } else if (type === 'array') {
      const items = (node.items ?? {}) as Json
      variants.push(
        fc.array(nearValid(root, items, depth + 1), { maxLength: 6 }),
        fc.constant(Array.from({ length: 5000 }, () => 'x')),
        fc.array(wrongType, { maxLength: 3 })
      )
    } else if (type === 'object') {
      variants.push(objectOf(root, node, depth))
    }
  }
  if (variants.length === 0) variants.push(wrongType)
  // Mostly shaped like the schema, sometimes the wrong type altogether.
  return fc.oneof({ weight: 5, arbitrary: fc.oneof(...variants) }, { weight: 1, arbitrary: wrongType })
}

function objectOf(root: Json, node: Json, depth: number): fc.Arbitrary<Json> {
  const properties = (node.properties ?? {}) as Record<string, Json>
  const shape: Record<string, fc.Arbitrary<unknown>> = {}
  for (const key of Object.keys(properties)) shape[key] = nearValid(root, properties[key]!, depth + 1)
  const record = fc.record(shape, { requiredKeys: [] })
  const extra = fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'accountId', 'isAdmin', 'id', '$where', 'toString'), wrongType, {
    maxKeys: 2
  })
  return fc.tuple(record, extra, fc.boolean()).map(([body, more, withExtra]) => (withExtra ? { ...body, ...more } : body))
}

/** What is sent: the raw request body text and its content type. */
interface Sent {
  text: string
  type: string
}

const RAW_BODIES: Sent[] = [
  '',
  'null',
  '[]',
  '[{}]',
  '"x"',
  '42',
  'true',
  '{',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  '\ufeff{}',
  '{"a":1e400}',
  '{"a":-1e400}',
  '{"a":123456789012345678901234567890}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '['.repeat(100_000),
  `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
  `{"a":"${'x'.repeat(1_100_000)}"}`,
  '\u0000\u0001\u0002',
  '<xml/>',
  'a=1&b=2'
].map((text) => ({ text, type: 'application/json' }))

function bodies(doc: RouteDoc): fc.Arbitrary<Sent> {
  const root = doc.body ? (z.toJSONSchema(doc.body, { io: 'input', unrepresentable: 'any' }) as Json) : { type: 'object' }
  const json = (value: unknown): Sent => ({ text: JSON.stringify(value) ?? 'null', type: 'application/json' })
  return fc.oneof(
    { weight: 6, arbitrary: nearValid(root, root).map(json) },
    { weight: 1, arbitrary: wrongType.map(json) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(objectOf(root, root, 0), fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', ''))
        .map(([v, type]) => ({ text: JSON.stringify(v), type }))
    }
  )
}

// ---- the database, whole -------------------------------------------------------------------

type Rows<T> = { rows?: T[] } | T[]
const rowsOf = <T>(result: Rows<T>): T[] => (Array.isArray(result) ? result : (result.rows ?? []))

async function tableNames(): Promise<string[]> {
  const result = (await ctx.db.db.execute(
    sql.raw("select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1")
  )) as unknown as Rows<{ name: string }>
  return rowsOf(result)
    .map((r) => r.name)
    .filter((name) => !name.startsWith('__drizzle'))
}

/** Every table's row count and a hash of its content: any insert, update or delete shows. */
async function fingerprint(tables: string[]): Promise<Record<string, string>> {
  const query = tables
    .map((t) => `select '${t}' as t, count(*)::text || ':' || coalesce(md5(string_agg(x::text, '|' order by x::text)), '-') as f from "${t}" x`)
    .join(' union all ')
  const result = (await ctx.db.db.execute(sql.raw(query))) as unknown as Rows<{ t: string; f: string }>
  return Object.fromEntries(rowsOf(result).map((r) => [r.t, r.f]))
}

// ---- the run -------------------------------------------------------------------------------

describe('fuzz: every POST route of the OpenAPI registry', () => {
  it(`answers hostile bodies with the envelope, never 5xx, and refusals write nothing (seed ${SEED})`, { timeout: 300_000 }, async () => {
    console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} to reproduce)`)
    const routes = api.docs.filter((d) => d.method === 'post' && d.body)
    expect(routes.length).toBeGreaterThan(20)
    const tables = await tableNames()
    expect(tables).toEqual(expect.arrayContaining(['accounts', 'sessions', 'chat_messages', 'balance_log']))

    let token = (await ctx.h.login('13800138000')).accessToken
    const relogin = async () => {
      const info = await ctx.h.post<any>('/api/v1/user/info', {}, { token })
      if (info.body.code !== 2000) token = (await ctx.h.login('13800138000')).accessToken
    }

    const tally = { requests: 0, ok: 0, refused: 0 }
    const byCode: Record<string, number> = {}
    const okRoutes = new Set<string>()
    const started = Date.now()
    for (const [index, doc] of routes.entries()) {
      await fc.assert(
        fc.asyncProperty(bodies(doc), async (sent) => {
          const before = await fingerprint(tables)
          const res = await ctx.h.app.request(
            doc.path,
            {
              method: 'POST',
              headers: { Authorization: `Bearer ${token}`, ...(sent.type ? { 'Content-Type': sent.type } : {}) },
              body: sent.text
            },
            { incoming: { socket: { remoteAddress: TEST_ADDRESS } }, outgoing: {} }
          )
          const text = await res.text()
          tally.requests++
          expect(res.status, `${doc.path} ${text.slice(0, 300)}`).toBeLessThan(500)
          const body = JSON.parse(text) as { code: unknown; message: unknown; data: unknown }
          expect(Object.keys(body).sort()).toEqual(['code', 'data', 'message'])
          expect(typeof body.code).toBe('number')
          expect(typeof body.message).toBe('string')
          byCode[String(body.code)] = (byCode[String(body.code)] ?? 0) + 1
          if (body.code === 2000) {
            tally.ok++
            okRoutes.add(doc.path)
            expect(res.status).toBe(200)
            // Whatever it started ends before the next refusal is checked; a logout is undone.
            await ctx.h.chat.idle()
            await relogin()
            return
          }
          tally.refused++
          expect(res.status).toBeGreaterThanOrEqual(400)
          expect(body.data).toBeNull()
          expect(body.message as string, `${doc.path}: the refusal is in Chinese`).toMatch(/[\u4e00-\u9fff]/)
          const after = await fingerprint(tables)
          expect(after, `${doc.path} refused (${body.code} ${body.message}) yet wrote`).toEqual(before)
        }),
        { seed: SEED + index, numRuns: RUNS, endOnFailure: true }
      )
    }
    // The process is still up and answers.
    expect((await ctx.h.post<any>('/api/v1/user/info', {}, { token })).body.code).toBe(2000)
    expect(ctx.h.logger.entries.filter((e) => e.message === 'unexpected error')).toEqual([])
    console.log(
      `fuzz: ${routes.length} routes, ${tally.requests} requests (${tally.ok} accepted on ${okRoutes.size} routes, ${tally.refused} refused) in ${((Date.now() - started) / 1000).toFixed(1)} s; codes ${JSON.stringify(byCode)}`
    )
  })
})
