import { Icon } from '../../ui/icons'
import { arrangeSources, type HotSource, type SourceChoice } from './state'

/**
 * 管理来源: which lists show as tabs and in what order — a checkbox and 上移 / 下移 per source, by
 * keyboard as by touch; at least one stays shown. Changes apply at once (the caller saves them).
 */
export function SourceManager({ sources, choice, onChange }: { sources: HotSource[]; choice: SourceChoice; onChange: (next: SourceChoice) => void }) {
  const all = arrangeSources(sources, choice, true)
  const shown = all.filter((s) => !choice.hidden.includes(s.sourceId))
  const move = (at: number, by: -1 | 1) => {
    const order = all.map((s) => s.sourceId)
    const [id] = order.splice(at, 1)
    order.splice(at + by, 0, id as string)
    onChange({ ...choice, order })
  }
  const toggle = (id: string, on: boolean) =>
    onChange({ order: all.map((s) => s.sourceId), hidden: on ? choice.hidden.filter((h) => h !== id) : [...choice.hidden, id] })
  return (
    <div>
      <p className="mb-3 text-sm text-muted">勾选要显示的热榜，用箭头调整顺序。</p>
      <ul aria-label="热榜来源顺序" className="flex flex-col divide-y divide-line rounded-card border border-line">
        {all.map((s, i) => {
          const on = !choice.hidden.includes(s.sourceId)
          const last = on && shown.length === 1
          return (
            <li key={s.sourceId} data-testid="source-choice" className="flex items-center gap-2 px-3 py-2">
              <label className="flex items-center gap-2 mr-auto min-h-9 text-sm">
                <input
                  type="checkbox"
                  checked={on}
                  disabled={last}
                  onChange={(event) => toggle(s.sourceId, event.currentTarget.checked)}
                  className="size-4 accent-primary"
                />
                {s.name}
                {s.demo && <span className="text-[11px] text-primary">示例</span>}
              </label>
              <button
                type="button"
                aria-label={`上移「${s.name}」`}
                disabled={i === 0}
                onClick={() => move(i, -1)}
                className="size-9 grid place-items-center rounded-lg border border-line text-muted hover:text-ink disabled:opacity-40"
              >
                <Icon name="chevron" className="size-4 rotate-180" />
              </button>
              <button
                type="button"
                aria-label={`下移「${s.name}」`}
                disabled={i === all.length - 1}
                onClick={() => move(i, 1)}
                className="size-9 grid place-items-center rounded-lg border border-line text-muted hover:text-ink disabled:opacity-40"
              >
                <Icon name="chevron" className="size-4" />
              </button>
            </li>
          )
        })}
      </ul>
    </div>
  )
}
