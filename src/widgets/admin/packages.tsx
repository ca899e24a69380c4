import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { Badge, button, Field, FormError, Heading, input, Modal, primary, small, Table, useSubmit, useAdminList } from './parts'
import { adminCall, grantsText, KINDS, type PayPackage, yuan } from './state'

// 套餐: the recharge packages the user center sells; create, edit, put on or off sale.

export function PackagesTab() {
  const { list, load } = useAdminList<PayPackage>('pay/packages')
  const [editing, setEditing] = useState<PayPackage | 'new' | null>(null)

  async function toggle(p: PayPackage) {
    try {
      await adminCall('pay/packages/update', { packageId: p.id, enabled: !p.enabled })
      toast(p.enabled ? `「${p.name}」已下架` : `「${p.name}」已上架`, 'success')
      load()
    } catch (e) {
      notifyError(e)
    }
  }

  return (
    <>
      <Heading title="充值套餐">
        <button type="button" className={primary} onClick={() => setEditing('new')}>
          新建套餐
        </button>
      </Heading>
      {!list ? (
        <Spinner label="加载套餐" />
      ) : (
        <Table
          label="充值套餐"
          rows={list}
          rowKey={(p) => p.id}
          empty="还没有套餐"
          columns={[
            {
              label: '名称',
              cell: (p) => (
                <span className="inline-flex flex-wrap items-center gap-1.5">
                  {p.name}
                  {p.badge && <Badge tone="primary">{p.badge}</Badge>}
                </span>
              )
            },
            { label: '价格', num: true, cell: (p) => yuan(p.priceFen) },
            { label: '额度', cell: (p) => grantsText(p.grants) },
            { label: '有效期', cell: (p) => (p.validityDays ? `${p.validityDays} 天` : '长期') },
            { label: '排序', num: true, cell: (p) => p.sort },
            { label: '状态', cell: (p) => (p.enabled ? <Badge tone="ok">在售</Badge> : <Badge tone="muted">已下架</Badge>) },
            {
              label: '操作',
              cell: (p) => (
                <div className="flex flex-wrap gap-2">
                  <button type="button" className={small} onClick={() => setEditing(p)} aria-label={`编辑 ${p.name}`}>
                    编辑
                  </button>
                  <button type="button" className={small} onClick={() => toggle(p)} aria-label={`${p.enabled ? '下架' : '上架'} ${p.name}`}>
                    {p.enabled ? '下架' : '上架'}
                  </button>
                </div>
              )
            }
          ]}
        />
      )}
      <PackageDialog
        editing={editing}
        onClose={() => setEditing(null)}
        onDone={(p, created) => {
          setEditing(null)
          toast(created ? `已新建「${p.name}」` : `已保存「${p.name}」`, 'success')
          load()
        }}
      />
    </>
  )
}

function PackageDialog({
  editing,
  onClose,
  onDone
}: {
  editing: PayPackage | 'new' | null
  onClose: () => void
  onDone: (p: PayPackage, created: boolean) => void
}) {
  const current = editing && editing !== 'new' ? editing : null
  const [name, setName] = useState('')
  const [price, setPrice] = useState('')
  const [grants, setGrants] = useState<Record<string, string>>({})
  const [days, setDays] = useState('')
  const [badge, setBadge] = useState('')
  const [sort, setSort] = useState('0')
  const [enabled, setEnabled] = useState(true)
  const { error, setError, busy, run } = useSubmit()

  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    if (!editing) return
    setError(null)
    setName(current?.name ?? '')
    setPrice(current ? (current.priceFen / 100).toFixed(2) : '')
    setGrants(Object.fromEntries(KINDS.map((k) => [k.id, current?.grants[k.id] ? String(current.grants[k.id]) : ''])))
    setDays(current?.validityDays ? String(current.validityDays) : '')
    setBadge(current?.badge ?? '')
    setSort(String(current?.sort ?? 0))
    setEnabled(current?.enabled ?? true)
  }, [editing])

  function submit(event: On.Submit) {
    event.preventDefault()
    if (!name.trim()) return setError('请填写套餐名称')
    if (!/^\d+(\.\d{1,2})?$/.test(price.trim()) || Number(price) <= 0) return setError('价格必须是大于 0 的金额，最多两位小数')
    const g: Record<string, number> = {}
    for (const k of KINDS) {
      const raw = (grants[k.id] ?? '').trim()
      if (raw && !/^\d+$/.test(raw)) return setError(`${k.label}必须是非负整数`)
      g[k.id] = raw ? Number(raw) : 0
    }
    if (!Object.values(g).some((n) => n > 0)) return setError('套餐至少要给一种额度')
    if (days.trim() && !/^\d+$/.test(days.trim())) return setError('有效天数必须是整数')
    if (!/^-?\d+$/.test(sort.trim())) return setError('排序必须是整数')
    const body = {
      name: name.trim(),
      priceFen: Math.round(Number(price) * 100),
      grants: g,
      validityDays: days.trim() ? Number(days) : null,
      badge: badge.trim() || null,
      sort: Number(sort),
      enabled
    }
    run(async () => {
      const saved = current
        ? await adminCall<PayPackage>('pay/packages/update', { packageId: current.id, ...body })
        : await adminCall<PayPackage>('pay/packages/create', body)
      onDone(saved, !current)
    })
  }

  return (
    <Modal open={editing !== null} title={current ? '编辑套餐' : '新建套餐'} onClose={onClose} width={560}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <div className="grid grid-cols-1 sm:grid-cols-2 gap-3">
          <Field id="lx-pkg-name" label="名称">
            <input
              id="lx-pkg-name"
              className={input}
              maxLength={40}
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
              data-autofocus
            />
          </Field>
          <Field id="lx-pkg-price" label="价格（元）">
            <input
              id="lx-pkg-price"
              className={input}
              inputMode="decimal"
              value={price}
              onInput={(e) => setPrice((e.target as HTMLInputElement).value)}
              placeholder="29.90"
            />
          </Field>
        </div>
        <div className="grid grid-cols-1 sm:grid-cols-3 gap-3">
          {KINDS.map((k) => (
            <Field key={k.id} id={`lx-pkg-${k.id}`} label={k.label}>
              <input
                id={`lx-pkg-${k.id}`}
                className={input}
                inputMode="numeric"
                value={grants[k.id] ?? ''}
                onInput={(e) => setGrants((g) => ({ ...g, [k.id]: (e.target as HTMLInputElement).value }))}
                placeholder="0"
              />
            </Field>
          ))}
        </div>
        <div className="grid grid-cols-3 gap-3">
          <Field id="lx-pkg-days" label="有效天数" hint="留空为长期">
            <input id="lx-pkg-days" className={input} inputMode="numeric" value={days} onInput={(e) => setDays((e.target as HTMLInputElement).value)} />
          </Field>
          <Field id="lx-pkg-badge" label="角标" hint="如：推荐">
            <input id="lx-pkg-badge" className={input} maxLength={8} value={badge} onInput={(e) => setBadge((e.target as HTMLInputElement).value)} />
          </Field>
          <Field id="lx-pkg-sort" label="排序" hint="小的在前">
            <input id="lx-pkg-sort" className={input} inputMode="numeric" value={sort} onInput={(e) => setSort((e.target as HTMLInputElement).value)} />
          </Field>
        </div>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" className="size-4 accent-[var(--color-primary)]" checked={enabled} onChange={() => setEnabled((v) => !v)} />
          上架销售
        </label>
        <FormError id="lx-pkg-error" error={error} />
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
