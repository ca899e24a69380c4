import { useEffect, useLayoutEffect, useRef, useState, type ClipboardEvent, type RefObject } from 'react'
import { getBoot } from '../../ui/boot'
import type * as On from '../../ui/events'
import { deferred } from './deferred'
import { composingEnter } from './dom'
import { Glyph, IconButton } from './glyphs'
import { t } from './i18n'
import { type ChatRequest, MAX_MESSAGE_LENGTH } from './state'

/** From here on the composer shows how many characters are left. */
const COUNTER_FROM = MAX_MESSAGE_LENGTH - 2000

export interface ComposerProps {
  /** A reply is under way: the stop button replaces send, Enter sends nothing. */
  busy: boolean
  /** Resolves false when the question did not go through (the text comes back). */
  onSend: (text: string) => Promise<boolean> | boolean
  onStop: () => void
  /** Shown above the field (e.g. the allowance is used up). */
  notice?: string | null
  inputRef?: RefObject<HTMLTextAreaElement | null>
  /** The page's prefill(text): the field takes its text (once per request). */
  prefill?: ChatRequest
}

/**
 * The question field: grows with its text up to about 8 lines; Enter sends, Shift+Enter breaks
 * the line, and Enter that confirms an IME composition (pinyin) never sends.
 */
export function Composer({ busy, onSend, onStop, notice, inputRef, prefill }: ComposerProps) {
  const [text, setText] = useState('')
  const own = useRef<HTMLTextAreaElement>(null)
  const field = inputRef ?? own
  const composing = useRef(false)
  // Attachments (attach/tray.tsx) load on the first pick, paste or drop of a file.
  const [tray, setTray] = useState<typeof import('./attach/tray')>()
  const [files, setFiles] = useState(0)
  // `/` at the start lists saved prompts (prompts/menu.tsx, loaded on the first `/`).
  const [prompts, setPrompts] = useState<typeof import('./prompts/menu')>()
  useEffect(() => {
    if (!prompts && text[0] === '/') void deferred(import('./prompts/menu')).then(setPrompts)
  }, [text, prompts])
  useEffect(() => {
    if (prefill?.prefill) setText(prefill.prefill)
  }, [prefill])
  const length = text.trim().length
  const canSend = !busy && (length || files) > 0 && length <= MAX_MESSAGE_LENGTH

  const attach = (list?: FileList) =>
    deferred(import('./attach/tray')).then((m) => {
      setTray(m)
      m.add(list)
    })
  /** Files pasted or dropped are attached (and the page's own handling of them prevented); text is left alone. */
  const dropped = (event: { preventDefault(): void }, list?: FileList | null) => {
    if (list?.length) {
      event.preventDefault()
      void attach(list)
    }
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: text: the field grows with its text, which it measures in the DOM
  useLayoutEffect(() => {
    const el = field.current
    if (!el) return
    el.style.height = 'auto'
    el.style.height = `${el.scrollHeight}px`
  }, [text])

  async function submit() {
    // With files and no text, the tray names the question; it refuses while one is uploading.
    const empty = tray?.stage()
    if (!canSend || empty === false) return
    const value = text
    setText('')
    field.current?.focus()
    const sent = await onSend(value.trim() || (empty as string))
    // Not sent: the question comes back unless something new was typed meanwhile.
    if (!sent) setText((now) => (now ? now : value))
    else tray?.clear()
  }

  function handleKeyDown(event: On.Key) {
    if (event.key !== 'Enter' || event.shiftKey || event.altKey) return
    // An IME confirms its candidate with Enter: that Enter only ends the composition.
    if (composingEnter(event) || composing.current) return
    event.preventDefault()
    void submit()
  }

  return (
    <div className="shrink-0 px-3 pt-2 pb-3 cq-md:px-4">
      <div className="max-w-3xl mx-auto">
        {notice && (
          <p role="alert" className="mb-2 flex flex-wrap items-center gap-x-2 rounded-lg border border-primary/40 bg-primary/10 px-3 py-2 text-sm">
            <span>{notice}</span>
            <a href={`${getBoot().siteUrl ?? ''}/usercenter?id=card`} className="text-primary underline">
              {t('去充值')}
            </a>
          </p>
        )}
        {tray && <tray.Tray onCount={setFiles} />}
        {prompts && <prompts.PromptMenu text={text} field={field} onPick={setText} />}
        {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for files; the 添加附件 button is the way with keys */}
        <div
          onDragOver={(e: On.Drag) => e.preventDefault()}
          onDrop={(e: On.Drag) => dropped(e, e.dataTransfer?.files)}
          className="flex items-end gap-2 rounded-2xl border border-line bg-surface p-2 pl-1 focus-within:border-primary"
        >
          <IconButton icon="plus" label="添加附件" onClick={() => attach()} />
          <textarea
            ref={field}
            rows={1}
            value={text}
            data-testid="composer"
            aria-label={t('输入消息')}
            placeholder={t('输入消息，Enter 发送，Shift+Enter 换行')}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            onKeyDown={handleKeyDown}
            onPaste={(e: ClipboardEvent) => dropped(e, e.clipboardData?.files)}
            onCompositionStart={() => (composing.current = true)}
            onCompositionEnd={() => (composing.current = false)}
            className="flex-1 min-w-0 max-h-[184px] resize-none overflow-y-auto bg-transparent py-1.5 leading-[22px] text-ink placeholder:text-muted outline-none"
          />
          {busy ? (
            <button
              type="button"
              aria-label={t('停止生成')}
              title={t('停止生成')}
              onClick={onStop}
              className="size-9 shrink-0 grid place-items-center rounded-xl bg-raised text-ink hover:text-primary"
            >
              <Glyph name="stop" className="size-4 fill-current" />
            </button>
          ) : (
            <button
              type="button"
              aria-label={t('发送')}
              title={t('发送')}
              disabled={!canSend}
              onClick={() => void submit()}
              className="size-9 shrink-0 grid place-items-center rounded-xl bg-primary text-primary-ink disabled:opacity-40 enabled:hover:brightness-110"
            >
              <Glyph name="send" className="size-5" />
            </button>
          )}
        </div>
        {length >= COUNTER_FROM && (
          <p aria-live="polite" className={`mt-1 text-right text-xs ${length > MAX_MESSAGE_LENGTH ? 'text-danger' : 'text-muted'}`}>
            {length} / {MAX_MESSAGE_LENGTH}
            {length > MAX_MESSAGE_LENGTH && t('，超出字数上限')}
          </p>
        )}
      </div>
    </div>
  )
}
