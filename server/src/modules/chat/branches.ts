import { eq, inArray } from 'drizzle-orm'
import type { Db, Tx } from '../../db/database.js'
import { type ChatTopic, chatMessages } from '../../db/schema.js'
import { countTokens, type HistoryTurn, TOKENS_PER_MESSAGE } from '../../replies/context.js'

// A topic's messages as a tree (edit and resend, regenerate): each message follows the one before
// it on its branch (`prev_id`; the topic's id for a first message), and the topic remembers the
// newest message of the branch shown (`leaf_id`). The branch shown is the path from the first
// message to that leaf; the messages that share the message before them are versions of one
// another (‹ 1/2 ›).
//
// Rows made before branches (and rows of code that knows none, such as a tool's replies or a
// role's welcome) have no prev_id: each follows the message before it by seq, so such a topic is
// one linear branch, exactly as before, with no data to migrate.

export interface Node {
  id: string
  seq: number
  prevId: string | null
  role: string
  status: string
}

export interface Tree {
  topicId: string
  /** Oldest first. */
  nodes: Node[]
  byId: Map<string, Node>
  /** The message each one follows (the topic's id for a first message). */
  parent: Map<string, string>
  /** The messages that follow each message (or the topic's id), oldest first. */
  children: Map<string, Node[]>
  /** The newest message of the branch shown; undefined: the topic is empty. */
  leaf: Node | undefined
}

/** The messages of a topic as a tree: ids and order only (a topic's rows are small this way). */
export async function loadTree(db: Db | Tx, topic: Pick<ChatTopic, 'id' | 'leafId'>): Promise<Tree> {
  const nodes = await db
    .select({ id: chatMessages.id, seq: chatMessages.seq, prevId: chatMessages.prevId, role: chatMessages.role, status: chatMessages.status })
    .from(chatMessages)
    .where(eq(chatMessages.topicId, topic.id))
    .orderBy(chatMessages.seq)
  return treeOf(topic, nodes)
}

export function treeOf(topic: Pick<ChatTopic, 'id' | 'leafId'>, nodes: Node[]): Tree {
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const parent = new Map<string, string>()
  const children = new Map<string, Node[]>()
  let before = topic.id
  for (const n of nodes) {
    // A prev that is gone (deleted by code that knows no branches): the message starts the topic.
    const p = n.prevId === null ? before : n.prevId === topic.id || byId.has(n.prevId) ? n.prevId : topic.id
    parent.set(n.id, p)
    const list = children.get(p)
    if (list) list.push(n)
    else children.set(p, [n])
    before = n.id
  }
  const newest = nodes.at(-1)
  const chosen = topic.leafId ? byId.get(topic.leafId) : undefined
  // No leaf (a topic made before branches) or a gone one: the newest message. A message appended
  // after the leaf by code that knows no branches follows the newest message: it is shown too.
  const leaf = !chosen || (newest && newest.prevId === null && newest.seq > chosen.seq) ? newest : chosen
  return { topicId: topic.id, nodes, byId, parent, children, leaf }
}

/** The branch from the first message to `id` (included), oldest first; [] for the topic's id. */
export function pathTo(tree: Tree, id: string | undefined): Node[] {
  const path: Node[] = []
  let node = id === undefined ? undefined : tree.byId.get(id)
  while (node) {
    path.push(node)
    node = tree.byId.get(tree.parent.get(node.id)!)
  }
  return path.reverse()
}

/** The branch shown, oldest first. */
export const activePath = (tree: Tree) => pathTo(tree, tree.leaf?.id)

/** The versions of a message: the messages that follow the same one, oldest first. */
export function versionsOf(tree: Tree, id: string): Node[] {
  const p = tree.parent.get(id)
  return p === undefined ? [] : (tree.children.get(p) ?? [])
}

/** Where a message stands among its versions (1-based), when it has more than one. */
export function versionOf(tree: Tree, id: string): { version: number; versions: number } | undefined {
  const list = versionsOf(tree, id)
  if (list.length < 2) return undefined
  return { version: list.findIndex((n) => n.id === id) + 1, versions: list.length }
}

/** The newest message at or after `id` (the end of the branch last written there); `skip` left out. */
export function newestUnder(tree: Tree, id: string, skip?: string): Node | undefined {
  let best = tree.byId.get(id)
  const stack = [...(tree.children.get(id) ?? [])]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.id === skip) continue
    if (!best || n.seq > best.seq) best = n
    stack.push(...(tree.children.get(n.id) ?? []))
  }
  return best
}

const HISTORY_BATCH = 50

/**
 * The finished messages of a branch (oldest first, as pathTo gives it) sent upstream as history:
 * read newest first in batches until they hold more than `budget` tokens (buildContext makes the
 * exact cut). Only the branch: the versions beside it are never sent.
 */
export async function loadBranchHistory(db: Db, path: readonly Node[], budget: number): Promise<HistoryTurn[]> {
  const turns: HistoryTurn[] = []
  let total = 0
  const wanted = path.filter((n) => n.status !== 'streaming' && (n.role === 'user' || n.role === 'assistant')).map((n) => n.id)
  for (let end = wanted.length; end > 0; end -= HISTORY_BATCH) {
    const ids = wanted.slice(Math.max(0, end - HISTORY_BATCH), end)
    const rows = await db
      .select({ id: chatMessages.id, role: chatMessages.role, content: chatMessages.content, tokens: chatMessages.contentTokens })
      .from(chatMessages)
      .where(inArray(chatMessages.id, ids))
    const byId = new Map(rows.map((r) => [r.id, r]))
    for (let i = ids.length - 1; i >= 0; i--) {
      const row = byId.get(ids[i]!)
      if (!row || row.content === '' || (row.role !== 'user' && row.role !== 'assistant')) continue
      const tokens = row.tokens ?? (await countTokens(row.content))
      turns.push({ role: row.role, content: row.content, tokens })
      total += tokens + TOKENS_PER_MESSAGE
      if (total > budget) return turns.reverse()
    }
  }
  return turns.reverse()
}
