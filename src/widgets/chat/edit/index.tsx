import { useContext, useEffect, useId, useRef, useState } from 'react'
import type * as On from '../../../ui/events'
import { composingEnter } from '../dom'
import { IconButton } from '../glyphs'
import { t } from '../i18n'
import { report } from '../notice'
import { ReplyContext } from '../reply'
import { type ChatMessage, MAX_MESSAGE_LENGTH } from '../state'
import { editMessage, switchVersion } from './actions'

// The inline editor of a question and the ‹ 1/2 › switcher of a message with versions: loaded the
// first time either shows (message-list.tsx).

/** With `onClose`: the editor of the question; without: its ‹ 1/2 › switcher. */
export default function Edit({ message, onClose }: { message: ChatMessage; onClose?: () => void }) {
  return onClose ? <Editor message={message} onClose={onClose} /> : <Versions message={message} />
}

/**
 * Focuses the first control found of the message `id` once it shows (a switch or an edit replaces
 * the article). `root`: the chat's document or shadow root, read while the control asking was there.
 */
function focusIn(root: ParentNode | undefined, id: string, ...selectors: string[]) {
  let frames = 20
  const attempt = () => {
    for (const selector of selectors) {
      const el = root?.querySelector<HTMLElement>(`[data-id="${id}"] ${selector}`)
      if (el) return el.focus()
    }
    if (--frames > 0) requestAnimationFrame(attempt)
  }
  requestAnimationFrame(attempt)
}

/**
 * A question edited in place: Enter (or Ctrl+Enter) asks it again, Shift+Enter breaks the line,
 * Escape cancels. The old version and its replies stay, a branch to switch back to.
 */
export function Editor({ message, onClose }: { message: ChatMessage; onClose: () => void }) {
  const [text, setText] = useState(message.content)
  const [busy, setBusy] = useState(false)
  const field = useRef<HTMLTextAreaElement>(null)
  const watch = useContext(ReplyContext)
  const hint = useId()
  const ok = text.trim() !== '' && text.length <= MAX_MESSAGE_LENGTH

  useEffect(() => {
    const el = field.current
    if (!el) return
    el.focus()
    el.setSelectionRange(el.value.length, el.value.length)
  }, [])

  const rootOf = (el: Element | null) => el?.getRootNode() as ParentNode | undefined

  function cancel() {
    focusIn(rootOf(field.current), message.messageId, `[aria-label="${t('编辑')}"]`)
    onClose()
  }

  async function submit() {
    if (!ok || busy) return
    setBusy(true)
    const root = rootOf(field.current)
    try {
      const sent = await editMessage(message.messageId, text)
      watch?.(sent)
      focusIn(root, sent.messageId, `[aria-label="${t('编辑')}"]`)
    } catch (error) {
      report(error)
      setBusy(false)
    }
  }

  function handleKeyDown(event: On.Key) {
    if (event.key === 'Escape') {
      event.preventDefault()
      event.stopPropagation()
      return cancel()
    }
    if (event.key !== 'Enter' || event.shiftKey || event.altKey || composingEnter(event)) return
    event.preventDefault()
    void submit()
  }

  return (
    <form
      className="w-full max-w-full"
      onSubmit={(event: On.Submit) => {
        event.preventDefault()
        void submit()
      }}
    >
      <textarea
        ref={field}
        value={text}
        rows={3}
        maxLength={MAX_MESSAGE_LENGTH}
        aria-label={t('编辑消息')}
        aria-describedby={hint}
        disabled={busy}
        onInput={(event: On.Input<HTMLTextAreaElement>) => setText(event.currentTarget.value)}
        onKeyDown={handleKeyDown}
        // Sizes as styles: the chat's sheet (in its entry) then carries no rule for this part alone.
        style={{ width: 'min(36rem, 80vw)', minHeight: '5rem', maxHeight: '18rem' }}
        className="block max-w-full resize-y rounded-2xl border border-line bg-surface px-4 py-2.5 text-ink outline-none focus:border-primary"
      />
      <div className="mt-2 flex flex-wrap items-center justify-end gap-2">
        <p id={hint} className="mr-auto text-xs text-muted">
          {t('Enter 发送，Shift+Enter 换行，Esc 取消；原来的回复会保留为上一个版本')}
        </p>
        <button type="button" onClick={cancel} className="h-9 px-3 rounded-lg border border-line text-sm hover:border-primary hover:text-primary">
          {t('取消')}
        </button>
        <button type="submit" disabled={!ok || busy} className="h-9 px-3 rounded-lg bg-primary text-primary-ink text-sm disabled:opacity-40">
          {t('发送')}
        </button>
      </div>
    </form>
  )
}

/** ‹ 2/3 ›: which version of the message shows, and the way to the others. */
export function Versions({ message: m }: { message: ChatMessage }) {
  const ref = useRef<HTMLFieldSetElement>(null)
  const [busy, setBusy] = useState(false)
  const version = m.version ?? 1
  const versions = m.versions ?? 1

  async function go(to: number) {
    setBusy(true)
    const root = ref.current?.getRootNode() as ParentNode | undefined
    try {
      const id = await switchVersion(m, to)
      focusIn(root, id, `[aria-label="${t(to > version ? '下一个版本' : '上一个版本')}"]:not(:disabled)`, '[data-versions] button:not(:disabled)')
    } catch (error) {
      report(error)
    }
    setBusy(false)
  }

  return (
    // The position is in the group's name: read out with the button that has the focus after a switch.
    <fieldset
      ref={ref}
      aria-label={t('消息版本：第 {n} 个，共 {m} 个').replace('{n}', String(version)).replace('{m}', String(versions))}
      data-versions=""
      className="mt-1 flex items-center text-xs text-muted"
    >
      <IconButton icon="chevron" label="上一个版本" disabled={busy || version <= 1} onClick={() => go(version - 1)} style={{ transform: 'rotate(90deg)' }} />
      <span aria-hidden="true" className="px-1 text-center tabular-nums">
        {version}/{versions}
      </span>
      <IconButton
        icon="chevron"
        label="下一个版本"
        disabled={busy || version >= versions}
        onClick={() => go(version + 1)}
        style={{ transform: 'rotate(-90deg)' }}
      />
    </fieldset>
  )
}
