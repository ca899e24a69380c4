import { and, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import type { Db, Tx } from '../db/database.js'
import { blockedFiles, chatMessages, contentTakedowns, files, musicSongs, paintingTasks, type ReportKind, type TakedownKind } from '../db/schema.js'
import { ApiError } from '../errors.js'

/**
 * Takedowns (issue 17, "Content"): an operator hides a painting, song or image everywhere at once.
 * Lists of other people leave it out (`notTakenDown`), its owner sees it as 已下架 with the reason
 * (`takedownsOf`), and its files answer 410 (`isFileBlocked`, storage/routes.ts). A restore undoes
 * all three; the takedown row stays, with who restored it and when.
 */

/** What a takedown or a report acts on, read from the item's own table. */
export interface ContentItem {
  kind: ReportKind
  itemId: string
  accountId: string
  /** Its stored files (what /files/{key} stops serving). */
  keys: string[]
  /** Prompt, title, file name or reply text: first 200 characters. */
  excerpt: string
  /** A painting in the gallery. */
  published: boolean
}

const EXCERPT = 200
const cut = (text: string) => Array.from(text).slice(0, EXCERPT).join('')
const present = (keys: (string | null)[]) => keys.filter((k): k is string => Boolean(k))

export const NOT_FOUND_MESSAGE = '内容不存在或已删除'

/** The item, or undefined when there is no such item of that kind. */
export async function findItem(db: Db | Tx, kind: ReportKind, itemId: string): Promise<ContentItem | undefined> {
  if (kind === 'painting') {
    const [row] = await db.select().from(paintingTasks).where(eq(paintingTasks.id, itemId))
    return row && { kind, itemId, accountId: row.accountId, keys: present([row.imageKey, row.thumbKey]), excerpt: cut(row.prompt), published: row.published }
  }
  if (kind === 'song') {
    const [row] = await db.select().from(musicSongs).where(eq(musicSongs.id, itemId))
    return (
      row && { kind, itemId, accountId: row.accountId, keys: present([row.audioKey, row.imageKey]), excerpt: cut(row.title || row.prompt), published: false }
    )
  }
  if (kind === 'image') {
    const [row] = await db.select().from(files).where(eq(files.id, itemId))
    return row && { kind, itemId, accountId: row.accountId, keys: present([row.key, row.thumbKey]), excerpt: cut(row.name), published: false }
  }
  const [row] = await db
    .select()
    .from(chatMessages)
    .where(and(eq(chatMessages.id, itemId), eq(chatMessages.role, 'assistant')))
  return row && { kind, itemId, accountId: row.accountId, keys: [], excerpt: cut(row.content), published: false }
}

/** `id` (a column of the kind's table) is not under an active takedown: for lists others see. */
export const notTakenDown = (kind: TakedownKind, id: AnyPgColumn): SQL =>
  sql`not exists (select 1 from ${contentTakedowns} where ${contentTakedowns.kind} = ${kind} and ${contentTakedowns.itemId} = ${id} and ${contentTakedowns.restoredAt} is null)`

/** The reasons of the active takedowns among `ids`, by id: what the owner's lists show as 已下架. */
export async function takedownsOf(db: Db | Tx, kind: TakedownKind, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map()
  const rows = await db
    .select({ itemId: contentTakedowns.itemId, reason: contentTakedowns.reason })
    .from(contentTakedowns)
    .where(and(eq(contentTakedowns.kind, kind), inArray(contentTakedowns.itemId, [...ids]), isNull(contentTakedowns.restoredAt)))
  return new Map(rows.map((r) => [r.itemId, r.reason]))
}

/** Whether /files/{key} must refuse the key (one primary-key lookup). */
export async function isFileBlocked(db: Db, key: string): Promise<boolean> {
  const [row] = await db.select({ key: blockedFiles.key }).from(blockedFiles).where(eq(blockedFiles.key, key))
  return Boolean(row)
}

export interface TakedownInput {
  kind: TakedownKind
  itemId: string
  reason: string
  by: string
  at: Date
}

/**
 * Takes the item down in the caller's transaction; 40000001 when it is down already (the partial
 * unique index decides between racing operators), 40400001 when there is no such item.
 */
export async function takeDown(tx: Tx, input: TakedownInput): Promise<{ id: number; item: ContentItem }> {
  const item = await findItem(tx, input.kind, input.itemId)
  if (!item) throw new ApiError(40400001, NOT_FOUND_MESSAGE)
  const [row] = await tx
    .insert(contentTakedowns)
    .values({
      kind: input.kind,
      itemId: input.itemId,
      accountId: item.accountId,
      reason: input.reason,
      keys: item.keys,
      createdBy: input.by,
      createdAt: input.at
    })
    .onConflictDoNothing()
    .returning({ id: contentTakedowns.id })
  if (!row) throw new ApiError(40000001, '该内容已被下架，无需重复操作')
  if (item.keys.length > 0)
    await tx
      .insert(blockedFiles)
      .values(item.keys.map((key) => ({ key, takedownId: row.id })))
      .onConflictDoNothing()
  return { id: row.id, item }
}

/** Restores the item; 40400001 when it is not down. Returns the takedown it ended. */
export async function restore(tx: Tx, input: Omit<TakedownInput, 'reason'>): Promise<{ id: number; reason: string }> {
  const [row] = await tx
    .update(contentTakedowns)
    .set({ restoredAt: input.at, restoredBy: input.by })
    .where(and(eq(contentTakedowns.kind, input.kind), eq(contentTakedowns.itemId, input.itemId), isNull(contentTakedowns.restoredAt)))
    .returning({ id: contentTakedowns.id, reason: contentTakedowns.reason })
  if (!row) throw new ApiError(40400001, '该内容未被下架')
  await tx.delete(blockedFiles).where(eq(blockedFiles.takedownId, row.id))
  return row
}
