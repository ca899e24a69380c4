import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { Badge, button, danger, Field, FormError, Heading, input, Modal, primary, small, Table, useSubmit, useAdminList } from './parts'
import { adminCall, when } from './state'
import { iso } from './content-state'

// 公告: notices with a start and an end, shown once to every visitor of the site (and in embeds
// when marked); create, change, withdraw.

interface Notice {
  id: number
  title: string
  body: string
  startTime: number
  endTime: number
  embeds: boolean
  withdrawn: boolean
  active: boolean
  createTime: number
}

/** Epoch ms ⇄ the value of an <input type="datetime-local"> (local time). */
const toLocal = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000)
  return d.toISOString().slice(0, 16)
}
const fromLocal = (value: string) => new Date(value).getTime()

export function AnnouncementsTab() {
  const { list, load } = useAdminList<Notice>('announcements/list')
  const [editing, setEditing] = useState<Partial<Notice> | null>(null)

  async function withdraw(n: Notice) {
    try {
      await adminCall('announcements/withdraw', { id: n.id })
      toast('公告已撤回', 'success')
      load()
    } catch (e) {
      notifyError(e)
    }
  }

  if (!list) return <Spinner label="加载公告" />
  return (
    <>
      <Heading title="公告">
        <button type="button" className={primary} onClick={() => setEditing({})}>
          发布公告
        </button>
      </Heading>
      <Table
        label="公告列表"
        rows={list}
        rowKey={(n) => n.id}
        empty="还没有公告"
        columns={[
          {
            label: '标题',
            cell: (n) => (
              <>
                <span className="font-medium">{n.title}</span>
                <span className="block text-xs text-muted line-clamp-2">{n.body}</span>
              </>
            )
          },
          { label: '开始', nowrap: true, cell: (n) => when(iso(n.startTime)) },
          { label: '结束', nowrap: true, cell: (n) => when(iso(n.endTime)) },
          { label: '范围', nowrap: true, cell: (n) => (n.embeds ? '站点与嵌入组件' : '站点') },
          {
            label: '状态',
            nowrap: true,
            cell: (n) =>
              n.withdrawn ? <Badge tone="muted">已撤回</Badge> : n.active ? <Badge tone="ok">展示中</Badge> : <Badge tone="muted">未在展示期</Badge>
          },
          {
            label: '操作',
            nowrap: true,
            cell: (n) =>
              n.withdrawn ? null : (
                <div className="flex gap-2">
                  <button type="button" className={small} onClick={() => setEditing(n)} aria-label={`修改公告：${n.title}`}>
                    修改
                  </button>
                  <button type="button" className={danger} onClick={() => withdraw(n)} aria-label={`撤回公告：${n.title}`}>
                    撤回
                  </button>
                </div>
              )
          }
        ]}
      />
      <EditDialog
        notice={editing}
        onClose={() => setEditing(null)}
        onDone={() => {
          setEditing(null)
          toast('公告已保存', 'success')
          load()
        }}
      />
    </>
  )
}

function EditDialog({ notice, onClose, onDone }: { notice: Partial<Notice> | null; onClose: () => void; onDone: () => void }) {
  const [title, setTitle] = useState('')
  const [body, setBody] = useState('')
  const [start, setStart] = useState('')
  const [end, setEnd] = useState('')
  const [embeds, setEmbeds] = useState(false)
  const { error, setError, busy, run } = useSubmit()
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    if (!notice) return
    const now = Date.now()
    setTitle(notice.title ?? '')
    setBody(notice.body ?? '')
    setStart(toLocal(notice.startTime ?? now))
    setEnd(toLocal(notice.endTime ?? now + 7 * 86_400_000))
    setEmbeds(notice.embeds ?? false)
    setError(null)
  }, [notice])

  function submit(event: On.Submit) {
    event.preventDefault()
    if (!title.trim() || !body.trim()) return setError('请填写标题和内容')
    if (!start || !end || fromLocal(end) <= fromLocal(start)) return setError('结束时间必须晚于开始时间')
    run(async () => {
      await adminCall('announcements/save', {
        ...(notice?.id ? { id: notice.id } : {}),
        title: title.trim(),
        body: body.trim(),
        startTime: fromLocal(start),
        endTime: fromLocal(end),
        embeds
      })
      onDone()
    })
  }

  return (
    <Modal open={notice !== null} title={notice?.id ? '修改公告' : '发布公告'} onClose={onClose} width={560}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <Field id="lx-ann-title" label="标题">
          <input
            id="lx-ann-title"
            className={input}
            maxLength={60}
            value={title}
            onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
            data-autofocus
          />
        </Field>
        <Field id="lx-ann-body" label="内容">
          <textarea
            id="lx-ann-body"
            className={`${input} h-28 py-2`}
            maxLength={1000}
            value={body}
            onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)}
          />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="lx-ann-start" label="开始时间">
            <input id="lx-ann-start" type="datetime-local" className={input} value={start} onChange={(e) => setStart((e.target as HTMLInputElement).value)} />
          </Field>
          <Field id="lx-ann-end" label="结束时间">
            <input id="lx-ann-end" type="datetime-local" className={input} value={end} onChange={(e) => setEnd((e.target as HTMLInputElement).value)} />
          </Field>
        </div>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={embeds} onChange={(e) => setEmbeds((e.target as HTMLInputElement).checked)} />
          同时在嵌入组件中展示
        </label>
        <FormError id="lx-ann-error" error={error} />
        <div className="flex justify-end gap-2">
          <button type="button" className={button} onClick={onClose}>
            取消
          </button>
          <button type="submit" className={primary} aria-disabled={busy}>
            保存
          </button>
        </div>
      </form>
    </Modal>
  )
}
