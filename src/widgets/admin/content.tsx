import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { Badge, button, danger, Field, FormError, input, Modal, Pager, primary, small, Table, useSubmit, dangerSubmit } from './parts'
import { adminCall, when } from './state'
import { CONTENT_LISTS, type ContentList, type ContentRow, iso } from './content-state'

// 内容: gallery works, paintings, songs and image-host images newest first with their owner;
// take any of them down with a reason (hidden everywhere, files no longer served), or restore.

const PAGE = 20

export function ContentTab() {
  const [which, setWhich] = useState<ContentList>('gallery')
  const [onlyDown, setOnlyDown] = useState(false)
  const [page, setPage] = useState(1)
  const [data, setData] = useState<{ list: ContentRow[]; total: number } | null>(null)
  const [acting, setActing] = useState<ContentRow | null>(null)

  async function load(n = page) {
    try {
      setData(await adminCall<{ list: ContentRow[]; total: number }>('content/list', { list: which, takenDown: onlyDown, pageNum: n, pageSize: PAGE }))
    } catch (e) {
      notifyError(e)
    }
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloaded when the filter or page changes
  useEffect(() => {
    load()
  }, [which, onlyDown, page])

  function done(message: string) {
    setActing(null)
    toast(message, 'success')
    load()
  }

  return (
    <>
      <h3 className="sr-only">内容管理</h3>
      <div className="mb-3 flex flex-wrap items-end gap-3">
        <Field id="lx-content-list" label="内容类型" className="w-40">
          <select
            id="lx-content-list"
            className={input}
            value={which}
            onChange={(e) => {
              setWhich((e.target as HTMLSelectElement).value as ContentList)
              setPage(1)
            }}
          >
            {CONTENT_LISTS.map((l) => (
              <option key={l.id} value={l.id}>
                {l.label}
              </option>
            ))}
          </select>
        </Field>
        <label className="flex items-center gap-2 h-10 text-sm">
          <input
            type="checkbox"
            checked={onlyDown}
            onChange={(e) => {
              setOnlyDown((e.target as HTMLInputElement).checked)
              setPage(1)
            }}
          />
          只看已下架
        </label>
      </div>
      {!data ? (
        <Spinner label="加载内容" />
      ) : (
        <>
          <Table
            label="内容列表"
            rows={data.list}
            rowKey={(r) => `${r.kind}:${r.itemId}`}
            empty="没有内容"
            columns={[
              { label: '预览', cell: (r) => <Preview row={r} /> },
              { label: '内容', cell: (r) => <span className="line-clamp-3">{r.title || '（无标题）'}</span> },
              {
                label: '作者',
                nowrap: true,
                cell: (r) => (
                  <>
                    {r.ownerName}
                    <span className="block font-mono text-xs text-muted">{r.ownerPhone}</span>
                  </>
                )
              },
              { label: '时间', nowrap: true, cell: (r) => when(iso(r.createTime)) },
              {
                label: '状态',
                cell: (r) =>
                  r.takedown ? (
                    <>
                      <strong className="text-sm font-medium text-danger">已下架</strong>
                      <span className="block text-xs text-muted">{r.takedown.reason}</span>
                    </>
                  ) : r.published ? (
                    <Badge tone="primary">画廊展示中</Badge>
                  ) : (
                    <Badge tone="ok">正常</Badge>
                  )
              },
              {
                label: '操作',
                nowrap: true,
                cell: (r) => (
                  <button
                    type="button"
                    className={r.takedown ? small : danger}
                    onClick={() => setActing(r)}
                    aria-label={`${r.takedown ? '恢复' : '下架'}：${r.title.slice(0, 20)}`}
                  >
                    {r.takedown ? '恢复' : '下架'}
                  </button>
                )
              }
            ]}
          />
          <Pager label="内容" page={page} pages={Math.ceil(data.total / PAGE)} onPage={setPage} />
        </>
      )}
      <ActionDialog row={acting} onClose={() => setActing(null)} onDone={done} />
    </>
  )
}

function Preview({ row }: { row: ContentRow }) {
  if (!row.previewUrl) return <span className="text-xs text-muted">{row.takedown ? '文件已停止提供' : '—'}</span>
  if (row.kind === 'song')
    return (
      <a href={row.previewUrl} target="_blank" rel="noopener noreferrer" className="text-primary underline text-sm">
        试听
      </a>
    )
  return <img src={row.previewUrl} alt="" loading="lazy" className="size-14 rounded-md object-cover bg-raised" />
}

/** 下架 or 恢复, with the reason both require (the owner sees a takedown's). */
function ActionDialog({ row, onClose, onDone }: { row: ContentRow | null; onClose: () => void; onDone: (message: string) => void }) {
  const [reason, setReason] = useState('')
  const { error, setError, busy, run } = useSubmit()
  const restoring = Boolean(row?.takedown)
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    setReason('')
    setError(null)
  }, [row])

  function submit(event: On.Submit) {
    event.preventDefault()
    if (!row) return
    if (!reason.trim()) return setError(restoring ? '请填写恢复原因' : '请填写下架原因')
    run(async () => {
      await adminCall(restoring ? 'content/restore' : 'content/takedown', { kind: row.kind, itemId: row.itemId, reason: reason.trim() })
      onDone(restoring ? '已恢复' : '已下架')
    })
  }

  return (
    <Modal open={row !== null} title={restoring ? '恢复内容' : '下架内容'} onClose={onClose}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <p className="text-sm">
          {restoring ? '恢复后，该内容重新在各处显示，文件恢复访问。' : '下架后，该内容立即从画廊与分享中消失，文件不再提供访问；作者会看到“已下架”及原因。'}
        </p>
        <Field id="lx-content-reason" label={restoring ? '恢复原因（必填）' : '下架原因（必填，作者可见）'}>
          <textarea
            id="lx-content-reason"
            className={`${input} h-20 py-2`}
            maxLength={200}
            value={reason}
            onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)}
            aria-describedby={error ? 'lx-content-error' : undefined}
            data-autofocus
          />
        </Field>
        <FormError id="lx-content-error" error={error} />
        <div className="flex justify-end gap-2">
          <button type="button" className={button} onClick={onClose}>
            取消
          </button>
          <button type="submit" className={restoring ? primary : dangerSubmit} aria-disabled={busy}>
            {restoring ? '确认恢复' : '确认下架'}
          </button>
        </div>
      </form>
    </Modal>
  )
}
