import { useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { Spinner } from '../../ui/icons'
import { button, Field, input } from './parts'
import { adminCall, downloadCsv } from './state'

// 统计: daily charts of sign-ups, active users, tokens by model, paintings, songs, cards redeemed
// and upstream errors, each with its CSV. The chart library (uPlot) and its stylesheet load only
// here, the first time a chart draws (import() below).

type Stat = 'signups' | 'active' | 'tokens' | 'paintings' | 'songs' | 'cards' | 'errors'
interface Series {
  stat: Stat
  days: string[]
  series: { name: string; values: number[] }[]
}

const STATS: { id: Stat; title: string }[] = [
  { id: 'signups', title: '注册用户' },
  { id: 'active', title: '活跃用户' },
  { id: 'tokens', title: '令牌用量（按模型）' },
  { id: 'paintings', title: '绘画' },
  { id: 'songs', title: '歌曲' },
  { id: 'cards', title: '充值卡兑换' },
  { id: 'errors', title: '上游错误' }
]
const COLORS = ['#fbab00', '#4f9cf9', '#34c38f', '#f46a6a', '#a78bfa', '#f472b6', '#22d3ee', '#94a3b8']
const DAY_MS = 86_400_000
const TZ = Intl.DateTimeFormat().resolvedOptions().timeZone || 'Asia/Shanghai'
const dayString = (ms: number) => new Date(ms).toLocaleDateString('sv-SE')

/** The uPlot class (its types declare `export =`; the ES build the bundler takes exports it as default). */
type UPlot = typeof import('uplot')
let library: Promise<UPlot> | undefined

/** uPlot and its stylesheet, once; the sheet adopted by the shadow root the chart is in. */
async function chartLibrary(root: Node): Promise<UPlot> {
  library ??= Promise.all([import('uplot'), import('./uplot-css')]).then(([m, css]) => {
    const target = root instanceof ShadowRoot ? root : document
    if ('adoptedStyleSheets' in target) {
      const sheet = new CSSStyleSheet()
      sheet.replaceSync(css.UPLOT_CSS)
      target.adoptedStyleSheets = [...target.adoptedStyleSheets, sheet]
    }
    return (m as unknown as { default: UPlot }).default ?? m
  })
  return library
}

export function StatsTab() {
  const [to, setTo] = useState(() => dayString(Date.now()))
  const [from, setFrom] = useState(() => dayString(Date.now() - 29 * DAY_MS))
  return (
    <>
      <h3 className="sr-only">统计</h3>
      <div className="mb-4 flex flex-wrap items-end gap-3">
        <Field id="lx-stats-from" label="开始日期" className="w-44">
          <input id="lx-stats-from" type="date" className={input} value={from} max={to} onChange={(e) => setFrom((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="lx-stats-to" label="结束日期" className="w-44">
          <input id="lx-stats-to" type="date" className={input} value={to} min={from} onChange={(e) => setTo((e.target as HTMLInputElement).value)} />
        </Field>
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        {STATS.map((s) => (
          <Chart key={s.id} stat={s.id} title={s.title} from={from} to={to} />
        ))}
      </div>
    </>
  )
}

function Chart({ stat, title, from, to }: { stat: Stat; title: string; from: string; to: string }) {
  const [data, setData] = useState<Series | null>(null)
  const box = useRef<HTMLDivElement>(null)

  useEffect(() => {
    if (!from || !to || from > to) return
    let live = true
    adminCall<Series>('stats', { stat, from, to, tz: TZ }).then((d) => live && setData(d), notifyError)
    return () => {
      live = false
    }
  }, [stat, from, to])

  useEffect(() => {
    const el = box.current
    if (!data || !el) return
    let plot: { destroy(): void; setSize(s: { width: number; height: number }): void } | undefined
    let observer: ResizeObserver | undefined
    let gone = false
    chartLibrary(el.getRootNode()).then((UPlot) => {
      if (gone) return
      const ink = getComputedStyle(el).color
      const grid = { stroke: 'rgba(128,128,128,0.2)', width: 1 }
      const xs = data.days.map((d) => Date.parse(`${d}T00:00:00`) / 1000)
      plot = new UPlot(
        {
          width: el.clientWidth,
          height: 220,
          scales: { x: { time: true } },
          series: [
            {},
            ...data.series.map((s, i) => ({ label: s.name, stroke: COLORS[i % COLORS.length], width: 2, points: { show: data.days.length <= 31 } }))
          ],
          axes: [
            { stroke: ink, grid, ticks: grid },
            { stroke: ink, grid, ticks: grid, size: 56 }
          ],
          legend: { live: true }
        },
        [xs, ...data.series.map((s) => s.values)],
        el
      )
      observer = new ResizeObserver(() => plot?.setSize({ width: el.clientWidth, height: 220 }))
      observer.observe(el)
    }, notifyError)
    return () => {
      gone = true
      observer?.disconnect()
      plot?.destroy()
    }
  }, [data])

  const totals = data?.series.map((s) => `${s.name} 共 ${s.values.reduce((a, b) => a + b, 0)}`).join('，')
  return (
    <section aria-labelledby={`lx-stat-${stat}`} className="rounded-card border border-line bg-surface p-4 min-w-0" data-testid={`stat-${stat}`}>
      <div className="mb-2 flex items-center justify-between gap-2">
        <h4 id={`lx-stat-${stat}`} className="font-semibold">
          {title}
        </h4>
        <button
          type="button"
          className={`${button} h-8 text-sm`}
          onClick={() => downloadCsv(`stats/csv?${new URLSearchParams({ stat, from, to, tz: TZ })}`, `stats-${stat}.csv`).catch(notifyError)}
          aria-label={`导出${title} CSV`}
        >
          导出 CSV
        </button>
      </div>
      {!data && <Spinner label={`加载${title}`} />}
      {data && <p className="sr-only">{`${from} 至 ${to}：${totals}`}</p>}
      <div ref={box} role="img" aria-label={data ? `${title}每日折线图，${totals}` : title} className="min-h-[220px] text-xs text-muted" />
    </section>
  )
}
