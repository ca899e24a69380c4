import { useStore } from '@nanostores/react'
import { useEffect, useState } from 'react'
import { confirm } from '../../../core/emit'
import { Dialog } from '../../../ui/dialog'
import { errorInfo } from '../state'
import { $prompts, deletePrompt, loadPrompts, PROMPT_CONTENT_MAX, PROMPT_TITLE_MAX, type Prompt, savePrompt } from './prompts'

/** 管理提示词: the account's saved prompts, added, edited and deleted here. */
export function ManageDialog({ onClose }: { onClose: () => void }) {
  const list = useStore($prompts)
  const [editing, setEditing] = useState<Prompt | null>(null)
  const [title, setTitle] = useState('')
  const [content, setContent] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    loadPrompts().catch((e) => setError(errorInfo(e).message))
  }, [])

  function edit(p: Prompt | null) {
    setEditing(p)
    setTitle(p?.title ?? '')
    setContent(p?.content ?? '')
    setError(null)
  }

  async function save(event: Event | { preventDefault(): void }) {
    event.preventDefault()
    const t = title.trim()
    const c = content.trim()
    if (!t || !c) return setError(!t ? '请输入标题' : '请输入提示词内容')
    setBusy(true)
    try {
      await savePrompt({ ...(editing ? { promptId: editing.promptId } : {}), title: t, content: c })
      edit(null)
    } catch (e) {
      setError(errorInfo(e).message)
    } finally {
      setBusy(false)
    }
  }

  async function remove(p: Prompt) {
    if (!(await confirm({ title: '删除提示词', message: `确定删除「${p.title}」吗？`, confirmText: '删除' }))) return
    try {
      await deletePrompt(p.promptId)
      if (editing?.promptId === p.promptId) edit(null)
    } catch (e) {
      setError(errorInfo(e).message)
    }
  }

  const field = 'w-full rounded-lg border border-line bg-raised px-3 py-2 text-sm text-ink outline-none focus:border-primary'
  return (
    <Dialog open onClose={onClose} title="管理提示词" placement="center" width={480}>
      <form onSubmit={save} data-testid="prompt-form" className="flex flex-col gap-2">
        <label className="text-sm text-muted">
          标题
          <input
            data-autofocus
            value={title}
            maxLength={PROMPT_TITLE_MAX}
            onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
            className={`mt-1 ${field}`}
          />
        </label>
        <label className="text-sm text-muted">
          提示词内容
          <textarea
            value={content}
            rows={3}
            maxLength={PROMPT_CONTENT_MAX}
            onInput={(e) => setContent((e.target as HTMLTextAreaElement).value)}
            className={`mt-1 resize-y ${field}`}
          />
        </label>
        {error && (
          <p role="alert" className="text-sm text-danger">
            {error}
          </p>
        )}
        <div className="flex justify-end gap-2">
          {editing && (
            <button type="button" onClick={() => edit(null)} className="h-9 rounded-lg border border-line px-4 text-sm text-ink hover:bg-raised">
              取消编辑
            </button>
          )}
          <button type="submit" disabled={busy} className="h-9 rounded-lg bg-primary px-4 text-sm text-primary-ink disabled:opacity-40">
            {editing ? '保存修改' : '添加提示词'}
          </button>
        </div>
      </form>
      <h3 className="mt-4 mb-1 text-sm font-semibold">我的提示词</h3>
      {!list ? (
        <p className="py-4 text-sm text-muted">加载中…</p>
      ) : list.mine.length === 0 ? (
        <p className="py-4 text-sm text-muted">还没有保存的提示词。在对话框输入 / 即可快速使用。</p>
      ) : (
        <ul className="flex max-h-72 flex-col gap-1 overflow-y-auto">
          {list.mine.map((p) => (
            <li key={p.promptId} data-testid="saved-prompt" className="flex items-center gap-2 rounded-lg border border-line px-3 py-2">
              <span className="min-w-0 flex-1">
                <span className="block truncate text-sm text-ink">{p.title}</span>
                <span className="block truncate text-xs text-muted">{p.content}</span>
              </span>
              <button type="button" onClick={() => edit(p)} aria-label={`编辑「${p.title}」`} className="shrink-0 text-sm text-primary hover:underline">
                编辑
              </button>
              <button type="button" onClick={() => remove(p)} aria-label={`删除「${p.title}」`} className="shrink-0 text-sm text-danger hover:underline">
                删除
              </button>
            </li>
          ))}
        </ul>
      )}
    </Dialog>
  )
}
