import {
  ASPECT_CHOICES,
  checkPrompt,
  NIJI_CHOICES,
  parsePrompt,
  QUALITY_CHOICES,
  setPromptOption,
  STYLIZE_RANGE,
  VERSION_CHOICES,
  type ParsedPrompt,
  type PromptOptionKey
} from '@lingxi/shared/mj-prompt'
import { useStore } from '@nanostores/react'
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { besides, revealWhenDrawn } from '../../ui/reveal'
import { Field, fieldClass, Submit } from './form-parts'
import { ImagePicker } from './image-picker'
import { PromptPreview } from './prompt-preview'
import { $paintingDraft, painting, PAINTING_LIMITS, submitTask } from './state'

// 绘图: the prompt, option controls kept in sync with the options typed into it, and reference images.

export function ImagineForm({ initialPrompt }: { initialPrompt?: string }) {
  const draft = useStore($paintingDraft)
  const [text, setTextState] = useState(() => $paintingDraft.get() ?? initialPrompt ?? '')
  // What the textarea holds now (a submit right after typing must not see an older render's text).
  const latest = useRef(text)
  const setText = useCallback((next: string | ((before: string) => string)) => {
    latest.current = typeof next === 'function' ? next(latest.current) : next
    setTextState(latest.current)
  }, [])
  const [images, setImages] = useState<string[]>([])
  const [uploading, setUploading] = useState(false)
  const [pickerKey, setPickerKey] = useState(0)
  const [busy, setBusy] = useState(false)
  const parsed = useMemo(() => parsePrompt(text), [text])
  const ids = useId()

  // A prompt handed over while this form is shown (the helper or the gallery on the same page).
  useEffect(() => {
    if (draft === null) return
    setText(draft)
    $paintingDraft.set(null)
  }, [draft, setText])

  const set = <K extends PromptOptionKey>(key: K, value: ParsedPrompt[K] | undefined) => setText((t) => setPromptOption(t, key, value))

  // The version select covers --v and --niji; a value typed that is not offered shows as its own option.
  const versionValue = parsed.niji !== undefined ? `niji:${parsed.niji}` : parsed.version !== undefined ? `v:${parsed.version}` : ''
  const versionOptions: [string, string][] = [
    ...VERSION_CHOICES.map((v): [string, string] => [`v:${v}`, `V ${v}`]),
    ...NIJI_CHOICES.map((v): [string, string] => [`niji:${v}`, `Niji ${v}（动漫）`])
  ]
  if (versionValue && !versionOptions.some(([v]) => v === versionValue))
    versionOptions.push([versionValue, versionValue.startsWith('niji') ? `Niji ${parsed.niji || ''}`.trim() : `V ${parsed.version}`])
  const aspectOptions: string[] = [...ASPECT_CHOICES]
  if (parsed.aspect && !aspectOptions.includes(parsed.aspect)) aspectOptions.push(parsed.aspect)
  const qualityOptions: number[] = [...QUALITY_CHOICES]
  if (parsed.quality !== undefined && !qualityOptions.includes(parsed.quality)) qualityOptions.push(parsed.quality)

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (busy) return
    const form = event.currentTarget
    const prompt = latest.current.trim()
    const parsed = parsePrompt(prompt)
    if (!parsed.prompt && parsed.pictures.length === 0 && images.length === 0) return toast('请先输入画面描述', 'warning')
    if (!parsed.prompt) return toast('请在图片之外写几句画面描述', 'warning')
    if (prompt.length > PAINTING_LIMITS.promptMax) return toast(`提示词不能超过 ${PAINTING_LIMITS.promptMax} 个字`, 'warning')
    const problem = checkPrompt(parsed)
    if (problem) return toast(problem, 'warning')
    if (uploading) return toast('参考图还在上传，请稍候', 'warning')
    setBusy(true)
    try {
      const task = await submitTask(painting.imagine(prompt, images))
      // The prompt stays for a variant; the new card is brought into view (below the fold on a phone).
      setImages([])
      setPickerKey((k) => k + 1)
      revealWhenDrawn(() => besides(form, `[data-testid=task-card][data-task-id="${CSS.escape(task.taskId)}"]`)?.closest('li'))
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label="绘图" noValidate>
      <label htmlFor={`${ids}-prompt`} className="block mb-1 text-sm font-medium">
        画面描述
      </label>
      <textarea
        id={`${ids}-prompt`}
        data-testid="mj-prompt"
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault()
            ;(e.currentTarget.form as HTMLFormElement | null)?.requestSubmit()
          }
        }}
        rows={5}
        maxLength={PAINTING_LIMITS.promptMax}
        placeholder="例如：一只在雨中奔跑的橘猫，电影感 --ar 16:9 --s 250"
        aria-describedby={`${ids}-hint`}
        className="w-full rounded-lg border border-line bg-raised p-3 text-sm text-ink placeholder:text-muted outline-none focus:border-primary resize-y"
      />
      <p id={`${ids}-hint`} className="mt-1 text-xs text-muted">
        支持中文或英文；下方参数与提示词中的 --ar、--v 等选项同步。Ctrl+Enter 提交。
      </p>
      <PromptPreview key={text === '' ? 'empty' : 'text'} text={text} onUse={setText} />

      <fieldset className="mt-3 grid grid-cols-2 gap-3" aria-label="参数">
        <Field label="比例 --ar">
          <select
            value={parsed.aspect ?? ''}
            onChange={(e) => set('aspect', (e.target as HTMLSelectElement).value || undefined)}
            className={fieldClass}
            data-testid="opt-aspect"
          >
            <option value="">默认 1:1</option>
            {aspectOptions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </Field>
        <Field label="模型版本">
          <select
            value={versionValue}
            data-testid="opt-version"
            onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value
              if (!v) setText((t) => setPromptOption(setPromptOption(t, 'version', undefined), 'niji', undefined))
              else if (v.startsWith('niji:')) set('niji', v.slice(5))
              else set('version', v.slice(2))
            }}
            className={fieldClass}
          >
            <option value="">默认</option>
            {versionOptions.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field label={`风格化 --s（${STYLIZE_RANGE.min}–${STYLIZE_RANGE.max}）`}>
          <input
            type="number"
            inputMode="numeric"
            min={STYLIZE_RANGE.min}
            max={STYLIZE_RANGE.max}
            step={50}
            placeholder={String(STYLIZE_RANGE.default)}
            value={parsed.stylize ?? ''}
            data-testid="opt-stylize"
            onInput={(e) => {
              const raw = (e.target as HTMLInputElement).value
              set('stylize', raw === '' ? undefined : Math.max(0, Math.round(Number(raw))))
            }}
            className={fieldClass}
          />
        </Field>
        <Field label="质量 --q">
          <select
            value={parsed.quality === undefined ? '' : String(parsed.quality)}
            data-testid="opt-quality"
            onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value
              set('quality', v === '' ? undefined : Number(v))
            }}
            className={fieldClass}
          >
            <option value="">默认 1</option>
            {qualityOptions.map((q) => (
              <option key={q} value={String(q)}>
                {q}
              </option>
            ))}
          </select>
        </Field>
        <Field label="种子 --seed">
          <input
            type="number"
            inputMode="numeric"
            min={0}
            placeholder="随机"
            value={parsed.seed ?? ''}
            data-testid="opt-seed"
            onInput={(e) => {
              const raw = (e.target as HTMLInputElement).value
              set('seed', raw === '' ? undefined : Math.max(0, Math.floor(Number(raw))))
            }}
            className={fieldClass}
          />
        </Field>
        <Field label="风格 --style">
          <select
            value={parsed.style ?? ''}
            data-testid="opt-style"
            onChange={(e) => set('style', (e.target as HTMLSelectElement).value || undefined)}
            className={fieldClass}
          >
            <option value="">默认</option>
            <option value="raw">raw（更写实）</option>
            {parsed.style && parsed.style !== 'raw' && <option value={parsed.style}>{parsed.style}</option>}
          </select>
        </Field>
      </fieldset>

      <div className="mt-4">
        <span className="block mb-1 text-sm font-medium">参考图（可选，最多 {PAINTING_LIMITS.referenceImages} 张）</span>
        <ImagePicker
          key={pickerKey}
          max={PAINTING_LIMITS.referenceImages}
          label="上传参考图"
          testId="mj-references"
          onChange={(urls, running) => {
            setImages(urls)
            setUploading(running)
          }}
        />
        {images.length > 0 && (
          <Field label="图片权重 --iw（0–3）">
            <input
              type="number"
              min={0}
              max={3}
              step={0.25}
              placeholder="1"
              value={parsed.iw ?? ''}
              onInput={(e) => {
                const raw = (e.target as HTMLInputElement).value
                set('iw', raw === '' ? undefined : Number(raw))
              }}
              className={`${fieldClass} mt-2 max-w-40`}
            />
          </Field>
        )}
      </div>
      <Submit busy={busy} disabled={uploading}>
        {busy ? '正在提交…' : '生成'}
      </Submit>
    </form>
  )
}
