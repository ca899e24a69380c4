import { useEffect, useId, useState } from 'react'
import { BlendForm, DescribeForm } from './describe-blend'
import { ImagineForm } from './imagine-form'
import { ShortenForm, SwapFaceForm } from './shorten-swap'
import { painting, type PaintingFeatures } from './state'

type Mode = 'imagine' | 'describe' | 'blend' | 'shorten' | 'swap'

/**
 * The /mj composer: 绘图 (prompt + option controls in sync with the text + reference images), 识图,
 * 混图, and 精简 / 换脸 when the upstream offers them (painting/features).
 */
export function MjComposer({ initialPrompt }: { initialPrompt?: string }) {
  const [mode, setMode] = useState<Mode>('imagine')
  const [features, setFeatures] = useState<PaintingFeatures | null>(null)
  const tabsId = useId()
  useEffect(() => {
    painting.features().then(setFeatures, () => setFeatures(null))
  }, [])
  const MODES: [Mode, string][] = [
    ['imagine', '绘图'],
    ['describe', '识图'],
    ['blend', '混图'],
    ...(features?.shorten ? [['shorten', '精简'] as [Mode, string]] : []),
    ...(features?.faceSwap ? [['swap', '换脸'] as [Mode, string]] : [])
  ]
  return (
    <section aria-label="绘画输入" className="rounded-card border border-line bg-surface p-4">
      <div role="tablist" aria-label="绘画方式" className="grid grid-flow-col auto-cols-fr gap-1 p-1 rounded-lg bg-raised">
        {MODES.map(([value, label]) => (
          <button
            key={value}
            type="button"
            role="tab"
            id={`${tabsId}-${value}`}
            aria-selected={mode === value}
            aria-controls={`${tabsId}-panel`}
            tabIndex={mode === value ? 0 : -1}
            onClick={() => setMode(value)}
            onKeyDown={(e) => {
              const i = MODES.findIndex(([m]) => m === mode)
              const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0
              if (!step) return
              e.preventDefault()
              const next = MODES[(i + step + MODES.length) % MODES.length]![0]
              setMode(next)
              ;(e.currentTarget.parentElement?.querySelector(`#${CSS.escape(`${tabsId}-${next}`)}`) as HTMLElement | null)?.focus()
            }}
            className={`h-8 rounded-md text-sm font-medium ${mode === value ? 'bg-primary text-primary-ink' : 'text-muted hover:text-ink'}`}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${tabsId}-panel`} aria-labelledby={`${tabsId}-${mode}`} className="mt-4">
        {mode === 'imagine' && <ImagineForm initialPrompt={initialPrompt} />}
        {mode === 'describe' && <DescribeForm />}
        {mode === 'blend' && <BlendForm />}
        {mode === 'shorten' && <ShortenForm />}
        {mode === 'swap' && <SwapFaceForm />}
      </div>
    </section>
  )
}
