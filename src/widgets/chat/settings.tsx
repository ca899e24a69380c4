import { useStore } from '@nanostores/react'
import { useEffect, useRef, useState } from 'react'
import { useEffectEvent } from '../../ui/use-effect-event'
import { t } from './i18n'
import { report } from './notice'
import { $chatConfig, type ChatModel, type Topic } from './state'
import { createTopic, saveTopicConfig, toggleContext } from './topics'

/** A model's price ratio beside its name when it is not ×1: ` ×15`, or ` ×1/×3` (input/output). */
const ratio = ({ price: p }: ChatModel) => (p && (p.input !== 1 || p.output !== 1) ? ` ×${p.input === p.output ? p.input : `${p.input}/×${p.output}`}` : '')

/** Model, temperature and context of the active topic, each saved as it changes. */
export function ChatSettings({ topic }: { topic: Topic | null }) {
  const config = useStore($chatConfig)
  const [temperature, setTemperature] = useState(topic?.temperature ?? 0.7)
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)

  // biome-ignore lint/correctness/useExhaustiveDependencies: topic?.topicId: another topic with the same temperature drops the value not saved yet as well
  useEffect(() => setTemperature(topic?.temperature ?? 0.7), [topic?.topicId, topic?.temperature])
  useEffect(() => () => clearTimeout(timer.current), [])

  const models = config?.models ?? []
  // No conversation yet: choosing a model starts one with it, then the other settings appear.
  if (!topic) {
    return (
      <label className="flex flex-col gap-1.5 text-sm">
        <span className="text-muted">{t('模型')}</span>
        <select
          value={config?.defaultModel ?? ''}
          onChange={(e) => createTopic({ model: (e.target as HTMLSelectElement).value }).catch(report)}
          className="h-10 px-3 rounded-lg border border-line bg-raised text-ink outline-none focus:border-primary"
        >
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
              {ratio(m)}
            </option>
          ))}
        </select>
        <span className="text-xs text-muted">{t('选择模型即开始新对话，温度与上下文随后可调。')}</span>
      </label>
    )
  }
  const id = topic.topicId
  const known = models.some((m) => m.id === topic.model)

  function handleTemperature(value: number) {
    setTemperature(value)
    clearTimeout(timer.current)
    timer.current = setTimeout(() => saveTopicConfig(id, { temperature: value }).catch(report), 400)
  }

  const on = topic.contextEnabled === 1
  return (
    <div className="flex flex-col gap-5 text-sm">
      <label className="flex flex-col gap-1.5">
        <span className="text-muted">{t('模型')}</span>
        <select
          value={topic.model}
          onChange={(e) => saveTopicConfig(id, { model: (e.target as HTMLSelectElement).value }).catch(report)}
          className="h-10 px-3 rounded-lg border border-line bg-raised text-ink outline-none focus:border-primary"
        >
          {!known && <option value={topic.model}>{topic.model}</option>}
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
              {ratio(m)}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1.5">
        <span className="flex justify-between text-muted">
          <span>{t('温度')}</span>
          <span className="text-ink tabular-nums">{temperature.toFixed(1)}</span>
        </span>
        <input
          type="range"
          min={0}
          max={2}
          step={0.1}
          value={temperature}
          onInput={(e) => handleTemperature(Number((e.target as HTMLInputElement).value))}
          className="accent-[var(--color-primary)]"
        />
        <span className="flex justify-between text-xs text-muted">
          <span>{t('严谨')}</span>
          <span>{t('发散')}</span>
        </span>
      </label>
      <div className="flex items-center justify-between gap-4">
        <span>
          <span className="block">{t('携带上下文')}</span>
          <span className="block text-xs text-muted">{t('开启后，之前的对话会一起发给模型')}</span>
        </span>
        <button
          type="button"
          role="switch"
          aria-checked={on}
          aria-label={t('携带上下文')}
          onClick={() => toggleContext(id).catch(report)}
          className={`relative h-6 w-11 shrink-0 rounded-full transition-colors ${on ? 'bg-primary' : 'bg-raised border border-line'}`}
        >
          <span className={`absolute top-0.5 size-5 rounded-full bg-white shadow transition-all ${on ? 'left-[22px]' : 'left-0.5'}`} />
        </button>
      </div>
    </div>
  )
}

/**
 * The settings under their button (a bubble's panel, a wide inline chat): Esc or a click elsewhere
 * closes them. Here rather than in chat-view, so it loads with the settings, when first opened.
 */
export function SettingsPopover({ topic, onClose }: { topic: Topic | null; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null)
  const close = useEffectEvent(onClose)
  useEffect(() => {
    const panel = ref.current
    // The panel takes the focus, so Tab leads into it.
    panel?.focus()
    const away = (event: Event) => {
      if (panel?.parentElement && !event.composedPath().includes(panel.parentElement)) close()
    }
    // Capture phase, and handled: a chat bubble around it must not close on the same Esc.
    const handleEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return
      event.preventDefault()
      close()
      panel?.parentElement?.querySelector<HTMLElement>('button')?.focus()
    }
    document.addEventListener('pointerdown', away)
    document.addEventListener('keydown', handleEscape, true)
    return () => {
      document.removeEventListener('pointerdown', away)
      document.removeEventListener('keydown', handleEscape, true)
    }
  }, [])

  return (
    <div
      ref={ref}
      role="dialog"
      aria-label={t('对话设置')}
      tabIndex={-1}
      className="absolute right-0 top-10 z-20 w-72 max-w-[calc(100vw-24px)] p-4 rounded-xl border border-line bg-surface shadow-2xl outline-none lx-fade-in"
    >
      <ChatSettings topic={topic} />
    </div>
  )
}
