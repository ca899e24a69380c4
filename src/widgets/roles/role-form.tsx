import { useState } from 'react'
import { notifyError } from '../../core/api'
import type * as On from '../../ui/events'
import { ROLE_LIMITS, saveRole, validateRole, type Role, type RoleInput, type RoleTag } from './state'

const AVATARS = ['🤖', '🧑‍🏫', '🧙', '👩‍💻', '🐱', '🎭', '📚', '🍳', '🩺', '✍️']

type Field = keyof RoleInput

interface RoleFormProps {
  /** The role to edit; null to create one. */
  role: Role | null
  tags: RoleTag[]
  onSaved: (role: Role) => void
}

/** Create or edit one of my roles; what is wrong shows under each field, in Chinese. */
export function RoleForm({ role, tags, onSaved }: RoleFormProps) {
  const [input, setInput] = useState<RoleInput>(() => ({
    roleId: role?.roleId,
    name: role?.name ?? '',
    avatar: role?.avatar ?? '🤖',
    description: role?.description ?? '',
    systemPrompt: role?.systemPrompt ?? '',
    welcomeMessage: role?.welcomeMessage ?? '',
    tagIds: role?.tags.map((t) => t.tagId) ?? []
  }))
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})
  const [busy, setBusy] = useState(false)

  const set = (field: Field, value: string | string[]) => {
    setInput((now) => ({ ...now, [field]: value }))
    setErrors((now) => ({ ...now, [field]: undefined }))
  }

  async function handleSubmit(event: On.Submit) {
    event.preventDefault()
    const found = validateRole(input)
    setErrors(found)
    const first = Object.keys(found)[0]
    if (first) {
      ;(event.target as HTMLFormElement).querySelector<HTMLElement>(`[name=${first}]`)?.focus()
      return
    }
    if (busy) return
    setBusy(true)
    try {
      onSaved(await saveRole(input))
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  const text = (field: 'name' | 'description' | 'systemPrompt' | 'welcomeMessage', label: string, rows = 0, placeholder = '') => {
    const id = `lx-role-${field}`
    const error = errors[field]
    const props = {
      id,
      name: field,
      value: input[field] ?? '',
      placeholder,
      maxLength: ROLE_LIMITS[field] + 100,
      'aria-invalid': error ? true : undefined,
      'aria-describedby': error ? `${id}-error` : undefined,
      onInput: (e: Event) => set(field, (e.target as HTMLInputElement).value),
      className:
        'w-full px-3 py-2 rounded-lg border border-line bg-raised text-ink placeholder:text-muted outline-none focus:border-primary aria-invalid:border-danger'
    }
    return (
      <div>
        <label htmlFor={id} className="block mb-1.5 text-sm text-muted">
          {label}
        </label>
        {rows ? <textarea rows={rows} {...(props as object)} /> : <input {...(props as object)} />}
        {error && (
          <p id={`${id}-error`} role="alert" className="mt-1 text-sm text-danger">
            {error}
          </p>
        )}
      </div>
    )
  }

  return (
    <form onSubmit={handleSubmit} noValidate className="flex flex-col gap-4">
      <div className="flex gap-3 items-end">
        <div className="w-24 shrink-0">
          <label htmlFor="lx-role-avatar" className="block mb-1.5 text-sm text-muted">
            头像
          </label>
          <input
            id="lx-role-avatar"
            name="avatar"
            value={input.avatar ?? ''}
            onInput={(e) => set('avatar', (e.target as HTMLInputElement).value)}
            aria-invalid={errors.avatar ? true : undefined}
            className="w-full h-10 px-3 rounded-lg border border-line bg-raised text-center text-xl outline-none focus:border-primary"
          />
        </div>
        <fieldset aria-label="选择头像" className="min-w-0 flex flex-wrap gap-1">
          {AVATARS.map((a) => (
            <button
              key={a}
              type="button"
              aria-label={`头像 ${a}`}
              aria-pressed={input.avatar === a}
              onClick={() => set('avatar', a)}
              className={`size-9 rounded-lg text-lg ${input.avatar === a ? 'bg-primary/20 ring-1 ring-primary' : 'hover:bg-raised'}`}
            >
              {a}
            </button>
          ))}
        </fieldset>
      </div>
      {errors.avatar && (
        <p role="alert" className="-mt-2 text-sm text-danger">
          {errors.avatar}
        </p>
      )}
      {text('name', '角色名称', 0, '例如：英语口语陪练')}
      {text('description', '简介', 2, '一两句话介绍这个角色')}
      {text('systemPrompt', '角色设定（系统提示词）', 5, '你是一位耐心的英语老师……')}
      {text('welcomeMessage', '欢迎语（可选）', 2, '开始对话时角色说的第一句话')}
      {tags.length > 0 && (
        <fieldset>
          <legend className="mb-1.5 text-sm text-muted">标签</legend>
          <div className="flex flex-wrap gap-2">
            {tags.map((t) => {
              const on = input.tagIds.includes(t.tagId)
              return (
                <button
                  key={t.tagId}
                  type="button"
                  aria-pressed={on}
                  onClick={() => set('tagIds', on ? input.tagIds.filter((id) => id !== t.tagId) : [...input.tagIds, t.tagId])}
                  className={`h-8 px-3 rounded-full border text-sm ${on ? 'border-primary bg-primary/15 text-primary' : 'border-line text-muted hover:text-ink'}`}
                >
                  {t.name}
                </button>
              )
            })}
          </div>
        </fieldset>
      )}
      <button
        type="submit"
        aria-disabled={busy}
        className={`h-11 rounded-lg bg-primary text-primary-ink font-semibold ${busy ? 'opacity-50' : 'hover:brightness-110'}`}
      >
        {busy ? '保存中…' : '保存'}
      </button>
    </form>
  )
}
