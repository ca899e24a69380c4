import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { Badge, button, Field, FormError, Heading, input, Modal, primary, small, Table, useSubmit, useAdminList } from './parts'
import { adminCall } from './state'

// 模型倍率: what each model's prompt and answer tokens cost in 对话额度 (×1 = one per token).

export interface AdminModel {
  id: string
  name: string
  provider: string
  upstreamModel: string
  price: { input: number; output: number }
  custom: boolean
}

export function PricesTab() {
  const { list, load } = useAdminList<AdminModel>('models/list')
  const [editing, setEditing] = useState<AdminModel | null>(null)

  async function reset(m: AdminModel) {
    try {
      await adminCall('models/price', { modelId: m.id, price: null })
      toast(`「${m.name}」已恢复默认倍率`, 'success')
      load()
    } catch (e) {
      notifyError(e)
    }
  }

  return (
    <>
      <Heading title="模型倍率" />
      <p className="mb-3 text-xs text-muted">每个 token 扣多少对话额度：输入（提问与上下文）和输出（回答）分开计。用户在模型列表里看到倍率。</p>
      {!list ? (
        <Spinner label="加载模型" />
      ) : (
        <Table
          label="模型倍率"
          rows={list}
          rowKey={(m) => m.id}
          empty="没有模型"
          columns={[
            { label: '模型', cell: (m) => m.name },
            { label: '上游模型名', cell: (m) => <span className="break-all">{m.upstreamModel}</span> },
            { label: '输入倍率', num: true, cell: (m) => `×${m.price.input}` },
            { label: '输出倍率', num: true, cell: (m) => `×${m.price.output}` },
            { label: '来源', cell: (m) => (m.custom ? <Badge tone="primary">控制台</Badge> : <Badge tone="muted">配置文件</Badge>) },
            {
              label: '操作',
              cell: (m) => (
                <div className="flex flex-wrap gap-2">
                  <button type="button" className={small} onClick={() => setEditing(m)} aria-label={`修改 ${m.name} 的倍率`}>
                    修改
                  </button>
                  {m.custom && (
                    <button type="button" className={small} onClick={() => reset(m)} aria-label={`恢复 ${m.name} 的默认倍率`}>
                      恢复默认
                    </button>
                  )}
                </div>
              )
            }
          ]}
        />
      )}
      <PriceDialog
        model={editing}
        onClose={() => setEditing(null)}
        onDone={(m) => {
          setEditing(null)
          toast(`「${m.name}」的倍率已保存`, 'success')
          load()
        }}
      />
    </>
  )
}

function PriceDialog({ model, onClose, onDone }: { model: AdminModel | null; onClose: () => void; onDone: (m: AdminModel) => void }) {
  const [inputRatio, setInput] = useState('1')
  const [outputRatio, setOutput] = useState('1')
  const { error, setError, busy, run } = useSubmit()

  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    if (!model) return
    setError(null)
    setInput(String(model.price.input))
    setOutput(String(model.price.output))
  }, [model])

  function submit(event: On.Submit) {
    event.preventDefault()
    if (!model) return
    const ok = (v: string) => /^\d+(\.\d+)?$/.test(v.trim()) && Number(v) <= 1000
    if (!ok(inputRatio) || !ok(outputRatio)) return setError('倍率必须是 0 到 1000 之间的数字')
    run(async () => {
      await adminCall('models/price', { modelId: model.id, price: { input: Number(inputRatio), output: Number(outputRatio) } })
      onDone(model)
    })
  }

  return (
    <Modal open={model !== null} title={`修改倍率：${model?.name ?? ''}`} onClose={onClose} width={440}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <div className="grid grid-cols-2 gap-3">
          <Field id="lx-price-input" label="输入倍率">
            <input
              id="lx-price-input"
              className={input}
              inputMode="decimal"
              value={inputRatio}
              onInput={(e) => setInput((e.target as HTMLInputElement).value)}
              data-autofocus
            />
          </Field>
          <Field id="lx-price-output" label="输出倍率">
            <input
              id="lx-price-output"
              className={input}
              inputMode="decimal"
              value={outputRatio}
              onInput={(e) => setOutput((e.target as HTMLInputElement).value)}
            />
          </Field>
        </div>
        <FormError id="lx-price-error" error={error} />
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
