import { useStore } from '@nanostores/react'
import { useCallback, useEffect, useState, type ReactNode } from 'react'
import { notifyError } from '../../core/api'
import { confirm } from '../../core/emit'
import { $token } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { Dialog } from '../../ui/dialog'
import { Icon, Spinner } from '../../ui/icons'
import { Canvas } from '../../ui/canvas'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { SM, useMedia } from '../../ui/use-media'
import { usePagedList } from '../../ui/use-paged-list'
import { RoleForm } from './role-form'
import { $roleTags, deleteRole, listRoles, loadRoleTags, startChatWithRole, type Role } from './state'

/** Wait after the last keystroke before searching. */
const SEARCH_DELAY_MS = 300
const ALL = ''
const MINE = '\u0000mine'

/**
 * @summary The role repository: filter by tag (全部, each tag with its count, 我的), search, start a
 * conversation with a role, and create, edit or delete your own roles. Logged out, a login prompt.
 * @event lingxi-navigate - (window) 开始对话 created a topic with the role: detail `{path: '/chat', topicId}`. The host page routes it; elsewhere the page may handle it.
 * @event lingxi-confirm - (window) Asks before deleting a role.
 * @csspart base - The element's root, painted with --lingxi-bg over its whole height (padding, corners…).
 * @csspart card - One role card.
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function Roles(_: ElementProps) {
  const token = useStore($token)
  return (
    <Canvas>
      {token ? (
        <RoleRepository />
      ) : (
        <LoggedOut icon={<Icon name="role" className="size-7" />} title="登录后浏览角色库" blurb="挑选一位角色，一键开始角色对话。" />
      )}
      <InlineLogin />
    </Canvas>
  )
}

function RoleRepository() {
  const tags = useStore($roleTags)
  const wide = useMedia(SM)
  const [filter, setFilter] = useState(ALL)
  const [typed, setTyped] = useState('')
  const [keyword, setKeyword] = useState('')
  const [state, roles] = usePagedList({
    load: (pageNum, query: { filter: string; keyword: string }) =>
      listRoles({
        tagId: query.filter === ALL || query.filter === MINE ? undefined : query.filter,
        mine: query.filter === MINE,
        keyword: query.keyword,
        pageNum
      }),
    key: (r: Role) => r.roleId
  })
  const page = state.loaded ? state : null
  const { loading } = state
  const [editing, setEditing] = useState<Role | 'new' | null>(null)
  const [starting, setStarting] = useState<string | null>(null)

  useEffect(() => {
    loadRoleTags().catch(notifyError)
  }, [])

  useEffect(() => {
    const timer = setTimeout(() => setKeyword(typed.trim()), SEARCH_DELAY_MS)
    return () => clearTimeout(timer)
  }, [typed])

  // An answer to an older filter or search is ignored.
  const reload = useCallback(() => roles.reload({ filter, keyword }), [filter, keyword])
  useEffect(() => {
    void reload()
  }, [reload])

  async function handleStart(role: Role) {
    if (starting) return
    setStarting(role.roleId)
    try {
      await startChatWithRole(role.roleId)
    } catch (error) {
      notifyError(error)
    } finally {
      setStarting(null)
    }
  }

  async function handleDelete(role: Role) {
    if (!(await confirm({ title: '删除角色', message: `确定删除「${role.name}」吗？删除后无法恢复。`, confirmText: '删除' }))) return
    try {
      await deleteRole(role.roleId)
      roles.update((list) => list.filter((r) => r.roleId !== role.roleId), -1)
    } catch (error) {
      notifyError(error)
    }
  }

  function handleSaved() {
    setEditing(null)
    void reload()
  }

  const chip = (value: string, label: ReactNode) => (
    <button
      key={value}
      type="button"
      aria-pressed={filter === value}
      onClick={() => setFilter(value)}
      className={`h-8 px-3 rounded-full border text-sm whitespace-nowrap ${
        filter === value ? 'border-primary bg-primary/15 text-primary' : 'border-line text-muted hover:text-ink'
      }`}
    >
      {label}
    </button>
  )

  const list = page?.list ?? []
  return (
    <section aria-labelledby="lx-roles-title" className="@container max-w-6xl mx-auto">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="lx-roles-title" className="text-xl font-bold mr-auto">
          角色库
        </h2>
        <label className="relative w-full cq-md:w-64 order-last cq-md:order-none">
          <span className="sr-only">搜索角色</span>
          <span className="absolute left-3 top-1/2 -translate-y-1/2 text-muted">
            <Icon name="search" className="size-4" />
          </span>
          <input
            type="search"
            value={typed}
            onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
            placeholder="搜索角色名称或简介"
            className="w-full h-10 pl-9 pr-3 rounded-lg border border-line bg-raised text-ink placeholder:text-muted outline-none focus:border-primary"
          />
        </label>
        <button type="button" onClick={() => setEditing('new')} className="h-10 px-4 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
          创建角色
        </button>
      </div>
      <fieldset aria-label="按标签筛选" className="min-w-0 mt-4 flex gap-2 overflow-x-auto pb-1 [scrollbar-width:thin] cq-md:flex-wrap">
        {chip(ALL, '全部')}
        {tags?.map((t) =>
          chip(
            t.tagId,
            <>
              {t.name}
              <span className="ml-1 text-xs">{t.count}</span>
            </>
          )
        )}
        {chip(MINE, '我的')}
      </fieldset>

      {!page && loading && <Spinner label="加载角色" />}
      {page && list.length === 0 && !loading && (
        <p className="py-16 text-center text-muted">{filter === MINE && !keyword ? '你还没有创建角色，点「创建角色」写一个吧。' : '没有找到相关角色'}</p>
      )}
      <ul aria-busy={loading || undefined} className="mt-5 grid gap-3 cq-md:grid-cols-2 cq-lg:grid-cols-3 cq-xl:grid-cols-4">
        {list.map((role) => (
          <li
            key={role.roleId}
            part="card"
            data-testid="role-card"
            className="flex flex-col p-4 rounded-card border border-line bg-surface hover:border-primary/60"
          >
            <div className="flex items-center gap-3">
              <Avatar avatar={role.avatar} />
              <div className="min-w-0">
                <h3 className="font-semibold truncate">{role.name}</h3>
                {role.mine && <p className="text-xs text-primary">我创建的</p>}
              </div>
            </div>
            <p className="mt-3 text-sm text-muted line-clamp-2 min-h-10">{role.description}</p>
            {role.tags.length > 0 && (
              <ul aria-label="标签" className="mt-3 flex flex-wrap gap-1">
                {role.tags.map((t) => (
                  <li key={t.tagId} className="px-2 py-0.5 rounded-full bg-raised text-xs text-muted">
                    {t.name}
                  </li>
                ))}
              </ul>
            )}
            <div className="mt-auto pt-4 flex items-center gap-1">
              <button
                type="button"
                onClick={() => handleStart(role)}
                aria-disabled={starting !== null}
                className="flex-1 h-9 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110"
              >
                {starting === role.roleId ? '正在创建…' : '开始对话'}
              </button>
              {role.mine && (
                <>
                  <SmallButton label="编辑角色" d="M4 20h4L19 9l-4-4L4 16z M14 6l4 4" onClick={() => setEditing(role)} />
                  <SmallButton label="删除角色" d="M4 7h16 M9 7V4h6v3 M6 7l1 13h10l1-13" onClick={() => handleDelete(role)} />
                </>
              )}
            </div>
          </li>
        ))}
      </ul>
      {page && list.length < page.total && (
        <div className="mt-6 text-center">
          <button
            type="button"
            onClick={() => roles.more()}
            aria-disabled={loading}
            className="h-10 px-6 rounded-lg border border-line text-ink hover:border-primary hover:text-primary"
          >
            {loading ? '加载中…' : '加载更多'}
          </button>
        </div>
      )}
      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? '创建角色' : '编辑角色'}
        placement={wide ? 'center' : 'bottom'}
        width={520}
      >
        {editing !== null && (
          <RoleForm key={editing === 'new' ? 'new' : editing.roleId} role={editing === 'new' ? null : editing} tags={tags ?? []} onSaved={handleSaved} />
        )}
      </Dialog>
    </section>
  )
}

function Avatar({ avatar }: { avatar: string }) {
  if (/^(https?:)?\//.test(avatar)) return <img src={avatar} alt="" className="size-12 shrink-0 rounded-xl object-cover" />
  return (
    <span aria-hidden="true" className="size-12 shrink-0 grid place-items-center rounded-xl bg-raised text-2xl leading-none">
      {avatar || '🤖'}
    </span>
  )
}

function SmallButton({ label, d, onClick }: { label: string; d: string; onClick: () => void }) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      className="size-9 shrink-0 grid place-items-center rounded-lg text-muted hover:text-ink hover:bg-raised"
    >
      <svg
        viewBox="0 0 24 24"
        className="size-4"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
      >
        <path d={d} />
      </svg>
    </button>
  )
}
