import { useEffect, useState } from 'react'
import { ApiError, notifyError, request } from '../core/api'
import { toast } from '../core/emit'
import { UNAUTHORIZED_CODES } from '../core/wire'
import { Dialog } from './dialog'
import type * as On from './events'
import { SM, useMedia } from './use-media'

// 举报: a small dialog any tool opens (lazily, with import()) to report a reply, a gallery work, a
// song or an image to the operators (POST /api/v1/report, docs in API.md "Reports").

export type ReportKind = 'painting' | 'song' | 'image' | 'reply'
export interface ReportTarget {
  kind: ReportKind
  itemId: string
}

export const REPORT_REASONS = ['色情低俗', '政治敏感', '暴力血腥', '违法犯罪', '侵犯权益', '其他'] as const
const DETAIL_MAX = 150

export default function ReportDialog({ target, onClose }: { target: ReportTarget | null; onClose: () => void }) {
  const wide = useMedia(SM)
  const [reason, setReason] = useState('')
  const [detail, setDetail] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    setReason('')
    setDetail('')
    setError(null)
  }, [target])

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (!target || busy) return
    if (!reason) return setError('请选择举报理由')
    if (reason === '其他' && !detail.trim()) return setError('选择“其他”时请说明理由')
    setBusy(true)
    setError(null)
    try {
      const text = detail.trim() ? `${reason}：${detail.trim()}` : reason
      const answer = await request<{ duplicate: boolean }>('/report', { ...target, reason: text })
      toast(answer.duplicate ? '您已举报过该内容，我们会尽快处理' : '举报已提交，感谢您的反馈', 'success')
      onClose()
    } catch (e) {
      if (e instanceof ApiError && !UNAUTHORIZED_CODES.includes(e.code)) setError(e.message)
      else notifyError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <Dialog open={target !== null} onClose={onClose} title="举报" placement={wide ? 'center' : 'bottom'} width={420}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4" data-testid="report-dialog">
        <fieldset aria-describedby={error ? 'lx-report-form-error' : undefined}>
          <legend className="mb-2 text-sm font-medium">举报理由</legend>
          <div className="grid grid-cols-2 gap-2">
            {REPORT_REASONS.map((r, i) => (
              <label key={r} className="flex items-center gap-2 h-10 px-3 rounded-lg border border-line text-sm has-[:checked]:border-primary">
                <input
                  type="radio"
                  name="lx-report-reason"
                  value={r}
                  checked={reason === r}
                  onChange={() => {
                    setReason(r)
                    setError(null)
                  }}
                  data-autofocus={i === 0 || undefined}
                />
                {r}
              </label>
            ))}
          </div>
        </fieldset>
        <div>
          <label htmlFor="lx-report-detail" className="block mb-1 text-sm font-medium">
            补充说明{reason === '其他' ? '（必填）' : '（选填）'}
          </label>
          <textarea
            id="lx-report-detail"
            maxLength={DETAIL_MAX}
            value={detail}
            onInput={(e) => setDetail((e.target as HTMLTextAreaElement).value)}
            className="w-full h-20 px-3 py-2 rounded-lg border border-line bg-raised text-ink outline-none focus:border-primary"
          />
        </div>
        {error && (
          <p id="lx-report-form-error" role="alert" className="text-sm text-danger">
            {error}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" onClick={onClose} className="h-10 px-4 rounded-lg border border-line hover:border-primary">
            取消
          </button>
          <button type="submit" aria-disabled={busy} className="h-10 px-5 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
            {busy ? '提交中…' : '提交举报'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
