import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { asc, count, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { AllowanceRegistry } from '../../allowances/registry.js'
import type { Db } from '../../db/database.js'
import { type PayPackage, payPackages } from '../../db/schema.js'
import { paths } from '../../paths.js'

export const PACKAGES_FILE = 'pay-packages.json'

/** A package as the operator writes it (seed file, `lingxi-admin pay packages create`). */
export const packageInput = z.object({
  name: z.string().trim().min(1).max(40),
  priceFen: z.number().int().min(1).max(100_000_000),
  /** By allowance kind id: `{"tokens": 500000, "mj": 50}`. */
  grants: z.record(z.string(), z.number().int().min(0).max(1_000_000_000_000)),
  validityDays: z.number().int().min(1).max(36_500).nullable().optional(),
  badge: z.string().trim().max(8).nullable().optional(),
  sort: z.number().int().min(-1_000_000).max(1_000_000).optional(),
  enabled: z.boolean().optional()
})
export type PackageInput = z.infer<typeof packageInput>

/** Zeros left out; refuses a kind the registry does not know, and a package that grants nothing. */
export function checkGrants(registry: AllowanceRegistry, grants: Record<string, number>): Record<string, number> {
  const kept: Record<string, number> = {}
  for (const [kind, amount] of Object.entries(grants)) {
    if (!registry.kinds.some((k) => k.id === kind)) throw new Error(`unknown allowance kind "${kind}" (known: ${registry.kinds.map((k) => k.id).join(', ')})`)
    if (amount > 0) kept[kind] = amount
  }
  if (Object.keys(kept).length === 0) throw new Error('a package must grant something')
  return kept
}

/** Enabled packages, in the operator's order. */
export function listPackages(db: Db, { all = false } = {}): Promise<PayPackage[]> {
  const q = db.select().from(payPackages)
  return (all ? q : q.where(eq(payPackages.enabled, true))).orderBy(asc(payPackages.sort), asc(payPackages.seq))
}

export async function createPackage(db: Db, registry: AllowanceRegistry, input: PackageInput, at = new Date()): Promise<PayPackage> {
  const p = packageInput.parse(input)
  const [row] = await db
    .insert(payPackages)
    .values({
      id: randomUUID(),
      name: p.name,
      priceFen: p.priceFen,
      grants: checkGrants(registry, p.grants),
      validityDays: p.validityDays ?? null,
      badge: p.badge || null,
      sort: p.sort ?? 0,
      enabled: p.enabled ?? true,
      createdAt: at,
      updatedAt: at
    })
    .returning()
  if (!row) throw new Error('package not saved')
  return row
}

/** Changes some fields; orders already made keep the name, price and grants they were made with. */
export async function updatePackage(
  db: Db,
  registry: AllowanceRegistry,
  id: string,
  input: Partial<PackageInput>,
  at = new Date()
): Promise<PayPackage | undefined> {
  const p = packageInput.partial().parse(input)
  const [row] = await db
    .update(payPackages)
    .set({
      ...(p.name !== undefined ? { name: p.name } : {}),
      ...(p.priceFen !== undefined ? { priceFen: p.priceFen } : {}),
      ...(p.grants !== undefined ? { grants: checkGrants(registry, p.grants) } : {}),
      ...(p.validityDays !== undefined ? { validityDays: p.validityDays } : {}),
      ...(p.badge !== undefined ? { badge: p.badge || null } : {}),
      ...(p.sort !== undefined ? { sort: p.sort } : {}),
      ...(p.enabled !== undefined ? { enabled: p.enabled } : {}),
      updatedAt: at
    })
    .where(eq(payPackages.id, id))
    .returning()
  return row
}

/** The seed file: `${DATA_DIR}/config/pay-packages.json` when the operator put one there, else server/config's. */
export function readPackageSeed(dataDir: string): PackageInput[] {
  const own = join(dataDir, 'config', PACKAGES_FILE)
  const file = existsSync(own) ? own : join(paths.defaultConfigDir, PACKAGES_FILE)
  const parsed = z.array(packageInput).safeParse(JSON.parse(readFileSync(file, 'utf8')))
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`)
  return parsed.data
}

/** A fresh install (no package at all) gets the seed file's packages; an operator's own list is never touched. */
export async function seedPackages(db: Db, registry: AllowanceRegistry, seed: PackageInput[], at = new Date()): Promise<number> {
  const [row] = await db.select({ n: count() }).from(payPackages)
  if ((row?.n ?? 0) > 0) return 0
  for (const p of seed) await createPackage(db, registry, p, at)
  return seed.length
}
