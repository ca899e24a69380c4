import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { createTestDatabase, type TestDatabase } from './database.js'
import { createHarness, type Harness, type HarnessOptions } from './harness.js'

/**
 * Registers the hooks of a test file: one database for the file, emptied before each test,
 * and a fresh harness (app, clock, kv) per test. Read `ctx.h` inside tests.
 */
export function useHarness(options: HarnessOptions | (() => HarnessOptions) = {}) {
  const ctx = {} as { db: TestDatabase; h: Harness }
  beforeAll(async () => {
    ctx.db = await createTestDatabase()
  })
  afterAll(async () => {
    await ctx.db?.destroy()
  })
  beforeEach(async () => {
    await ctx.db.reset()
    ctx.h = createHarness(ctx.db, typeof options === 'function' ? options() : options)
  })
  afterEach(async () => {
    await ctx.h?.close()
  })
  return ctx
}
