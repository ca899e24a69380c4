import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { Spinner } from '../../ui/icons'
import { button, Table } from './parts'
import { ACTIONS, adminCall, type AuditLine, when } from './state'

// 审计日志: every operator action, newest first, read only; older ones a page at a time.

const PAGE = 50

const short = (value: unknown) => {
  if (value === null || value === undefined) return '—'
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > 80 ? `${text.slice(0, 77)}…` : text
}
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** What changed: the fields whose values differ (before → after), codes added and removed, or the values. */
export function changes(before: unknown, after: unknown): string[] {
  if (Array.isArray(before) && Array.isArray(after)) {
    const added = after.filter((x) => !before.includes(x)).map((x) => `+${short(x)}`)
    const removed = before.filter((x) => !after.includes(x)).map((x) => `−${short(x)}`)
    return [...added, ...removed]
  }
  if (isObject(after)) {
    const old = isObject(before) ? before : {}
    return Object.keys(after)
      .filter((k) => !['createTime', 'updateTime', 'id'].includes(k) && JSON.stringify(old[k]) !== JSON.stringify(after[k]))
      .map((k) => (k in old ? `${k}: ${short(old[k])} → ${short(after[k])}` : `${k}: ${short(after[k])}`))
  }
  return [before === null || before === undefined ? short(after) : `${short(before)} → ${short(after)}`]
}

export function AuditTab() {
  const [lines, setLines] = useState<AuditLine[] | null>(null)
  const [more, setMore] = useState(false)
  const [busy, setBusy] = useState(false)

  async function load(before?: number) {
    setBusy(true)
    try {
      const { list } = await adminCall<{ list: AuditLine[] }>('audit', { limit: PAGE, ...(before ? { before } : {}) })
      setLines((l) => (before && l ? [...l, ...list] : list))
      setMore(list.length === PAGE)
    } catch (e) {
      notifyError(e)
    } finally {
      setBusy(false)
    }
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: loaded once, when the tab opens
  useEffect(() => {
    load()
  }, [])

  if (!lines) return <Spinner label="加载审计日志" />
  return (
    <>
      <h3 className="sr-only">审计日志</h3>
      <Table
        label="审计日志"
        rows={lines}
        rowKey={(l) => l.id}
        empty="还没有运营操作"
        columns={[
          { label: '时间', nowrap: true, cell: (l) => when(l.createdAt) },
          { label: '操作人', nowrap: true, cell: (l) => <span className="font-mono">{l.actorPhone}</span> },
          { label: '操作', nowrap: true, cell: (l) => ACTIONS[l.action] ?? l.action },
          { label: '对象', cell: (l) => <span className="font-mono text-xs break-all">{l.target}</span> },
          { label: '原因', cell: (l) => l.reason || '—' },
          {
            label: '变更',
            cell: (l) => (
              <ul className="font-mono text-xs break-all">
                {changes(l.before, l.after).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            )
          }
        ]}
      />
      {more && (
        <div className="mt-3 flex justify-center">
          <button type="button" className={button} disabled={busy} onClick={() => load(lines[lines.length - 1]?.id)}>
            {busy ? '加载中…' : '加载更早的记录'}
          </button>
        </div>
      )}
    </>
  )
}
