import { useEffect, useRef, useState } from 'react'
import { ApiError, notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import { UPLOAD_ACCEPT, uploadImage } from '../../core/upload'
import type * as On from '../../ui/events'
import { fileSrc } from './parts'
import { LINK_MAX, SCREENSHOTS_MAX, submitOrder, validateSubmission, type Order } from './state'

interface Shot {
  id: number
  name: string
  /** A local preview while it uploads. */
  preview: string
  progress: number
  status: 'uploading' | 'done' | 'failed'
  url?: string
  error?: string
}

let seq = 0

/** 2. 提交: the link where the content was posted and 1–6 screenshots, uploaded with progress. */
export function SubmitForm({ order, onSubmitted }: { order: Order; onSubmitted: (order: Order) => void }) {
  const [typedLink, setLink] = useState(order.link ?? '')
  const [shots, setShots] = useState<Shot[]>(() =>
    (order.screenshots ?? []).map((url) => ({ id: ++seq, name: '', preview: fileSrc(url), progress: 1, status: 'done', url }))
  )
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const linkRef = useRef<HTMLInputElement>(null)
  const aborts = useRef(new Map<number, AbortController>())

  useEffect(
    () => () => {
      for (const c of aborts.current.values()) c.abort()
    },
    []
  )

  const update = (id: number, patch: Partial<Shot>) => setShots((all) => all.map((s) => (s.id === id ? { ...s, ...patch } : s)))

  function add(files: File[]) {
    setError('')
    const room = SCREENSHOTS_MAX - shots.length
    if (room <= 0) {
      setError(`截图最多 ${SCREENSHOTS_MAX} 张`)
      return
    }
    if (files.length > room) setError(`截图最多 ${SCREENSHOTS_MAX} 张，已添加前 ${room} 张`)
    for (const file of files.slice(0, room)) {
      const id = ++seq
      const preview = typeof URL.createObjectURL === 'function' ? URL.createObjectURL(file) : ''
      const ctl = new AbortController()
      aborts.current.set(id, ctl)
      setShots((all) => [...all, { id, name: file.name, preview, progress: 0, status: 'uploading' }])
      uploadImage(file, { signal: ctl.signal, onProgress: (progress) => update(id, { progress }) })
        .then(
          (image) => update(id, { status: 'done', progress: 1, url: image.url }),
          (e: unknown) => {
            if (ctl.signal.aborted) return
            update(id, { status: 'failed', error: e instanceof Error && e.message ? e.message : '上传失败' })
          }
        )
        .finally(() => aborts.current.delete(id))
    }
  }

  function remove(shot: Shot) {
    aborts.current.get(shot.id)?.abort()
    if (shot.preview.startsWith('blob:')) URL.revokeObjectURL(shot.preview)
    setShots((all) => all.filter((s) => s.id !== shot.id))
    setError('')
  }

  async function handleSubmit(event: On.Submit) {
    event.preventDefault()
    if (busy) return
    if (shots.some((s) => s.status === 'uploading')) {
      setError('截图还在上传，请稍候')
      return
    }
    // The field itself: an edit in the same tick as the submit is not rendered yet.
    const link = linkRef.current?.value ?? typedLink
    const urls = shots.filter((s) => s.status === 'done' && s.url).map((s) => s.url!)
    const problem = shots.some((s) => s.status === 'failed') ? '有截图上传失败，请删除后重新添加' : validateSubmission(link, urls)
    if (problem) {
      setError(problem)
      if (/链接/.test(problem)) linkRef.current?.focus()
      return
    }
    setBusy(true)
    setError('')
    try {
      const next = await submitOrder(order.orderId, link, urls)
      toast('已提交，等待审核', 'success')
      onSubmitted(next)
    } catch (e) {
      if (e instanceof ApiError) setError(e.message)
      notifyError(e)
    } finally {
      setBusy(false)
    }
  }

  const uploading = shots.some((s) => s.status === 'uploading')
  return (
    <form onSubmit={handleSubmit} noValidate aria-labelledby="lx-od-submit" className="flex flex-col gap-3">
      <h4 id="lx-od-submit" className="font-medium">
        2. 发布后提交
      </h4>
      <div>
        <label htmlFor="lx-od-link" className="text-sm text-muted">
          发布链接
        </label>
        <input
          ref={linkRef}
          id="lx-od-link"
          type="url"
          inputMode="url"
          value={typedLink}
          maxLength={LINK_MAX}
          onInput={(e) => {
            setLink((e.target as HTMLInputElement).value)
            setError('')
          }}
          placeholder="https://… 你发布的内容的链接"
          className="mt-1 w-full h-10 px-3 rounded-lg border border-line bg-raised text-sm text-ink placeholder:text-muted outline-none focus:border-primary"
        />
      </div>
      <div>
        <p id="lx-od-shots-label" className="text-sm text-muted">
          发布截图（1–{SCREENSHOTS_MAX} 张，每张不超过 10 MB）
        </p>
        <ul aria-labelledby="lx-od-shots-label" className="mt-1 flex flex-wrap gap-2">
          {shots.map((s, i) => (
            <li key={s.id} data-testid="screenshot" data-status={s.status} className="relative size-24 rounded-lg border border-line bg-raised overflow-hidden">
              {s.preview && <img src={s.preview} alt={`截图 ${i + 1}`} className="size-full object-cover" />}
              {s.status === 'uploading' && (
                <div className="absolute inset-x-1.5 bottom-1.5">
                  <div
                    role="progressbar"
                    aria-label={`截图 ${i + 1} 上传进度`}
                    aria-valuemin={0}
                    aria-valuemax={100}
                    aria-valuenow={Math.round(s.progress * 100)}
                    className="h-1.5 rounded-full bg-black/50 overflow-hidden"
                  >
                    <div className="h-full rounded-full bg-primary transition-[width]" style={{ width: `${Math.round(s.progress * 100)}%` }} />
                  </div>
                </div>
              )}
              {s.status === 'failed' && (
                <p role="alert" className="absolute inset-0 grid place-items-center bg-black/70 p-1 text-center text-[11px] text-danger">
                  {s.error}
                </p>
              )}
              <button
                type="button"
                onClick={() => remove(s)}
                aria-label={`删除截图 ${i + 1}`}
                className="absolute right-1 top-1 size-6 grid place-items-center rounded-full bg-black/60 text-white hover:bg-danger"
              >
                <svg viewBox="0 0 24 24" className="size-3.5" aria-hidden="true">
                  <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" />
                </svg>
              </button>
            </li>
          ))}
          {shots.length < SCREENSHOTS_MAX && (
            <li>
              <button
                type="button"
                onClick={() => input.current?.click()}
                className="size-24 rounded-lg border border-dashed border-line text-muted hover:text-primary hover:border-primary flex flex-col items-center justify-center gap-1 text-xs"
              >
                <svg viewBox="0 0 24 24" className="size-6" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true">
                  <path d="M12 5v14M5 12h14" strokeLinecap="round" />
                </svg>
                添加截图
              </button>
            </li>
          )}
        </ul>
        <input
          ref={input}
          type="file"
          accept={UPLOAD_ACCEPT}
          multiple
          hidden
          aria-label="选择截图"
          data-testid="screenshot-input"
          onChange={(e) => {
            const el = e.target as HTMLInputElement
            add([...(el.files ?? [])])
            el.value = ''
          }}
        />
      </div>
      {error && (
        <p role="alert" data-testid="submit-error" className="text-sm text-danger">
          {error}
        </p>
      )}
      <button
        type="submit"
        aria-disabled={busy || uploading || undefined}
        className="self-start h-10 px-8 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110 aria-disabled:opacity-60"
      >
        {busy ? '提交中…' : uploading ? '截图上传中…' : order.status === 'rejected' ? '重新提交' : '提交审核'}
      </button>
    </form>
  )
}
