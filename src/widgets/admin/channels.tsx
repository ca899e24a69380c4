import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { Badge, button, Field, FormError, Heading, input, Modal, primary, small, Table, useSubmit } from './parts'
import { adminCall } from './state'

// 渠道: the upstreams of chat (OpenAI-compatible), painting (midjourney-proxy, AUTOMATIC1111) and
// music (suno-api), with this node's view of their health.
// Keys go to the server and never come back: only their last 4 characters are shown.

type Kind = 'openai' | 'midjourney' | 'sd' | 'suno'
const KINDS: Record<Kind, { label: string; url: string; key: string }> = {
  openai: { label: '对话', url: '不含 /v1', key: 'API Key' },
  midjourney: { label: 'Midjourney', url: 'midjourney-proxy 地址，不含 /mj', key: 'mj-api-secret，可不填' },
  sd: { label: 'Stable Diffusion', url: 'AUTOMATIC1111 地址', key: '--api-auth 的 用户名:密码，可不填' },
  suno: { label: 'Suno 音乐', url: 'suno-api 地址', key: 'Bearer 密钥，可不填' }
}

export interface AdminChannel {
  id: number
  kind: Kind
  name: string
  baseUrl: string
  keyHints: string[]
  models: string[]
  priority: number
  weight: number
  enabled: boolean
  source: 'db' | 'env'
  health: { calls: number; errors: number; errorRate: number; latencyMs: number | null; consecutiveFailures: number; cooledUntil: string | null }
}

const percent = (n: number) => `${Math.round(n * 100)}%`

function HealthCell({ c }: { c: AdminChannel }) {
  const h = c.health
  if (!c.enabled) return <Badge tone="muted">已停用</Badge>
  const state = h.cooledUntil ? <Badge tone="danger">冷却中</Badge> : h.calls === 0 ? <Badge tone="muted">暂无调用</Badge> : <Badge tone="ok">正常</Badge>
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      {state}
      {h.calls > 0 && (
        <span className="text-xs text-muted tabular-nums">
          错误率 {percent(h.errorRate)} · {h.calls} 次 · 平均 {h.latencyMs} 毫秒
        </span>
      )}
    </span>
  )
}

