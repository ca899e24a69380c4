import { useStore } from '@nanostores/react'
import { useEffect, useId, useState, type ReactNode } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { History, PublishButton } from './history'
import { Lightbox } from './lightbox'
import { $paintingTasks, imageFileName, painting, PAINTING_LIMITS, putTask, type PaintingTask, type SdOptions } from './state'
import { IMG2IMG_START, Img2ImgFields, type Img2ImgValue } from './sd-img2img'
import { TaskCard } from './task-card'

type SdMode = 'txt2img' | 'img2img' | 'inpaint'
const SD_MODES: [SdMode, string][] = [
  ['txt2img', '文生图'],
  ['img2img', '图生图'],
  ['inpaint', '局部重绘']
]

const inputClass = 'h-9 w-full rounded-lg border border-line bg-raised px-2 text-sm text-ink outline-none focus:border-primary'

function Row({ label, value, children, htmlFor }: { label: string; value?: ReactNode; children: ReactNode; htmlFor?: string }) {
  return (
    <div>
      <div className="flex items-center justify-between mb-1 text-xs">
        <label htmlFor={htmlFor} className="text-muted">
          {label}
        </label>
        {value !== undefined && <span className="text-ink tabular-nums">{value}</span>}
      </div>
      {children}
    </div>
  )
}

