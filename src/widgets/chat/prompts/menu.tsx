import { useStore } from '@nanostores/react'
import { lazy, type RefObject, Suspense, useEffect, useId, useRef, useState } from 'react'
import { $token } from '../../../core/stores'
import { deferred } from '../deferred'
import { errorInfo } from '../state'
import { $prompts, loadPrompts, type PromptItem, promptItems, resetPrompts } from './prompts'

// The composer's `/` menu: typing `/` at the start of the field lists the saved prompts and the
// roles' prompts, filtered by what follows; ↑ ↓ move, Enter (or a click) puts the prompt in the
// field, Escape closes. Loaded on the first `/` (composer.tsx).

$token.listen(resetPrompts)

const ManageDialog = lazy(() => deferred(import('./manage')).then((m) => ({ default: m.ManageDialog })))

interface PromptMenuProps {
  /** The composer's text. */
  text: string
  field: RefObject<HTMLTextAreaElement | null>
  /** Replaces the composer's text with the picked prompt. */
  onPick: (text: string) => void
}

/** The menu is open for a `/` at the start of a single line. */
export const wantsMenu = (text: string) => text.startsWith('/') && !text.includes('\n')

export function PromptMenu({ text, field, onPick }: PromptMenuProps) {
  const list = useStore($prompts)
  const [error, setError] = useState<string | null>(null)
  const [index, setIndex] = useState(0)
  /** The text the menu was closed at (Escape): it stays closed until the text changes. */
  const [closedAt, setClosedAt] = useState<string | null>(null)
  const [manage, setManage] = useState(false)
  const id = useId()
  const open = wantsMenu(text) && closedAt !== text
  const items = promptItems(list, text.slice(1))
  const state = useRef({ open, items, index })
  state.current = { open, items, index }
  const listRef = useRef<HTMLDivElement>(null)

  useEffect(() => {
    if (open && !list)
      loadPrompts().then(
        () => setError(null),
        (e) => setError(errorInfo(e).message)
      )
  }, [open, list])

  // biome-ignore lint/correctness/useExhaustiveDependencies: text: a new filter starts at the first item
  useEffect(() => setIndex(0), [text])

  function pick(item: PromptItem | undefined) {
    if (!item) return
    onPick(item.content)
    const el = field.current
    el?.focus()
    setTimeout(() => el?.setSelectionRange(el.value.length, el.value.length))
  }

  // Before the composer's own Enter (send): a capturing listener on the field itself.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reads the latest state through the ref
  useEffect(() => {
    const el = field.current
    if (!el) return
    const onKey = (event: KeyboardEvent) => {
      const s = state.current
      if (!s.open || event.isComposing || event.keyCode === 229) return
      const n = s.items.length
      if (event.key === 'Escape') setClosedAt(el.value)
      else if (event.key === 'ArrowDown' && n) setIndex((s.index + 1) % n)
      else if (event.key === 'ArrowUp' && n) setIndex((s.index - 1 + n) % n)
      else if ((event.key === 'Enter' || event.key === 'Tab') && !event.shiftKey && n) pick(s.items[s.index])
      else return
      event.preventDefault()
      event.stopImmediatePropagation()
    }
    el.addEventListener('keydown', onKey, true)
    return () => el.removeEventListener('keydown', onKey, true)
  }, [field])

  // The field names the option the arrows are on.
  useEffect(() => {
    const el = field.current
    if (!el) return
    if (open && items[index]) {
      el.setAttribute('aria-activedescendant', `${id}-${index}`)
      el.setAttribute('aria-controls', `${id}-list`)
    } else {
      el.removeAttribute('aria-activedescendant')
      el.removeAttribute('aria-controls')
    }
    listRef.current?.querySelector(`[aria-selected="true"]`)?.scrollIntoView({ block: 'nearest' })
  })

  return (
    <>
      {open && (
        <div className="relative">
          <div data-testid="prompt-menu" className="absolute left-0 right-0 bottom-1 z-20 rounded-xl border border-line bg-surface shadow-2xl">
            <div className="flex items-center justify-between gap-2 border-b border-line px-3 py-2 text-xs text-muted">
              <span>提示词 · ↑↓ 选择，Enter 使用，Esc 关闭</span>
              <button type="button" onClick={() => setManage(true)} className="shrink-0 text-primary hover:underline">
                管理
              </button>
            </div>
            {error ? (
              <p role="alert" className="px-3 py-4 text-sm text-danger">
                {error}
              </p>
            ) : !list ? (
              <p className="px-3 py-4 text-sm text-muted">加载中…</p>
            ) : items.length === 0 ? (
              <p className="px-3 py-4 text-sm text-muted">没有匹配的提示词</p>
            ) : (
              <div ref={listRef} id={`${id}-list`} role="listbox" aria-label="提示词" tabIndex={0} className="max-h-72 overflow-y-auto p-1">
                {items.map((item, i) => (
                  // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard picks from the field (arrows and Enter, aria-activedescendant)
                  // biome-ignore lint/a11y/useFocusableInteractive: the focus stays in the field, which names this option (aria-activedescendant)
                  <div
                    key={item.key}
                    id={`${id}-${i}`}
                    role="option"
                    aria-selected={i === index}
                    data-testid="prompt-item"
                    // Keeps the focus in the field: a click picks without blurring it.
                    onMouseDown={(e) => e.preventDefault()}
                    onClick={() => pick(item)}
                    onMouseMove={() => i !== index && setIndex(i)}
                    className={`flex cursor-pointer items-start gap-2 rounded-lg px-2.5 py-2 ${i === index ? 'bg-raised' : ''}`}
                  >
                    <span aria-hidden="true" className="size-5 shrink-0 text-center">
                      {item.avatar ?? '✎'}
                    </span>
                    <span className="min-w-0 flex-1">
                      <span className="block truncate text-sm text-ink">{item.title}</span>
                      <span className="block truncate text-xs text-muted">{item.content}</span>
                    </span>
                  </div>
                ))}
              </div>
            )}
          </div>
        </div>
      )}
      {manage && (
        <Suspense fallback={null}>
          <ManageDialog
            onClose={() => {
              setManage(false)
              field.current?.focus()
            }}
          />
        </Suspense>
      )}
    </>
  )
}
