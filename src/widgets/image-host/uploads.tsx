import { useRef, useState } from 'react'
import { UPLOAD_ACCEPT } from '../../core/upload'
import { Icon } from '../../ui/icons'
import { SmallButton } from './buttons'
import { type AlbumFilter, formatBytes } from './state'

/** One file picked, dropped or pasted, from waiting to uploaded (or failed). */
export interface Job {
  id: number
  name: string
  size: number
  file: Blob & { name?: string }
  progress: number
  status: 'waiting' | 'uploading' | 'done' | 'error'
  error?: string
  controller: AbortController
  /** The album shown when it was added: the upload goes into it. */
  album: AlbumFilter
}

/** The upload area: drop files on it, or pick them with its button (paste is the gallery's). */
export function Dropzone({ onFiles }: { onFiles: (files: (Blob & { name?: string })[]) => void }) {
  const [dragging, setDragging] = useState(false)
  const inputRef = useRef<HTMLInputElement>(null)
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping files is the mouse's way; the keyboard's are the 选择图片 button inside and paste
    <div
      part="dropzone"
      data-testid="dropzone"
      onDragOver={(e) => {
        e.preventDefault()
        setDragging(true)
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault()
        setDragging(false)
        onFiles([...(e.dataTransfer?.files ?? [])])
      }}
      className={`mt-4 rounded-2xl border-2 border-dashed px-4 py-5 cq-md:py-10 flex flex-col items-center gap-2 cq-md:gap-3 text-center transition-colors ${
        dragging ? 'border-primary bg-primary/10' : 'border-line bg-surface'
      }`}
    >
      <span className="hidden cq-md:grid size-12 place-items-center rounded-xl bg-primary/15 text-primary">
        <Icon name="image" className="size-6" />
      </span>
      <p className="text-base font-medium">
        <span className="hidden cq-md:inline">拖拽图片到这里，或粘贴（Ctrl+V）上传</span>
        <span className="cq-md:hidden">选择图片上传</span>
      </p>
      <p className="text-xs text-muted">支持 PNG、JPEG、WebP、GIF，单张不超过 10 MB，可一次选择多张</p>
      <button
        type="button"
        onClick={() => inputRef.current?.click()}
        className="mt-1 h-10 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110"
      >
        选择图片
      </button>
      <input
        ref={inputRef}
        type="file"
        multiple
        accept={UPLOAD_ACCEPT}
        aria-hidden="true"
        tabIndex={-1}
        className="sr-only"
        onChange={(e) => {
          const input = e.target as HTMLInputElement
          onFiles([...(input.files ?? [])])
          input.value = ''
        }}
      />
    </div>
  )
}

/** The uploads in progress, waiting or failed, each with its progress bar and a button to cancel or remove it. */
export function UploadQueue({ jobs, onDismiss }: { jobs: Job[]; onDismiss: (job: Job) => void }) {
  if (jobs.length === 0) return null
  return (
    <ul aria-label="上传队列" className="mt-4 rounded-xl border border-line bg-surface divide-y divide-line max-h-72 overflow-y-auto">
      {jobs.map((job) => (
        <li key={job.id} data-testid="upload-job" className="flex items-center gap-3 px-3 py-2">
          <div className="min-w-0 flex-1">
            <div className="flex items-center gap-2 text-sm">
              <span className="truncate">{job.name}</span>
              <span className="shrink-0 text-xs text-muted">{formatBytes(job.size)}</span>
              <span className={`ml-auto shrink-0 text-xs ${job.status === 'error' ? 'text-danger' : job.status === 'done' ? 'text-ok' : 'text-muted'}`}>
                {job.status === 'waiting'
                  ? '等待中'
                  : job.status === 'uploading'
                    ? `${Math.round(job.progress * 100)}%`
                    : job.status === 'done'
                      ? '已上传'
                      : '失败'}
              </span>
            </div>
            {job.status === 'error' ? (
              <p role="alert" className="mt-1 text-xs text-danger">
                {job.error}
              </p>
            ) : (
              <div
                role="progressbar"
                aria-label={`上传 ${job.name}`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={Math.round(job.progress * 100)}
                className="mt-1.5 h-1.5 rounded-full bg-raised overflow-hidden"
              >
                <div
                  className={`h-full rounded-full transition-[width] ${job.status === 'done' ? 'bg-ok' : 'bg-primary'}`}
                  style={{ width: `${Math.round(job.progress * 100)}%` }}
                />
              </div>
            )}
          </div>
          {job.status !== 'done' && (
            <SmallButton label={job.status === 'error' ? `移除 ${job.name}` : `取消上传 ${job.name}`} d="M6 6l12 12M18 6L6 18" onClick={() => onDismiss(job)} />
          )}
        </li>
      ))}
    </ul>
  )
}
