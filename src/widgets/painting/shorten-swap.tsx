import { useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Submit } from './form-parts'
import { ImagePicker } from './image-picker'
import { painting, PAINTING_LIMITS, submitTask } from './state'

// 精简 (a long prompt into shorter ones to pick from) and 换脸 (a face onto another picture); the
// composer shows each only when the configured upstream offers it (painting/features).

export function ShortenForm() {
  const [prompt, setPrompt] = useState('')
  const [busy, setBusy] = useState(false)

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (busy) return
    // Read from the box: a submit right after typing must not see an older render's text.
    const text = (event.currentTarget.elements.namedItem('prompt') as HTMLTextAreaElement).value.trim()
    if (!text) return toast('请先输入要精简的提示词', 'warning')
    setBusy(true)
    try {
      await submitTask(painting.shorten(text))
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label="精简提示词">
      <p className="mb-3 text-sm text-muted">把很长的提示词交给 Midjourney 分析，得到几条更短的写法；点 P1、P2… 即可用其中一条绘图。</p>
      <textarea
        name="prompt"
        rows={5}
        value={prompt}
        maxLength={PAINTING_LIMITS.promptMax}
        onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)}
        aria-label="要精简的提示词"
        data-testid="shorten-prompt"
        placeholder="例如：a very beautiful red fox, sitting in the snow, highly detailed, cinematic light"
        className="w-full rounded-lg border border-line bg-raised p-3 text-sm text-ink placeholder:text-muted outline-none focus:border-primary resize-y"
      />
      <Submit busy={busy}>{busy ? '正在提交…' : '精简'}</Submit>
    </form>
  )
}

export function SwapFaceForm() {
  const [face, setFace] = useState<string | null>(null)
  const [target, setTarget] = useState<string | null>(null)
  const [uploading, setUploading] = useState({ face: false, target: false })
  const [busy, setBusy] = useState(false)
  const [pickerKey, setPickerKey] = useState(0)

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (busy) return
    if (!face || !target) return toast(uploading.face || uploading.target ? '图片还在上传，请稍候' : '请上传人脸图片和目标图片', 'warning')
    setBusy(true)
    try {
      await submitTask(painting.swapFace(face, target))
      setPickerKey((k) => k + 1)
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label="换脸">
      <p className="mb-3 text-sm text-muted">把第一张图中的人脸换到第二张图上。请只使用你有权使用的照片。</p>
      <div className="grid grid-cols-2 gap-3">
        <ImagePicker
          key={`f${pickerKey}`}
          max={1}
          label="上传人脸图片"
          hint="人脸"
          onChange={(urls, running) => {
            setFace(urls[0] ?? null)
            setUploading((u) => ({ ...u, face: running }))
          }}
        />
        <ImagePicker
          key={`t${pickerKey}`}
          max={1}
          label="上传目标图片"
          hint="目标"
          onChange={(urls, running) => {
            setTarget(urls[0] ?? null)
            setUploading((u) => ({ ...u, target: running }))
          }}
        />
      </div>
      <Submit busy={busy} disabled={!face || !target}>
        {busy ? '正在提交…' : '换脸'}
      </Submit>
    </form>
  )
}
