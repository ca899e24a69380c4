import { lazy, Suspense, useEffect, useState } from 'react'
import { ImagePicker } from './image-picker'

// The picture part of SD's 图生图 and 局部重绘: the source picture, how much is redrawn, and for
// inpaint the mask (the same lazy editor as Midjourney's vary region), its fill and edge blur.

const MaskEditor = lazy(() => import('./mask-editor'))

export interface Img2ImgValue {
  image: string | null
  mask: string | null
  denoisingStrength: number
  inpaintingFill: number
  maskBlur: number
  uploading: boolean
}

export const IMG2IMG_START: Img2ImgValue = { image: null, mask: null, denoisingStrength: 0.6, inpaintingFill: 1, maskBlur: 4, uploading: false }

const FILLS: [number, string][] = [
  [1, '保留原图内容'],
  [0, '用周围颜色填充'],
  [2, '潜空间噪声'],
  [3, '潜空间空白']
]

export function Img2ImgFields({ inpaint, value, onChange }: { inpaint: boolean; value: Img2ImgValue; onChange(next: Img2ImgValue): void }) {
  const [size, setSize] = useState<{ width: number; height: number } | null>(null)
  const [editing, setEditing] = useState(false)
  const set = (patch: Partial<Img2ImgValue>) => onChange({ ...value, ...patch })

  // The mask is made at the picture's own size.
  useEffect(() => {
    setSize(null)
    if (!value.image) return
    const img = new Image()
    img.onload = () => setSize({ width: img.naturalWidth, height: img.naturalHeight })
    img.src = value.image
  }, [value.image])

  return (
    <div className="space-y-3">
      <ImagePicker
        max={1}
        label="上传原图"
        testId="sd-image-picker"
        hint="重绘以这张图为基础，输出与它同样的比例"
        onChange={(urls, running) => set({ image: urls[0] ?? null, mask: null, uploading: running })}
      />
      <label className="block text-xs">
        <span className="flex justify-between text-muted">
          重绘幅度 <span className="text-ink tabular-nums">{value.denoisingStrength.toFixed(2)}</span>
        </span>
        <input
          type="range"
          min={0}
          max={1}
          step={0.05}
          value={value.denoisingStrength}
          onInput={(e) => set({ denoisingStrength: Number((e.target as HTMLInputElement).value) })}
          className="w-full accent-primary"
        />
      </label>
      {inpaint && (
        <>
          <div className="flex items-center gap-2">
            <button
              type="button"
              disabled={!value.image || !size}
              onClick={() => setEditing(true)}
              data-testid="sd-mask-open"
              className="h-9 px-3 rounded-md border border-line text-sm hover:border-primary disabled:opacity-50"
            >
              {value.mask ? '重新涂抹蒙版' : '涂抹蒙版'}
            </button>
            <span className="text-xs text-muted" data-testid="sd-mask-state">
              {value.mask ? '已涂抹，只重绘涂抹区域' : value.image ? '请涂抹要重绘的区域' : '先上传原图'}
            </span>
          </div>
          <div className="grid grid-cols-2 gap-3">
            <label className="block text-xs text-muted">
              蒙版区域起点
              <select
                value={value.inpaintingFill}
                onChange={(e) => set({ inpaintingFill: Number((e.target as HTMLSelectElement).value) })}
                className="mt-1 h-9 w-full rounded-lg border border-line bg-raised px-2 text-sm text-ink"
              >
                {FILLS.map(([n, label]) => (
                  <option key={n} value={n}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            <label className="block text-xs text-muted">
              边缘模糊 {value.maskBlur}px
              <input
                type="range"
                min={0}
                max={64}
                value={value.maskBlur}
                onInput={(e) => set({ maskBlur: Number((e.target as HTMLInputElement).value) })}
                className="mt-3 w-full accent-primary"
              />
            </label>
          </div>
        </>
      )}
      {editing && value.image && size && (
        <Suspense fallback={<div className="fixed inset-0 z-50 bg-black/50" aria-busy="true" />}>
          <MaskEditor
            imageUrl={value.image}
            width={size.width}
            height={size.height}
            title="涂抹要重绘的区域"
            submitLabel="使用这个蒙版"
            onCancel={() => setEditing(false)}
            onDone={(mask) => {
              set({ mask })
              setEditing(false)
            }}
          />
        </Suspense>
      )}
    </div>
  )
}
