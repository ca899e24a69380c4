import { useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Submit } from './form-parts'
import { ImagePicker } from './image-picker'
import { painting, PAINTING_LIMITS, submitTask, type BlendDimensions } from './state'

// 识图 (an image to prompts) and 混图 (two to five images into one).

const DIMENSIONS: [BlendDimensions, string][] = [
  ['PORTRAIT', '竖图 2:3'],
  ['SQUARE', '方图 1:1'],
  ['LANDSCAPE', '横图 3:2']
]

export function DescribeForm() {
  const [images, setImages] = useState<string[]>([])
  const [uploading, setUploading] = useState(false)
  const [busy, setBusy] = useState(false)
  const [pickerKey, setPickerKey] = useState(0)

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (busy) return
    if (!images[0]) return toast(uploading ? '图片还在上传，请稍候' : '请先上传一张图片', 'warning')
    setBusy(true)
    try {
      await submitTask(painting.describe(images[0]))
      setPickerKey((k) => k + 1)
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label="识图">
      <p className="mb-3 text-sm text-muted">上传一张图片，得到四条描述它的提示词；点 P1–P4 即可用其中一条绘图。</p>
      <ImagePicker
        key={pickerKey}
        max={1}
        label="上传图片"
        testId="describe-picker"
        onChange={(urls, running) => {
          setImages(urls)
          setUploading(running)
        }}
      />
      <Submit busy={busy} disabled={uploading || images.length === 0}>
        {busy ? '正在提交…' : '识图'}
      </Submit>
    </form>
  )
}

export function BlendForm() {
  const [images, setImages] = useState<string[]>([])
  const [uploading, setUploading] = useState(false)
  const [dimensions, setDimensions] = useState<BlendDimensions>('SQUARE')
  const [busy, setBusy] = useState(false)
  const [pickerKey, setPickerKey] = useState(0)
  const { blendMin, blendMax } = PAINTING_LIMITS

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (busy) return
    if (images.length < blendMin) return toast(`请上传 ${blendMin}–${blendMax} 张图片`, 'warning')
    setBusy(true)
    try {
      await submitTask(painting.blend(images, dimensions))
      setPickerKey((k) => k + 1)
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label="混图">
      <p className="mb-3 text-sm text-muted">
        上传 {blendMin}–{blendMax} 张图片，融合成一组新图。
      </p>
      <ImagePicker
        key={pickerKey}
        max={blendMax}
        label="添加图片"
        testId="blend-picker"
        onChange={(urls, running) => {
          setImages(urls)
          setUploading(running)
        }}
      />
      <fieldset className="mt-4">
        <legend className="mb-1 text-sm font-medium">画面尺寸</legend>
        <div className="grid grid-cols-3 gap-2">
          {DIMENSIONS.map(([value, label]) => (
            <label
              key={value}
              className={`h-9 rounded-lg border grid place-items-center text-sm cursor-pointer has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-primary ${
                dimensions === value ? 'border-primary bg-primary/15 text-primary' : 'border-line text-muted hover:text-ink'
              }`}
            >
              <input type="radio" name="dimensions" value={value} checked={dimensions === value} onChange={() => setDimensions(value)} className="sr-only" />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      <Submit busy={busy} disabled={uploading || images.length < blendMin}>
        {busy ? '正在提交…' : `混图（${images.length} 张）`}
      </Submit>
    </form>
  )
}
