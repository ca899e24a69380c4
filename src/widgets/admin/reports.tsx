import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { Badge, button, danger, Field, FormError, input, Modal, primary, small, Table, useSubmit, dangerSubmit } from './parts'
import { adminCall, when } from './state'
import { iso, KIND_LABEL, REPORT_STATUS, type ReportRow } from './content-state'

// 举报: what users reported, newest first; confirm (the item is taken down, optionally the author's
// account disabled) or dismiss. One decision settles every open report of the same item.

const PAGE = 50

export function ReportsTab() {
  const [status, setStatus] = useState<ReportRow['status']>('open')
  const [rows, setRows] = useState<ReportRow[] | null>(null)
  const [more, setMore] = useState(false)
  const [busy, setBusy] = useState(false)
  const [acting, setActing] = useState<{ row: ReportRow; decision: 'confirm' | 'dismiss' } | null>(null)

  async function load(before?: number) {
    setBusy(true)
    try {
      const { list } = await adminCall<{ list: ReportRow[] }>('reports/list', { status, limit: PAGE, ...(before ? { before } : {}) })
      setRows((r) => (before && r ? [...r, ...list] : list))
      setMore(list.length === PAGE)
    } catch (e) {
      notifyError(e)
    } finally {
      setBusy(false)
    }
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloaded when the status filter changes
  useEffect(() => {
    load()
  }, [status])

  function done(message: string) {
    setActing(null)
    toast(message, 'success')
    load()
  }

  return (
    <>
      <h3 className="sr-only">举报处理</h3>
      <Field id="lx-report-status" label="状态" className="mb-3 w-40">
        <select
          id="lx-report-status"
          className={input}
          value={status}
          onChange={(e) => setStatus((e.target as HTMLSelectElement).value as ReportRow['status'])}
        >
          {REPORT_STATUS.map((s) => (
            <option key={s.id} value={s.id}>
              {s.label}
            </option>
          ))}
        </select>
      </Field>
      {!rows ? (
        <Spinner label="加载举报" />
      ) : (
        <Table
          label="举报列表"
          rows={rows}
          rowKey={(r) => r.id}
          empty={status === 'open' ? '没有待处理的举报' : '没有记录'}
          columns={[
            { label: '时间', nowrap: true, cell: (r) => when(iso(r.createTime)) },
            {
              label: '对象',
              cell: (r) => (
                <>
                  <Badge tone="muted">{KIND_LABEL[r.kind] ?? r.kind}</Badge>
                  <span className="block line-clamp-3">{r.excerpt || '（无文字）'}</span>
                </>
              )
            },
            { label: '举报理由', cell: (r) => r.reason },
            { label: '举报人', nowrap: true, cell: (r) => <span className="font-mono">{r.reporterPhone ?? '—'}</span> },
            { label: '作者', nowrap: true, cell: (r) => <span className="font-mono">{r.ownerPhone ?? '—'}</span> },
            {
              label: status === 'open' ? '操作' : '处理',
              nowrap: true,
              cell: (r) =>
                r.status === 'open' ? (
                  <div className="flex gap-2">
                    <button type="button" className={danger} onClick={() => setActing({ row: r, decision: 'confirm' })}>
                      确认违规
                    </button>
                    <button type="button" className={small} onClick={() => setActing({ row: r, decision: 'dismiss' })}>
                      驳回
                    </button>
                  </div>
                ) : (
                  <>
                    {r.takenDown ? (
                      <strong className="text-sm font-medium text-danger">已下架</strong>
                    ) : (
                      <Badge tone="muted">{r.status === 'confirmed' ? '已确认' : '已驳回'}</Badge>
                    )}
                    <span className="block text-xs text-muted">{r.note}</span>
                  </>
                )
            }
          ]}
        />
      )}
      {more && rows && (
        <div className="mt-3 flex justify-center">
          <button type="button" className={button} disabled={busy} onClick={() => load(rows[rows.length - 1]?.id)}>
            {busy ? '加载中…' : '加载更早的举报'}
          </button>
        </div>
      )}
      <ResolveDialog acting={acting} onClose={() => setActing(null)} onDone={done} />
    </>
  )
}

function ResolveDialog({
  acting,
  onClose,
  onDone
}: {
  acting: { row: ReportRow; decision: 'confirm' | 'dismiss' } | null
  onClose: () => void
  onDone: (message: string) => void
}) {
  const [note, setNote] = useState('')
  const [disable, setDisable] = useState(false)
  const { error, setError, busy, run } = useSubmit()
  const confirming = acting?.decision === 'confirm'
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    setNote('')
    setDisable(false)
    setError(null)
  }, [acting])

  function submit(event: On.Submit) {
    event.preventDefault()
    if (!acting) return
    if (!note.trim()) return setError('请填写处理说明')
    run(async () => {
      const { ownerId } = await adminCall<{ ownerId: string | null }>('reports/resolve', {
        reportId: acting.row.id,
        decision: acting.decision,
        note: note.trim()
      })
      if (confirming && disable && ownerId) await adminCall('users/disable', { accountId: ownerId, reason: `举报确认：${note.trim()}` })
      onDone(confirming ? (disable ? '已确认，内容已下架，作者账号已停用' : '已确认，内容已下架') : '已驳回')
    })
  }

  const reply = acting?.row.kind === 'reply'
  return (
    <Modal open={acting !== null} title={confirming ? '确认违规' : '驳回举报'} onClose={onClose}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <p className="text-sm">
          {confirming
            ? reply
              ? '确认后该对象的所有待处理举报一并结案（对话回复仅作者本人可见，无需下架）。'
              : '确认后该内容立即下架（作者可见处理说明），该对象的所有待处理举报一并结案。'
            : '驳回后该对象的所有待处理举报一并结案，内容保持不变。'}
        </p>
        <Field id="lx-report-note" label={confirming ? '处理说明（必填，作为下架原因）' : '处理说明（必填）'}>
          <textarea
            id="lx-report-note"
            className={`${input} h-20 py-2`}
            maxLength={200}
            value={note}
            onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)}
            aria-describedby={error ? 'lx-report-error' : undefined}
            data-autofocus
          />
        </Field>
        {confirming && acting?.row.ownerId && (
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={disable} onChange={(e) => setDisable((e.target as HTMLInputElement).checked)} />
            同时停用作者账号（{acting.row.ownerPhone}）
          </label>
        )}
        <FormError id="lx-report-error" error={error} />
        <div className="flex justify-end gap-2">
          <button type="button" className={button} onClick={onClose}>
            取消
          </button>
          <button type="submit" className={confirming ? dangerSubmit : primary} aria-disabled={busy}>
            {confirming ? '确认违规' : '确认驳回'}
          </button>
        </div>
      </form>
    </Modal>
  )
}
