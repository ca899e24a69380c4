import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { confirm, toast } from '../../core/emit'
import { copyText } from '../../core/format'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { button, danger, Field, FormError, Heading, input, Modal, primary, small, Table, useSubmit } from './parts'
import { adminCall, type CardBatch, downloadCsv, grantsText, KINDS, when } from './state'

// 充值卡: batches (create, CSV, void unused cards).

export function CardsTab() {
  const [batches, setBatches] = useState<CardBatch[] | null>(null)
  const [creating, setCreating] = useState(false)
  const [made, setMade] = useState<{ batch: CardBatch; codes: string[] } | null>(null)

  async function load() {
    try {
      setBatches((await adminCall<{ list: CardBatch[] }>('cards/batches')).list)
    } catch (e) {
      notifyError(e)
    }
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: loaded once, when the tab opens
  useEffect(() => {
    load()
  }, [])

  async function csv(b: CardBatch) {
    try {
      await downloadCsv(`cards/batches/${b.batchId}/csv`, `cards-${b.batchId}.csv`)
    } catch (e) {
      notifyError(e)
    }
  }

  async function voidBatch(b: CardBatch) {
    const left = b.count - b.redeemed - b.voided
    if (
      !(await confirm({
        title: '作废充值卡',
        message: `作废「${b.note || '未备注'}」中未使用的 ${left} 张卡？作废后无法兑换，也无法恢复。`,
        confirmText: '作废'
      }))
    )
      return
    try {
      const { voided } = await adminCall<{ voided: number }>('cards/void', { batchId: b.batchId })
      toast(`已作废 ${voided} 张`, 'success')
      load()
    } catch (e) {
      notifyError(e)
    }
  }

  return (
    <>
      <Heading title="充值卡批次">
        <button type="button" className={primary} onClick={() => setCreating(true)}>
          创建批次
        </button>
      </Heading>
      {!batches ? (
        <Spinner label="加载批次" />
      ) : (
        <Table
          label="充值卡批次"
          rows={batches}
          rowKey={(b) => b.batchId}
          empty="还没有充值卡批次"
          columns={[
            { label: '创建时间', nowrap: true, cell: (b) => when(b.createTime) },
            { label: '备注', cell: (b) => b.note || '—' },
            { label: '每张额度', cell: (b) => grantsText(b.grants) },
            { label: '张数', num: true, cell: (b) => b.count },
            { label: '已兑换', num: true, cell: (b) => b.redeemed },
            { label: '已作废', num: true, cell: (b) => b.voided },
            { label: '到期', cell: (b) => (b.expiresAt ? when(b.expiresAt) : '不过期') },
            {
              label: '操作',
              cell: (b) => (
                <div className="flex flex-wrap gap-2">
                  <button type="button" className={small} onClick={() => csv(b)} aria-label={`下载 ${b.note || b.batchId} 的 CSV`}>
                    下载 CSV
                  </button>
                  {b.count - b.redeemed - b.voided > 0 && (
                    <button type="button" className={danger} onClick={() => voidBatch(b)} aria-label={`作废 ${b.note || b.batchId} 中未使用的卡`}>
                      作废未使用
                    </button>
                  )}
                </div>
              )
            }
          ]}
        />
      )}
      <CreateDialog
        open={creating}
        onClose={() => setCreating(false)}
        onDone={(answer) => {
          setCreating(false)
          setMade(answer)
          load()
        }}
      />
      <Modal open={made !== null} title="充值卡已创建" onClose={() => setMade(null)} width={560}>
        {made && (
          <div className="flex flex-col gap-3">
            <p className="text-sm">卡密只显示这一次（服务器只保存其摘要），请立即复制或下载保存。</p>
            <label htmlFor="lx-card-codes" className="text-sm font-medium">
              {made.codes.length} 张卡密
            </label>
            <textarea id="lx-card-codes" readOnly className={`${input} h-40 py-2 font-mono text-xs`} value={made.codes.join('\n')} data-autofocus />
            <div className="flex flex-wrap justify-end gap-2">
              <button
                type="button"
                className={button}
                onClick={async () => toast((await copyText(made.codes.join('\n'))) ? '已复制' : '复制失败，请手动选择复制', 'success')}
              >
                复制全部
              </button>
              <button
                type="button"
                className={button}
                onClick={() => {
                  const href = URL.createObjectURL(new Blob([`\ufeff${made.codes.join('\r\n')}\r\n`], { type: 'text/plain;charset=utf-8' }))
                  const a = document.createElement('a')
                  a.href = href
                  a.download = `codes-${made.batch.batchId}.txt`
                  a.click()
                  setTimeout(() => URL.revokeObjectURL(href), 10_000)
                }}
              >
                下载卡密
              </button>
              <button type="button" className={primary} onClick={() => setMade(null)}>
                完成
              </button>
            </div>
          </div>
        )}
      </Modal>
    </>
  )
}

function CreateDialog({ open, onClose, onDone }: { open: boolean; onClose: () => void; onDone: (answer: { batch: CardBatch; codes: string[] }) => void }) {
  const [grants, setGrants] = useState<Record<string, string>>({})
  const [count, setCount] = useState('10')
  const [days, setDays] = useState('')
  const [note, setNote] = useState('')
  const { error, setError, busy, run } = useSubmit()
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    if (open) {
      setGrants({})
      setCount('10')
      setDays('')
      setNote('')
      setError(null)
    }
  }, [open])

  function submit(event: On.Submit) {
    event.preventDefault()
    const g: Record<string, number> = {}
    for (const k of KINDS) {
      const raw = (grants[k.id] ?? '').trim()
      if (!raw) continue
      if (!/^\d+$/.test(raw)) return setError(`${k.label}必须是非负整数`)
      if (Number(raw) > 0) g[k.id] = Number(raw)
    }
    if (Object.keys(g).length === 0) return setError('每张卡至少要给一种额度')
    if (!/^\d+$/.test(count.trim()) || Number(count) < 1 || Number(count) > 1000) return setError('张数必须是 1 到 1000 的整数')
    if (days.trim() && !/^\d+$/.test(days.trim())) return setError('有效天数必须是整数')
    run(async () => {
      onDone(
        await adminCall('cards/create', {
          grants: g,
          count: Number(count),
          ...(days.trim() ? { expiresDays: Number(days) } : {}),
          ...(note.trim() ? { note: note.trim() } : {})
        })
      )
    })
  }

  return (
    <Modal open={open} title="创建充值卡批次" onClose={onClose}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <div className="grid grid-cols-1 sm:grid-cols-3 gap-3">
          {KINDS.map((k, i) => (
            <Field key={k.id} id={`lx-cards-${k.id}`} label={`每张${k.label}`}>
              <input
                id={`lx-cards-${k.id}`}
                className={input}
                inputMode="numeric"
                value={grants[k.id] ?? ''}
                onInput={(e) => setGrants((g) => ({ ...g, [k.id]: (e.target as HTMLInputElement).value }))}
                placeholder="0"
                {...(i === 0 ? { 'data-autofocus': true } : {})}
              />
            </Field>
          ))}
        </div>
        <div className="grid grid-cols-2 gap-3">
          <Field id="lx-cards-count" label="张数">
            <input id="lx-cards-count" className={input} inputMode="numeric" value={count} onInput={(e) => setCount((e.target as HTMLInputElement).value)} />
          </Field>
          <Field id="lx-cards-days" label="有效天数" hint="留空为不过期">
            <input id="lx-cards-days" className={input} inputMode="numeric" value={days} onInput={(e) => setDays((e.target as HTMLInputElement).value)} />
          </Field>
        </div>
        <Field id="lx-cards-note" label="备注">
          <input
            id="lx-cards-note"
            className={input}
            maxLength={200}
            value={note}
            onInput={(e) => setNote((e.target as HTMLInputElement).value)}
            placeholder="例如：双十一活动"
          />
        </Field>
        <FormError id="lx-cards-error" error={error} />
        <div className="flex justify-end gap-2">
          <button type="button" className={button} onClick={onClose}>
            取消
          </button>
          <button type="submit" className={primary} aria-disabled={busy}>
            创建
          </button>
        </div>
      </form>
    </Modal>
  )
}