export function ChannelsTab() {
  const [data, setData] = useState<{ list: AdminChannel[]; secretConfigured: boolean } | null>(null)
  const [editing, setEditing] = useState<AdminChannel | 'new' | null>(null)

  async function load() {
    try {
      setData(await adminCall<{ list: AdminChannel[]; secretConfigured: boolean }>('channels/list'))
    } catch (e) {
      notifyError(e)
    }
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: loaded once, when the tab opens
  useEffect(() => {
    load()
  }, [])

  async function toggle(c: AdminChannel) {
    try {
      const { id, name, baseUrl, models, priority, weight } = c
      await adminCall('channels/save', { id, name, baseUrl, models, priority, weight, enabled: !c.enabled })
      toast(c.enabled ? `「${c.name}」已停用` : `「${c.name}」已启用`, 'success')
      load()
    } catch (e) {
      notifyError(e)
    }
  }

  const editable = data?.secretConfigured ?? false
  return (
    <>
      <Heading title="上游渠道">
        <button type="button" className={primary} onClick={() => setEditing('new')} disabled={!editable}>
          新建渠道
        </button>
      </Heading>
      {data && !editable && <p className="mb-3 text-sm text-muted">服务器没有设置 CHANNEL_SECRET_KEY：渠道密钥无法加密保存，只能使用环境变量里的渠道。</p>}
      <p className="mb-3 text-xs text-muted">
        每种类型的渠道各自按优先级、权重分配；429、5xx 或连不上时，在上游接下任务（或回复第一个字）之前自动换下一个渠道。健康状况为本节点最近 10 分钟的统计。
      </p>
      {!data ? (
        <Spinner label="加载渠道" />
      ) : (
        <Table
          label="上游渠道"
          rows={data.list}
          rowKey={(c) => String(c.id)}
          empty="还没有渠道"
          columns={[
            { label: '名称', cell: (c) => c.name },
            { label: '类型', cell: (c) => KINDS[c.kind]?.label ?? c.kind },
            { label: '接口地址', cell: (c) => <span className="break-all">{c.baseUrl}</span> },
            { label: '密钥', cell: (c) => <span className="whitespace-nowrap">{c.keyHints.map((k) => `…${k}`).join('、')}</span> },
            { label: '模型', cell: (c) => (c.kind !== 'openai' ? '—' : c.models.length ? c.models.join('、') : '全部') },
            { label: '优先级', num: true, cell: (c) => c.priority },
            { label: '权重', num: true, cell: (c) => c.weight },
            { label: '状态', cell: (c) => <HealthCell c={c} /> },
            {
              label: '操作',
              cell: (c) =>
                c.source === 'env' ? (
                  <span className="text-xs text-muted">环境变量</span>
                ) : (
                  <div className="flex flex-wrap gap-2">
                    <button type="button" className={small} onClick={() => setEditing(c)} aria-label={`编辑 ${c.name}`}>
                      编辑
                    </button>
                    <button type="button" className={small} onClick={() => toggle(c)} aria-label={`${c.enabled ? '停用' : '启用'} ${c.name}`}>
                      {c.enabled ? '停用' : '启用'}
                    </button>
                  </div>
                )
            }
          ]}
        />
      )}
      <ChannelDialog
        editing={editing}
        onClose={() => setEditing(null)}
        onDone={(c, created) => {
          setEditing(null)
          toast(created ? `已新建「${c.name}」` : `已保存「${c.name}」`, 'success')
          load()
        }}
      />
    </>
  )
}

const lines = (text: string) =>
  text
    .split(/[\n,，]/)
    .map((s) => s.trim())
    .filter(Boolean)

function ChannelDialog({
  editing,
  onClose,
  onDone
}: {
  editing: AdminChannel | 'new' | null
  onClose: () => void
  onDone: (c: AdminChannel, created: boolean) => void
}) {
  const current = editing && editing !== 'new' ? editing : null
  const [kind, setKind] = useState<Kind>('openai')
  const [name, setName] = useState('')
  const [baseUrl, setBaseUrl] = useState('')
  const [keys, setKeys] = useState('')
  const [models, setModels] = useState('')
  const [priority, setPriority] = useState('0')
  const [weight, setWeight] = useState('1')
  const [enabled, setEnabled] = useState(true)
  const { error, setError, busy, run } = useSubmit()

  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    if (!editing) return
    setError(null)
    setKind(current?.kind ?? 'openai')
    setName(current?.name ?? '')
    setBaseUrl(current?.baseUrl ?? '')
    setKeys('')
    setModels(current?.models.join('\n') ?? '')
    setPriority(String(current?.priority ?? 0))
    setWeight(String(current?.weight ?? 1))
    setEnabled(current?.enabled ?? true)
  }, [editing])

  function submit(event: On.Submit) {
    event.preventDefault()
    if (!name.trim()) return setError('请填写渠道名称')
    if (!/^https?:\/\/\S+$/.test(baseUrl.trim())) return setError('接口地址必须是 http:// 或 https:// 开头的网址')
    const keyList = lines(keys)
    if (!current && kind === 'openai' && keyList.length === 0) return setError('新渠道至少需要一个密钥')
    if (!/^-?\d+$/.test(priority.trim())) return setError('优先级必须是整数')
    if (!/^\d+$/.test(weight.trim()) || Number(weight) < 1) return setError('权重必须是不小于 1 的整数')
    const body = {
      ...(current ? { id: current.id } : { kind }),
      name: name.trim(),
      baseUrl: baseUrl.trim(),
      ...(keyList.length ? { keys: keyList } : {}),
      models: kind === 'openai' ? lines(models) : [],
      priority: Number(priority),
      weight: Number(weight),
      enabled
    }
    run(async () => {
      const { channel } = await adminCall<{ channel: AdminChannel }>('channels/save', body)
      onDone(channel, !current)
    })
  }

  return (
    <Modal open={editing !== null} title={current ? '编辑渠道' : '新建渠道'} onClose={onClose} width={560}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <Field id="lx-ch-kind" label="类型" hint={current ? '类型建好后不能修改' : undefined}>
          <select
            id="lx-ch-kind"
            className={input}
            value={kind}
            disabled={current !== null}
            onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}
          >
            {(Object.keys(KINDS) as Kind[]).map((k) => (
              <option key={k} value={k}>
                {KINDS[k].label}
              </option>
            ))}
          </select>
        </Field>
        <div className="grid grid-cols-1 sm:grid-cols-2 gap-3">
          <Field id="lx-ch-name" label="名称">
            <input
              id="lx-ch-name"
              className={input}
              maxLength={100}
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
              data-autofocus
            />
          </Field>
          <Field id="lx-ch-url" label="接口地址" hint={KINDS[kind].url}>
            <input
              id="lx-ch-url"
              className={input}
              inputMode="url"
              value={baseUrl}
              onInput={(e) => setBaseUrl((e.target as HTMLInputElement).value)}
              placeholder={kind === 'openai' ? 'https://api.deepseek.com' : 'http://127.0.0.1:8080'}
            />
          </Field>
        </div>
        <Field
          id="lx-ch-keys"
          label="密钥"
          hint={current ? `留空则保留现有密钥（${current.keyHints.map((k) => `…${k}`).join('、')}）；每行一个` : `${KINDS[kind].key}；每行一个，加密保存`}
        >
          <textarea
            id="lx-ch-keys"
            className={`${input} h-20 py-2`}
            autoComplete="off"
            spellCheck={false}
            value={keys}
            onInput={(e) => setKeys((e.target as HTMLTextAreaElement).value)}
          />
        </Field>
        {kind === 'openai' && (
          <Field id="lx-ch-models" label="模型" hint="上游模型名，每行一个；留空为全部模型">
            <textarea id="lx-ch-models" className={`${input} h-20 py-2`} value={models} onInput={(e) => setModels((e.target as HTMLTextAreaElement).value)} />
          </Field>
        )}
        <div className="grid grid-cols-2 gap-3">
          <Field id="lx-ch-priority" label="优先级" hint="大的先用">
            <input
              id="lx-ch-priority"
              className={input}
              inputMode="numeric"
              value={priority}
              onInput={(e) => setPriority((e.target as HTMLInputElement).value)}
            />
          </Field>
          <Field id="lx-ch-weight" label="权重" hint="同优先级按权重分配">
            <input id="lx-ch-weight" className={input} inputMode="numeric" value={weight} onInput={(e) => setWeight((e.target as HTMLInputElement).value)} />
          </Field>
        </div>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" className="size-4 accent-[var(--color-primary)]" checked={enabled} onChange={() => setEnabled((v) => !v)} />
          启用
        </label>
        <FormError id="lx-ch-error" error={error} />
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
