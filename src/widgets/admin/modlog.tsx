import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { Spinner } from '../../ui/icons'
import { button, Field, input, Table } from './parts'
import { adminCall, downloadCsv, when } from './state'
import type { ModerationLine } from './content-state'

// 审核日志: what the content checks refused (block) or kept for review, newest first, filtered by
// kind and verdict; CSV export of the same filter (the export is itself audited).

const PAGE = 50
const KINDS: [string, string][] = [
  ['', '全部类型'],
  ['chat', '对话输入'],
  ['prompt', '提示词'],
  ['name', '名称'],
  ['reply', '模型回复'],
  ['image', '图片']
]
const VERDICTS: [string, string][] = [
  ['', '全部结论'],
  ['block', '拦截'],
  ['review', '待复核']
]

export function ModerationLogTab() {
  const [kind, setKind] = useState('')
  const [verdict, setVerdict] = useState('')
  const [lines, setLines] = useState<ModerationLine[] | null>(null)
  const [more, setMore] = useState(false)
  const [busy, setBusy] = useState(false)
  const filters = { ...(kind ? { kind } : {}), ...(verdict ? { verdict } : {}) }

  async function load(before?: number) {
    setBusy(true)
    try {
      const { list } = await adminCall<{ list: ModerationLine[] }>('moderation/log', { ...filters, limit: PAGE, ...(before ? { before } : {}) })
      setLines((l) => (before && l ? [...l, ...list] : list))
      setMore(list.length === PAGE)
    } catch (e) {
      notifyError(e)
    } finally {
      setBusy(false)
    }
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloaded when a filter changes
  useEffect(() => {
    load()
  }, [kind, verdict])

  function exportCsv() {
    downloadCsv(`moderation/log/csv?${new URLSearchParams(filters)}`, 'moderation-log.csv').catch(notifyError)
  }

  const select = (id: string, label: string, value: string, set: (v: string) => void, options: [string, string][]) => (
    <Field id={id} label={label} className="w-36">
      <select id={id} className={input} value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  )

  return (
    <>
      <h3 className="sr-only">审核日志</h3>
      <div className="mb-3 flex flex-wrap items-end gap-3">
        {select('lx-modlog-kind', '类型', kind, setKind, KINDS)}
        {select('lx-modlog-verdict', '结论', verdict, setVerdict, VERDICTS)}
        <button type="button" className={button} onClick={exportCsv}>
          导出 CSV
        </button>
      </div>
      {!lines ? (
        <Spinner label="加载审核日志" />
      ) : (
        <Table
          label="审核日志"
          rows={lines}
          rowKey={(l) => l.id}
          empty="没有记录"
          columns={[
            { label: '时间', nowrap: true, cell: (l) => when(l.createdAt) },
            { label: '来源', nowrap: true, cell: (l) => <span className="font-mono text-xs">{l.source}</span> },
            {
              label: '结论',
              nowrap: true,
              cell: (l) => (
                <strong className={`text-sm font-medium ${l.verdict === 'block' ? 'text-danger' : 'text-primary'}`}>
                  {l.verdict === 'block' ? '拦截' : '待复核'}
                </strong>
              )
            },
            { label: '规则', cell: (l) => l.rule ?? l.failure ?? '—' },
            { label: '账号', nowrap: true, cell: (l) => <span className="font-mono">{l.accountPhone ?? '—'}</span> },
            { label: '摘录', cell: (l) => <span className="line-clamp-3 break-all">{l.excerpt}</span> }
          ]}
        />
      )}
      {more && lines && (
        <div className="mt-3 flex justify-center">
          <button type="button" className={button} disabled={busy} onClick={() => load(lines[lines.length - 1]?.id)}>
            {busy ? '加载中…' : '加载更早的记录'}
          </button>
        </div>
      )}
    </>
  )
}
