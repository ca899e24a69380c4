import { useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { UPLOAD_ACCEPT, uploadImage } from '../../core/upload'
import { useEffectEvent } from '../../ui/use-effect-event'

interface Item {
  id: number
  name: string
  /** 0..1 while uploading. */
  progress: number
  url: string | null
  thumbUrl: string | null
  error: string | null
  controller: AbortController
}

interface Props {
  /** How many images at most. */
  max: number
  /** Accessible name of the add button, e.g. 上传参考图. */
  label: string
  /** Called with the uploaded images' URLs (in order) and whether uploads are still running. */
  onChange(urls: string[], busy: boolean): void
  /** Hint under the picker. */
  hint?: string
  testId?: string
}

let nextId = 1

/**
 * Picks and uploads images to Lingxi's own storage (uploadImage, purpose `painting`), with a
 * progress bar per file, a remove button, and drop support. Only the URLs that came back from
 * the upload are ever reported, so a job can only reference Lingxi's own storage.
 */
export function ImagePicker({ max, label, onChange, hint, testId }: Props) {
  const [items, setItems] = useState<Item[]>([])
  const input = useRef<HTMLInputElement>(null)
  const [dragging, setDragging] = useState(false)

  const report = useEffectEvent(onChange)
  useEffect(() => {
    const urls = items.filter((i) => i.url).map((i) => i.url!)
    report(
      urls,
      items.some((i) => !i.url && !i.error)
    )
  }, [items])

  // Uploads still running stop when the picker goes (the items of the last render, not the first).
  const abortAll = useEffectEvent(() => {
    for (const i of items) i.controller.abort()
  })
  useEffect(() => () => abortAll(), [])

  const update = (id: number, patch: Partial<Item>) => setItems((list) => list.map((i) => (i.id === id ? { ...i, ...patch } : i)))

  function add(files: File[]) {
    const room = max - items.length
    if (room <= 0) return
    for (const file of files.slice(0, room)) {
      const item: Item = { id: nextId++, name: file.name, progress: 0, url: null, thumbUrl: null, error: null, controller: new AbortController() }
      setItems((list) => [...list, item])
      uploadImage(file, { purpose: 'painting', signal: item.controller.signal, onProgress: (p) => update(item.id, { progress: p }) }).then(
        (image) => update(item.id, { url: image.url, thumbUrl: image.thumbUrl || image.url, progress: 1 }),
        (error: unknown) => {
          if (item.controller.signal.aborted) return
          update(item.id, { error: error instanceof Error && error.message ? error.message : '上传失败' })
          notifyError(error)
        }
      )
    }
  }

  function remove(item: Item) {
    item.controller.abort()
    setItems((list) => list.filter((i) => i.id !== item.id))
  }

  return (
    <div data-testid={testId}>
      <ul className="flex flex-wrap gap-2" aria-label="已选图片">
        {items.map((item, n) => (
          <li key={item.id} className="relative size-20 rounded-lg overflow-hidden border border-line bg-raised">
            {item.thumbUrl ? (
              <img src={item.thumbUrl} alt={`第 ${n + 1} 张：${item.name}`} className="size-full object-cover" />
            ) : (
              <div className="size-full grid place-items-center p-2 text-center text-xs text-muted">
                {item.error ? <span className="text-danger">{item.error}</span> : <span>上传中</span>}
              </div>
            )}
            {!item.url && !item.error && (
              <div
                role="progressbar"
                aria-label={`上传 ${item.name}`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={Math.round(item.progress * 100)}
                className="absolute inset-x-1 bottom-1 h-1.5 rounded-full bg-black/50 overflow-hidden"
              >
                <div className="h-full bg-primary transition-[width]" style={{ width: `${Math.round(item.progress * 100)}%` }} />
              </div>
            )}
            <button
              type="button"
              onClick={() => remove(item)}
              aria-label={`移除第 ${n + 1} 张图片`}
              className="absolute top-0.5 right-0.5 size-6 grid place-items-center rounded-full bg-black/70 text-white text-sm leading-none hover:bg-danger"
            >
              ×
            </button>
          </li>
        ))}
        {items.length < max && (
          <li>
            <button
              type="button"
              onClick={() => input.current?.click()}
              onDragOver={(e) => {
                e.preventDefault()
                setDragging(true)
              }}
              onDragLeave={() => setDragging(false)}
              onDrop={(e) => {
                e.preventDefault()
                setDragging(false)
                add([...(e.dataTransfer?.files ?? [])])
              }}
              className={`size-20 rounded-lg border border-dashed grid place-items-center text-center text-xs px-1 ${
                dragging ? 'border-primary text-primary bg-primary/10' : 'border-line text-muted hover:border-primary hover:text-primary'
              }`}
            >
              <span>
                <span aria-hidden="true" className="block text-xl leading-none">
                  +
                </span>
                {label}
              </span>
            </button>
          </li>
        )}
      </ul>
      <input
        ref={input}
        type="file"
        accept={UPLOAD_ACCEPT}
        multiple={max > 1}
        className="sr-only"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => {
          const target = e.target as HTMLInputElement
          add([...(target.files ?? [])])
          target.value = ''
        }}
      />
      {hint && <p className="mt-1 text-xs text-muted">{hint}</p>}
    </div>
  )
}
