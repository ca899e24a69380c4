import { useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { copyText } from '../../core/format'
import { Markdown } from '../../ui/markdown'
import { interpretHotItem, stopInterpret, type HotItem, type InterpretStatus } from './state'

/**
 * - `submitted`: asked; waiting for the first words.
 * - `streaming`: the commentary is arriving.
 * - InterpretStatus: how it ended.
 */
type Phase = 'submitted' | 'streaming' | InterpretStatus

const END_TEXT: Partial<Record<Phase, string>> = {
  interrput: '已停止',
  error: '解读失败',
  timeout: '解读超时'
}

/** AI 解读 of one item: streams a short commentary, with stop while it writes and copy once done. */
export function Interpretation({ sourceId, item }: { sourceId: string; item: HotItem }) {
  const [text, setText] = useState('')
  const [phase, setPhase] = useState<Phase>('submitted')
  const [message, setMessage] = useState<string | null>(null)
  const request = useRef<string | null>(null)
  const stopped = useRef(false)

  useEffect(() => {
    const controller = new AbortController()
    let alive = true
    stopped.current = false
    interpretHotItem(sourceId, item.id, {
      signal: controller.signal,
      onStart: (start) => (request.current = start.requestId),
      onText: (t) => {
        if (!alive || stopped.current) return
        setText(t)
        setPhase('streaming')
      }
    }).then(
      (result) => {
        request.current = null // over: nothing to stop on close
        if (!alive) return
        if (!stopped.current) setText(result.text)
        setPhase(stopped.current ? 'interrput' : result.status)
        if (result.message) setMessage(result.message)
      },
      (error: unknown) => {
        if (!alive || controller.signal.aborted) return
        setPhase('error')
        notifyError(error)
      }
    )
    return () => {
      alive = false
      controller.abort()
      // Closed while writing: the server stops too, so no tokens are spent on nobody.
      if (request.current && !stopped.current) stopInterpret(request.current).catch(() => {})
    }
  }, [sourceId, item.id])

  async function handleStop() {
    const id = request.current
    stopped.current = true
    setPhase('interrput')
    if (!id) return
    try {
      const saved = await stopInterpret(id)
      if (saved !== null) setText(saved)
    } catch (error) {
      notifyError(error)
    }
  }

  const writing = phase === 'submitted' || phase === 'streaming'
  return (
    <div data-testid="interpretation" data-status={phase}>
      <p className="text-sm text-muted line-clamp-2">
        <span className="sr-only">解读：</span>
        {item.title}
      </p>
      <div
        aria-live="polite"
        aria-busy={writing || undefined}
        className="mt-3 min-h-24 max-h-[55vh] overflow-y-auto rounded-lg bg-raised p-4 text-sm leading-7"
      >
        {phase === 'submitted' && !text ? (
          <span className="inline-flex items-center gap-2 text-muted">
            <span className="lx-spinner !size-4 !border-2" aria-hidden="true" />
            AI 正在阅读这条热点…
          </span>
        ) : (
          <Markdown text={text} streaming={phase === 'streaming'} className="min-w-0 break-words" />
        )}
        {END_TEXT[phase] && (
          <p role="status" className={`mt-2 text-xs ${phase === 'interrput' ? 'text-muted' : 'text-danger'}`}>
            {END_TEXT[phase]}
            {message && phase !== 'interrput' ? `：${message}` : ''}
          </p>
        )}
      </div>
      <div className="mt-4 flex items-center justify-end gap-2">
        <span className="mr-auto text-xs text-muted">AI 生成内容仅供参考，消耗对话额度</span>
        {writing ? (
          <button type="button" onClick={handleStop} className="h-9 px-4 rounded-lg border border-line text-ink hover:border-danger hover:text-danger">
            停止
          </button>
        ) : (
          <button
            type="button"
            aria-disabled={!text || undefined}
            onClick={() => text && copyText(text)}
            className="h-9 px-4 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110 aria-disabled:opacity-50"
          >
            复制全文
          </button>
        )}
      </div>
    </div>
  )
}
