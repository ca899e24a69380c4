import { buildPrompt, parsePrompt } from '@lingxi/shared/mj-prompt'
import { useEffect, useId, useMemo, useState } from 'react'
import { notifyError } from '../../core/api'
import { copyText } from '../../core/format'
import { Spinner } from '../../ui/icons'
import { painting, readMjHelper, sendPromptToMj, type MjHelperConfig } from './state'

interface Word {
  category: string
  label: string
  value: string
}

const isOption = (value: string) => /^\s*--/.test(value)
/** The option a chip sets (`--ar 16:9` → aspect), so two chips of one option exclude each other. */
const optionKeys = (value: string) =>
  Object.entries(parsePrompt(`x ${value}`))
    .filter(([k]) => k !== 'prompt' && k !== 'pictures' && k !== 'rest')
    .map(([k]) => k)

/** Builds the prompt: the description, then the chosen words (comma separated), then the chosen options. */
export function helperPrompt(subject: string, words: Word[]): string {
  const text = [subject.trim(), ...words.filter((w) => !isOption(w.value)).map((w) => w.value.trim())].filter(Boolean).join(', ')
  const options = words.filter((w) => isOption(w.value)).map((w) => w.value.trim())
  return buildPrompt(parsePrompt([text, ...options].join(' ')))
}

/** /mjHelper: click Chinese-labelled words to build a Midjourney prompt; copy it or send it to /mj. */
export default function HelperView() {
  const [config, setConfig] = useState<MjHelperConfig | null>(null)
  const [subject, setSubject] = useState('')
  const [chosen, setChosen] = useState<Word[]>([])
  const [edited, setEdited] = useState<string | null>(null)
  const ids = useId()

  useEffect(() => {
    painting.helper().then(
      (raw) => setConfig(readMjHelper(raw)),
      (error) => {
        setConfig({ categories: [] })
        notifyError(error)
      }
    )
  }, [])

  const built = useMemo(() => helperPrompt(subject, chosen), [subject, chosen])
  const prompt = edited ?? built

  function toggle(word: Word) {
    setEdited(null)
    setChosen((list) => {
      if (list.some((w) => w.value === word.value)) return list.filter((w) => w.value !== word.value)
      if (!isOption(word.value)) return [...list, word]
      const keys = optionKeys(word.value)
      return [...list.filter((w) => !isOption(w.value) || !optionKeys(w.value).some((k) => keys.includes(k))), word]
    })
  }

  return (
    <div className="max-w-6xl mx-auto grid gap-5 cq-lg:grid-cols-[1fr_minmax(300px,380px)] items-start">
      <section aria-labelledby={`${ids}-title`} className="min-w-0">
        <h2 id={`${ids}-title`} className="text-lg font-semibold">
          绘画助手
        </h2>
        <p className="mt-1 text-sm text-muted">先写主体，再点选风格、光线、构图等词汇，右侧会拼出英文提示词。</p>
        <label className="block mt-4">
          <span className="block mb-1 text-sm font-medium">画面主体（可写中文）</span>
          <input
            value={subject}
            onInput={(e) => {
              setEdited(null)
              setSubject((e.target as HTMLInputElement).value)
            }}
            placeholder="例如：一只戴着围巾的柴犬"
            data-testid="helper-subject"
            className="w-full h-10 rounded-lg border border-line bg-raised px-3 text-sm text-ink placeholder:text-muted outline-none focus:border-primary"
          />
        </label>
        {!config && <Spinner label="加载词库" />}
        {config && config.categories.length === 0 && <p className="mt-6 text-sm text-muted">词库暂时不可用，请稍后再试。</p>}
        <div className="mt-4 space-y-4">
          {config?.categories.map((c) => (
            <fieldset key={c.name} data-testid="helper-category">
              <legend className="mb-2 text-sm font-semibold">{c.name}</legend>
              <div className="flex flex-wrap gap-2">
                {c.items.map((item) => {
                  const on = chosen.some((w) => w.value === item.value)
                  return (
                    <button
                      key={item.value}
                      type="button"
                      aria-pressed={on}
                      title={item.value}
                      onClick={() => toggle({ category: c.name, label: item.label, value: item.value })}
                      className={`h-8 px-3 rounded-full border text-sm ${on ? 'border-primary bg-primary/15 text-primary' : 'border-line text-ink/90 hover:border-primary/60'}`}
                    >
                      {item.label}
                    </button>
                  )
                })}
              </div>
            </fieldset>
          ))}
        </div>
      </section>
      <aside aria-label="生成的提示词" className="rounded-card border border-line bg-surface p-4 cq-lg:sticky cq-lg:top-20">
        <label htmlFor={`${ids}-out`} className="block mb-1 text-sm font-medium">
          提示词
        </label>
        <textarea
          id={`${ids}-out`}
          data-testid="helper-prompt"
          rows={6}
          value={prompt}
          onInput={(e) => setEdited((e.target as HTMLTextAreaElement).value)}
          placeholder="点选左侧词汇后，这里会出现提示词，也可以直接修改。"
          className="w-full rounded-lg border border-line bg-raised p-3 text-sm text-ink placeholder:text-muted outline-none focus:border-primary resize-y"
        />
        {chosen.length > 0 && (
          <ul className="mt-2 flex flex-wrap gap-1" aria-label="已选词汇">
            {chosen.map((w) => (
              <li key={w.value}>
                <button
                  type="button"
                  onClick={() => toggle(w)}
                  aria-label={`移除 ${w.label}`}
                  className="h-7 px-2 rounded-full bg-raised text-xs text-muted hover:text-danger"
                >
                  {w.label} ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <div className="mt-3 grid grid-cols-3 gap-2">
          <button
            type="button"
            disabled={!prompt.trim()}
            onClick={() => copyText(prompt)}
            className="h-10 rounded-lg border border-line hover:border-primary hover:text-primary disabled:opacity-50"
          >
            复制
          </button>
          <button
            type="button"
            disabled={!prompt.trim()}
            onClick={() => sendPromptToMj(prompt)}
            className="col-span-2 h-10 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110 disabled:opacity-50"
          >
            发送到 AI 绘画
          </button>
        </div>
        <button
          type="button"
          onClick={() => {
            setChosen([])
            setSubject('')
            setEdited(null)
          }}
          className="mt-2 w-full h-9 rounded-lg text-sm text-muted hover:text-ink hover:bg-raised"
        >
          清空
        </button>
      </aside>
    </div>
  )
}