/** /sd: stable diffusion text-to-image (size presets), image-to-image and inpaint, with steps, CFG, the upstream's samplers and seed. */
export default function SdView() {
  const [options, setOptions] = useState<SdOptions | null>(null)
  const [mode, setMode] = useState<SdMode>('txt2img')
  const [picture, setPicture] = useState<Img2ImgValue>(IMG2IMG_START)
  const [prompt, setPrompt] = useState('')
  const [negative, setNegative] = useState('')
  const [size, setSize] = useState<{ width: number; height: number }>({ width: 512, height: 512 })
  const [steps, setSteps] = useState(20)
  const [cfg, setCfg] = useState(7)
  const [sampler, setSampler] = useState('')
  const [seed, setSeed] = useState('')
  const [busy, setBusy] = useState(false)
  const [jobs, setJobs] = useState<string[]>([])
  const [open, setOpen] = useState<PaintingTask | null>(null)
  const tasks = useStore($paintingTasks)
  const ids = useId()

  useEffect(() => {
    painting.sdOptions().then((o) => {
      setOptions(o)
      setSize({ width: o.defaults.width, height: o.defaults.height })
      setSteps(o.defaults.steps)
      setCfg(o.defaults.cfgScale)
      setSampler(o.defaults.sampler)
    }, notifyError)
  }, [])

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (busy) return
    if (!prompt.trim()) return toast('请输入画面描述', 'warning')
    const seedNumber = seed.trim() === '' ? undefined : Number(seed)
    if (seedNumber !== undefined && !(Number.isInteger(seedNumber) && seedNumber >= 0 && seedNumber <= 4294967295))
      return toast('种子必须是 0–4294967295 之间的整数', 'warning')
    if (mode !== 'txt2img') {
      if (picture.uploading) return toast('原图还在上传，请稍候', 'warning')
      if (!picture.image) return toast('请先上传原图', 'warning')
      if (mode === 'inpaint' && !picture.mask) return toast('请先涂抹要重绘的区域', 'warning')
    }
    setBusy(true)
    try {
      const common = {
        prompt: prompt.trim(),
        ...(negative.trim() ? { negativePrompt: negative.trim() } : {}),
        steps,
        cfgScale: cfg,
        sampler,
        ...(seedNumber !== undefined ? { seed: seedNumber } : {})
      }
      const task = putTask(
        mode === 'txt2img'
          ? await painting.txt2img({ ...common, width: size.width, height: size.height })
          : await painting.img2img({
              ...common,
              image: picture.image!,
              denoisingStrength: picture.denoisingStrength,
              ...(mode === 'inpaint' ? { mask: picture.mask!, inpaintingFill: picture.inpaintingFill, maskBlur: picture.maskBlur } : {})
            })
      )
      setJobs((list) => [task.taskId, ...list.filter((id) => id !== task.taskId)].slice(0, PAINTING_LIMITS.workList))
      // The server picks the painter per task (a channel added or disabled since the page opened): the badge follows.
      setOptions((o) => (o && o.demo !== task.demo ? { ...o, demo: task.demo } : o))
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  const shown = open ? (tasks[open.taskId] ?? open) : null

  return (
    <div className="max-w-6xl mx-auto grid gap-5 cq-lg:grid-cols-[minmax(300px,380px)_1fr] items-start">
      <form onSubmit={submit} aria-label="SD 绘画" className="rounded-card border border-line bg-surface p-4 space-y-4 cq-lg:sticky cq-lg:top-20" noValidate>
        <div className="flex items-center gap-2">
          <h2 className="text-lg font-semibold">SD 绘画</h2>
          {options?.demo && (
            <span className="px-2 py-0.5 rounded-full border border-line text-xs text-muted" title="未配置 Stable Diffusion 服务，由离线演示画师绘制">
              演示模式
            </span>
          )}
        </div>
        <fieldset className="grid grid-cols-3 gap-1 p-1 rounded-lg bg-raised">
          <legend className="sr-only">SD 模式</legend>
          {SD_MODES.map(([value, label]) => (
            <label
              key={value}
              className={`h-8 grid place-items-center rounded-md text-sm font-medium cursor-pointer has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-primary ${
                mode === value ? 'bg-primary text-primary-ink' : 'text-muted hover:text-ink'
              }`}
            >
              <input
                type="radio"
                name="sd-mode"
                checked={mode === value}
                onChange={() => {
                  setMode(value)
                  if (value === 'txt2img') setPicture(IMG2IMG_START)
                }}
                className="sr-only"
              />
              {label}
            </label>
          ))}
        </fieldset>
        {!options && <Spinner label="加载参数" />}
        {mode !== 'txt2img' && <Img2ImgFields inpaint={mode === 'inpaint'} value={picture} onChange={setPicture} />}
        <Row label="画面描述（提示词）" htmlFor={`${ids}-p`}>
          <textarea
            id={`${ids}-p`}
            data-testid="sd-prompt"
            rows={4}
            value={prompt}
            maxLength={PAINTING_LIMITS.promptMax}
            onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)}
            placeholder="例如：masterpiece, a girl in a garden, soft light"
            className="w-full rounded-lg border border-line bg-raised p-3 text-sm text-ink placeholder:text-muted outline-none focus:border-primary resize-y"
          />
        </Row>
        <Row label="反向提示词（不想出现的内容）" htmlFor={`${ids}-n`}>
          <textarea
            id={`${ids}-n`}
            rows={2}
            value={negative}
            maxLength={PAINTING_LIMITS.promptMax}
            onInput={(e) => setNegative((e.target as HTMLTextAreaElement).value)}
            placeholder="例如：lowres, blurry, bad hands"
            className="w-full rounded-lg border border-line bg-raised p-3 text-sm text-ink placeholder:text-muted outline-none focus:border-primary resize-y"
          />
        </Row>
        {options && mode === 'txt2img' && (
          <fieldset>
            <legend className="mb-1 text-xs text-muted">尺寸</legend>
            <div className="grid grid-cols-3 gap-2">
              {options.sizes.map((s) => {
                const on = s.width === size.width && s.height === size.height
                return (
                  <label
                    key={`${s.width}x${s.height}`}
                    className={`rounded-lg border px-1 py-1.5 text-center text-xs cursor-pointer has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-primary ${
                      on ? 'border-primary bg-primary/15 text-primary' : 'border-line text-muted hover:text-ink'
                    }`}
                  >
                    <input type="radio" name="sd-size" checked={on} onChange={() => setSize({ width: s.width, height: s.height })} className="sr-only" />
                    <span className="block font-medium">{s.label}</span>
                    <span className="block tabular-nums">
                      {s.width}×{s.height}
                    </span>
                  </label>
                )
              })}
            </div>
          </fieldset>
        )}
        <Row label="采样步数" value={steps} htmlFor={`${ids}-steps`}>
          <input
            id={`${ids}-steps`}
            type="range"
            min={1}
            max={PAINTING_LIMITS.sdStepsMax}
            value={steps}
            onInput={(e) => setSteps(Number((e.target as HTMLInputElement).value))}
            className="w-full accent-primary"
          />
        </Row>
        <Row label="提示词相关性 CFG" value={cfg} htmlFor={`${ids}-cfg`}>
          <input
            id={`${ids}-cfg`}
            type="range"
            min={1}
            max={PAINTING_LIMITS.sdCfgMax}
            step={0.5}
            value={cfg}
            onInput={(e) => setCfg(Number((e.target as HTMLInputElement).value))}
            className="w-full accent-primary"
          />
        </Row>
        <div className="grid grid-cols-2 gap-3">
          <Row label="采样器" htmlFor={`${ids}-sampler`}>
            <select id={`${ids}-sampler`} value={sampler} onChange={(e) => setSampler((e.target as HTMLSelectElement).value)} className={inputClass}>
              {(options?.samplers ?? []).map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </Row>
          <Row label="种子（留空随机）" htmlFor={`${ids}-seed`}>
            <input
              id={`${ids}-seed`}
              type="number"
              inputMode="numeric"
              min={0}
              value={seed}
              placeholder="随机"
              onInput={(e) => setSeed((e.target as HTMLInputElement).value)}
              className={inputClass}
            />
          </Row>
        </div>
        <button
          type="submit"
          disabled={busy || !options}
          aria-busy={busy || undefined}
          className="w-full h-11 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110 disabled:opacity-50 inline-flex items-center justify-center gap-2"
        >
          {busy && <span className="lx-spinner" style={{ width: 16, height: 16, borderWidth: 2 }} aria-hidden="true" />}
          {busy ? '正在提交…' : '生成'}
        </button>
      </form>
      <div className="min-w-0 space-y-6">
        <section aria-labelledby="lx-sd-work">
          <h2 id="lx-sd-work" className="text-lg font-semibold">
            本次创作
          </h2>
          {jobs.length === 0 ? (
            <p className="mt-3 rounded-card border border-dashed border-line p-8 text-center text-sm text-muted">设置好参数后点「生成」，图片会出现在这里。</p>
          ) : (
            <ol className="mt-3 space-y-3" data-testid="sd-work-list">
              {jobs.map((id) => (
                <li key={id}>
                  <TaskCard taskId={id} onOpen={setOpen} />
                </li>
              ))}
            </ol>
          )}
        </section>
        <History kind="sd" onOpen={setOpen} />
      </div>
      <Lightbox
        image={
          shown?.imageUrl
            ? {
                url: shown.imageUrl,
                width: shown.width,
                height: shown.height,
                prompt: shown.prompt,
                fileName: imageFileName(shown),
                demo: shown.demo,
                caption: shown.width && shown.height ? `${shown.width}×${shown.height}` : undefined
              }
            : null
        }
        onClose={() => setOpen(null)}
        actions={shown && <PublishButton task={shown} />}
      />
    </div>
  )
}
