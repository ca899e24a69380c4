import type { Role, RoleTag, Topic } from '@lingxi/server/wire'
import { atom } from 'nanostores'
import { request } from '../../core/api'
import { emit } from '../../core/emit'
import { handOff } from '../../core/handoff'
import type { Paged } from '../../core/paged-list'
import { shared } from '../../core/shared'
import { EVENT_NAVIGATE } from '../../core/wire'

// Shapes and calls: docs/chat-wire.md (role-play); the wire objects are the server's
// (`@lingxi/server/wire`, type-only). A role's avatar is an emoji or a Lingxi image URL; mine: I may
// edit and delete it. A tag's count is the number of roles carrying it.

export type { Role, RoleTag }

export interface RoleQuery {
  tagId?: string
  keyword?: string
  /** Only my own roles. */
  mine?: boolean
  pageNum?: number
  pageSize?: number
}

export interface RoleInput {
  /** Omitted: a new role. */
  roleId?: string
  name: string
  avatar?: string
  description: string
  systemPrompt: string
  welcomeMessage?: string
  tagIds: string[]
}

export const ROLE_PAGE_SIZE = 24
/** Field limits of the role form (characters). */
export const ROLE_LIMITS = { name: 20, avatar: 200, description: 200, systemPrompt: 4000, welcomeMessage: 500 } as const

/** The role repository's tags with their counts; null until loaded. */
export const $roleTags = /* @__PURE__ */ shared('$roleTags', () => atom<RoleTag[] | null>(null))

const call = <T>(path: string, body: object) => request<T>(`/ai-chat/role-play/${path}`, body)

export async function loadRoleTags(): Promise<RoleTag[]> {
  const answer = await call<RoleTag[]>('tag/list', {})
  const tags = Array.isArray(answer) ? answer : []
  $roleTags.set(tags)
  return tags
}

/** One page of roles: the public ones plus my own, filtered by tag, keyword or mine. */
export function listRoles({ tagId, keyword, mine, pageNum = 1, pageSize = ROLE_PAGE_SIZE }: RoleQuery = {}): Promise<Paged<Role>> {
  const body: Record<string, unknown> = { pageNum, pageSize }
  if (tagId) body.tagId = tagId
  if (keyword?.trim()) body.keyword = keyword.trim()
  if (mine) body.mine = true
  return call<Paged<Role>>('list', body)
}

/** What is wrong with a role form, by field, in Chinese (empty when it can be saved). */
export function validateRole(input: RoleInput): Partial<Record<keyof RoleInput, string>> {
  const errors: Partial<Record<keyof RoleInput, string>> = {}
  const len = (s: string | undefined) => (s ?? '').trim().length
  if (!len(input.name)) errors.name = '请输入角色名称'
  else if (len(input.name) > ROLE_LIMITS.name) errors.name = `角色名称不能超过 ${ROLE_LIMITS.name} 个字`
  if (len(input.avatar) > ROLE_LIMITS.avatar) errors.avatar = '头像过长，请填一个表情或图片地址'
  if (!len(input.description)) errors.description = '请输入角色简介'
  else if (len(input.description) > ROLE_LIMITS.description) errors.description = `简介不能超过 ${ROLE_LIMITS.description} 个字`
  if (!len(input.systemPrompt)) errors.systemPrompt = '请输入角色设定（系统提示词）'
  else if (len(input.systemPrompt) > ROLE_LIMITS.systemPrompt) errors.systemPrompt = `角色设定不能超过 ${ROLE_LIMITS.systemPrompt} 个字`
  if (len(input.welcomeMessage) > ROLE_LIMITS.welcomeMessage) errors.welcomeMessage = `欢迎语不能超过 ${ROLE_LIMITS.welcomeMessage} 个字`
  return errors
}

/** Creates or edits one of my roles; the tag counts are reloaded. */
export async function saveRole(input: RoleInput): Promise<Role> {
  const body: Record<string, unknown> = {
    name: input.name.trim(),
    description: input.description.trim(),
    systemPrompt: input.systemPrompt.trim(),
    tagIds: input.tagIds
  }
  if (input.roleId) body.roleId = input.roleId
  if (input.avatar?.trim()) body.avatar = input.avatar.trim()
  if (input.welcomeMessage?.trim()) body.welcomeMessage = input.welcomeMessage.trim()
  const role = await call<Role>('save', body)
  loadRoleTags().catch(() => {})
  return role
}

export async function deleteRole(roleId: string): Promise<void> {
  await call<null>('del', { roleId })
  loadRoleTags().catch(() => {})
}

/** The topic a role conversation starts in (the chat's own shape has more: see the chat's state). */
export type RoleTopic = Pick<Topic, 'topicId' | 'name' | 'roleId'>

/**
 * Starts a conversation with a role: a topic named after it (its welcome message first) is left
 * for the chat, which makes it the active topic (at once when a chat is on the page, else when one
 * appears), and the page is asked to show the chat (`lingxi-navigate` `{path: '/chat', topicId}`;
 * the host page routes it, a partner page may handle it or not).
 */
export async function startChatWithRole(roleId: string): Promise<RoleTopic> {
  const topic = await request<RoleTopic>('/ai-chat/topic/create', { roleId })
  handOff('chat', topic)
  emit(EVENT_NAVIGATE, { path: '/chat', topicId: topic.topicId })
  return topic
}
