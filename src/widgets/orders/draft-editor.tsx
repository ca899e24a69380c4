import { useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { confirm, toast } from '../../core/emit'
import { copyText } from '../../core/format'
import { Icon } from '../../ui/icons'
import { DRAFT_MAX, draftOrder, saveDraft, stopDraft, type Order } from './state'

type Phase = 'idle' | 'submitted' | 'streaming'

/**
 * The content to post: typed by hand, or drafted by AI 起草 (streamed from the brief by the chat
 * pipeline, charged to tokens) into the same box; saved on the order, copied to paste elsewhere.
 */
export function DraftEditor({ order, onSaved }: { order: Order; onSaved: (order: Order) => void }) {
  const [text, setText] = useState(order.draft ?? '')
  const [saved, setSaved] = useState(order.draft ?? '')
  const [phase, setPhase] = useState<Phase>('idle')
  const [note, setNote] = useState('')
  const [saving, setSaving] = useState(false)
  const request = useRef<string | null>(null)
  const controller = useRef<AbortController | null>(null)
  const stopped = useRef(false)

  useEffect(
    () => () => {
      controller.current?.abort()
      if (request.current && !stopped.current) stopDraft(request.current).catch(() => {})
    },
    []
  )

  async function save(value = text, quiet = false) {
    if (saving) return
    setSaving(true)
    try {
      const next = await saveDraft(order.orderId, value)
      setSaved(value)
      onSaved({ ...next, draft: value })
      if (!quiet) toast('草稿已保存', 'success')
    } catch (error) {
      notifyError(error)
    } finally {
      setSaving(false)
    }
  }

  async function handleDraft() {
    if (phase !== 'idle') return
    if (text.trim() && !(await confirm({ title: 'AI 起草', message: 'AI 起草会替换当前草稿，确定继续吗？', confirmText: '替换' }))) return
    const ctl = new AbortController()
    controller.current = ctl
    stopped.current = false
    setPhase('submitted')
    setNote('')
    const before = text
    setText('')
    try {
      const result = await draftOrder(order.orderId, {
        signal: ctl.signal,
        onStart: (s) => (request.current = s.requestId),
        onText: (t) => {
          if (stopped.current) return
          setText(t)
          setPhase('streaming')
        }
      })
      request.current = null
      const final = result.text || (stopped.current ? '' : before)
      if (!stopped.current) setText(final)
      if (result.status === 'error' || result.status === 'timeout') {
        setNote(`${result.status === 'timeout' ? '起草超时' : '起草失败'}：${result.message ?? ''}`)
        if (!result.text) setText(before)
      } else if (result.status === 'interrput' || stopped.current) {
        setNote('已停止')
      }
      if (result.text.trim()) await save(result.text.slice(0, DRAFT_MAX), true)
    } catch (error) {
      request.current = null
      if (ctl.signal.aborted) return
      setText(before)
      notifyError(error)
    } finally {
      if (!ctl.signal.aborted) setPhase('idle')
    }
  }

  async function handleStop() {
    const id = request.current
    stopped.current = true
    setPhase('idle')
    setNote('已停止')
    if (!id) return
    try {
      const kept = await stopDraft(id)
      if (kept !== null) setText(kept)
    } catch (error) {
      notifyError(error)
    }
  }

  const writing = phase !== 'idle'
  const dirty = text !== saved
  return (
    <section aria-labelledby="lx-od-draft" className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <h4 id="lx-od-draft" className="font-medium mr-auto">
          <label htmlFor="lx-od-draft-text">1. 创作稿件</label>
        </h4>
        {writing ? (
          <button
            type="button"
            onClick={() => void handleStop()}
            className="h-8 px-3 rounded-lg border border-line text-sm hover:border-danger hover:text-danger"
          >
            停止
          </button>
        ) : (
          <button
            type="button"
            onClick={() => void handleDraft()}
            className="h-8 px-3 rounded-lg border border-primary/60 text-primary text-sm inline-flex items-center gap-1.5 hover:bg-primary/10"
          >
            <Icon name="spark" className="size-4" />
            AI 起草
          </button>
        )}
        <button
          type="button"
          onClick={() => text && copyText(text)}
          aria-disabled={!text || writing || undefined}
          className="h-8 px-3 rounded-lg border border-line text-sm text-muted inline-flex items-center gap-1.5 hover:text-ink aria-disabled:opacity-50"
        >
          <Icon name="copy" className="size-4" />
          复制草稿
        </button>
        <button
          type="button"
          onClick={() => !writing && dirty && void save()}
          aria-disabled={writing || !dirty || saving || undefined}
          className="h-8 px-3 rounded-lg border border-line text-sm text-muted hover:text-ink aria-disabled:opacity-50"
        >
          {saving ? '保存中…' : dirty ? '保存草稿' : '已保存'}
        </button>
      </div>
      <div className="relative">
        <textarea
          id="lx-od-draft-text"
          data-testid="draft"
          value={text}
          readOnly={writing}
          aria-busy={writing || undefined}
          aria-describedby="lx-od-draft-hint"
          maxLength={DRAFT_MAX}
          rows={8}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          placeholder="在这里写要发布的内容，或点「AI 起草」根据任务简介生成初稿"
          className="w-full min-h-40 px-3 py-2 rounded-lg border border-line bg-raised text-sm leading-6 text-ink placeholder:text-muted outline-none focus:border-primary resize-y"
        />
        {phase === 'submitted' && (
          <span role="status" className="absolute left-3 top-2 inline-flex items-center gap-2 text-sm text-muted">
            <span className="lx-spinner !size-4 !border-2" aria-hidden="true" />
            AI 正在阅读任务简介…
          </span>
        )}
      </div>
      <p id="lx-od-draft-hint" className="flex flex-wrap gap-x-3 text-xs text-muted">
        <span className="mr-auto">AI 起草消耗对话额度，生成内容仅供参考，请按要求修改后发布。</span>
        {note && (
          <span role="status" className={note === '已停止' ? '' : 'text-danger'}>
            {note}
          </span>
        )}
        <span className="tabular-nums">
          {text.length}/{DRAFT_MAX}
        </span>
      </p>
    </section>
  )
}
