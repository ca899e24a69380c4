import { useEffect, useState } from 'react'
import { notifyError } from '../../../core/api'
import { Dialog } from '../../../ui/dialog'
import { t } from '../i18n'
import { type ChatAttachment, objectUrl, say, size } from './upload'

// A user message's files in the history: images as thumbnails (a click shows them whole),
// documents as chips (a click downloads them). The files are served to their owner only, so
// they are fetched with the login and shown from object URLs. Loaded when a message has files.

function useObjectUrl(path: string | null): string | null {
  const [url, setUrl] = useState<string | null>(null)
  useEffect(() => {
    if (!path) return
    let live = true
    objectUrl(path).then(
      (u) => live && setUrl(u),
      () => {}
    )
    return () => {
      live = false
    }
  }, [path])
  return url
}

function Thumb({ file, onOpen }: { file: ChatAttachment; onOpen: () => void }) {
  const url = useObjectUrl(file.thumbUrl ?? file.url)
  const label = say('查看图片「{s}」', { s: file.name })
  return (
    <button
      type="button"
      onClick={onOpen}
      aria-label={label}
      title={file.name}
      data-testid="attachment-image"
      className="size-24 shrink-0 overflow-hidden rounded-lg border border-line bg-raised hover:border-primary"
    >
      {url && <img src={url} alt={file.name} className="size-full object-cover" />}
    </button>
  )
}

async function download(file: ChatAttachment) {
  try {
    const a = document.createElement('a')
    a.href = await objectUrl(file.url)
    a.download = file.name
    a.click()
  } catch (error) {
    notifyError(error)
  }
}

function Chip({ file }: { file: ChatAttachment }) {
  const about = [size(file.size), file.pages ? say('{n} 页', { n: file.pages }) : null].filter(Boolean).join(' · ')
  return (
    <button
      type="button"
      onClick={() => void download(file)}
      title={say('下载「{s}」', { s: file.name })}
      data-testid="attachment-document"
      className="flex max-w-56 items-center gap-2 rounded-lg border border-line bg-surface px-2.5 py-1.5 text-left text-xs hover:border-primary"
    >
      <svg viewBox="0 0 24 24" className="size-4 shrink-0 text-muted" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true">
        <path d="M6 3h8l4 4v14H6z M14 3v4h4 M9 12h6 M9 16h6" strokeLinejoin="round" />
      </svg>
      <span className="min-w-0">
        <span className="block truncate font-medium text-ink">{file.name}</span>
        <span className="block text-muted">{about}</span>
      </span>
    </button>
  )
}

function Full({ file, onClose }: { file: ChatAttachment; onClose: () => void }) {
  const url = useObjectUrl(file.url)
  return (
    <Dialog open onClose={onClose} title={file.name} placement="center" width={960}>
      <div className="grid place-items-center">
        {url ? <img src={url} alt={file.name} className="max-h-[75vh] max-w-full rounded-lg object-contain" /> : <p className="text-muted">{t('加载中…')}</p>}
      </div>
    </Dialog>
  )
}

export default function Attached({ list }: { list: ChatAttachment[] }) {
  const [open, setOpen] = useState<ChatAttachment | null>(null)
  return (
    <div data-testid="attachments" className="mb-1.5 flex flex-wrap items-start justify-end gap-2">
      {list.map((file) =>
        file.kind === 'image' ? <Thumb key={file.attachmentId} file={file} onOpen={() => setOpen(file)} /> : <Chip key={file.attachmentId} file={file} />
      )}
      {open && <Full file={open} onClose={() => setOpen(null)} />}
    </div>
  )
}
