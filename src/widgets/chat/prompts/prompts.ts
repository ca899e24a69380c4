import { atom } from 'nanostores'
import { call } from '../state'

// Saved prompts and the roles' prompts for the composer's `/` shortcut (server: modules/chat/prompts.ts).

export const PROMPT_TITLE_MAX = 30
export const PROMPT_CONTENT_MAX = 2000

export interface Prompt {
  promptId: string
  title: string
  content: string
  createTime: number
  updateTime: number
}

export interface RolePrompt {
  roleId: string
  title: string
  avatar: string
  content: string
}

export interface PromptList {
  mine: Prompt[]
  roles: RolePrompt[]
}

/** One entry of the `/` menu. */
export interface PromptItem {
  key: string
  title: string
  content: string
  /** The role's avatar; none for a saved prompt. */
  avatar?: string
}

/** The list, once loaded (null: not yet). */
export const $prompts = atom<PromptList | null>(null)
let loading: Promise<PromptList> | null = null

/** Loads the list once (again with `fresh`). */
export function loadPrompts(fresh = false): Promise<PromptList> {
  if (!loading || fresh) {
    const p = call<PromptList>('prompt/list', {}).then((list) => {
      if (loading === p) $prompts.set(list)
      return list
    })
    p.catch(() => {
      if (loading === p) loading = null
    })
    loading = p
  }
  return loading
}

/** Saved prompts first, then the roles'; those whose title or text contains `filter` (case-insensitive). */
export function promptItems(list: PromptList | null, filter: string): PromptItem[] {
  if (!list) return []
  const f = filter.trim().toLowerCase()
  const items: PromptItem[] = [
    ...list.mine.map((p) => ({ key: `p:${p.promptId}`, title: p.title, content: p.content })),
    ...list.roles.map((r) => ({ key: `r:${r.roleId}`, title: r.title, content: r.content, avatar: r.avatar }))
  ]
  return f ? items.filter((i) => i.title.toLowerCase().includes(f) || i.content.toLowerCase().includes(f)) : items
}

export async function savePrompt(input: { promptId?: string; title: string; content: string }): Promise<Prompt> {
  const saved = await call<Prompt>('prompt/save', input)
  const list = $prompts.get()
  if (list) $prompts.set({ ...list, mine: [saved, ...list.mine.filter((p) => p.promptId !== saved.promptId)] })
  return saved
}

export async function deletePrompt(promptId: string): Promise<void> {
  await call<null>('prompt/del', { promptId })
  const list = $prompts.get()
  if (list) $prompts.set({ ...list, mine: list.mine.filter((p) => p.promptId !== promptId) })
}

/** Forgets the list (the account changed). */
export function resetPrompts(): void {
  loading = null
  $prompts.set(null)
}
