import { useStore } from '@nanostores/react'
import { atom } from 'nanostores'
import { useEffect } from 'react'
import { ApiError } from '../../../core/api'
import { MSG_SYSTEM_ERROR } from '../../../core/messages'
import { Glyph } from '../glyphs'
import { t } from '../i18n'
import { $activeTopicId, $chatConfig, $topics, outbox } from '../state'
import { ACCEPT, type ChatAttachment, check, type Kind, MAX_FILES, say, size, upload } from './upload'

// The files waiting in the composer: chosen (pick button, paste, drop), checked here, uploaded
// at once with their progress, shown as thumbnails and chips with a remove button, and handed to
// the next question (`stage`). The composer loads this module on its first use.

interface Item {
  id: string
  name: string
  size: number
  kind: Kind
  /** Images: an object URL of the local file, for the thumbnail. */
  preview: string | null
  /** 0–1 while uploading; 1 when done. */
  progress: number
  attachment: ChatAttachment | null
  error: string | null
  controller: AbortController
}

export const $items = atom<Item[]>([])
/** Why the last files could not be added, or why the question cannot go yet. */
export const $refusal = atom<string | null>(null)

let next = 0

/** The model of the conversation shown (or the default for a new one), and whether it takes images. */
export function currentModel(): { name: string; vision: boolean } {
  const config = $chatConfig.get()
  const id = $topics.get()?.find((t) => t.topicId === $activeTopicId.get())?.model ?? config?.defaultModel
  const model = config?.models.find((m) => m.id === id) as { name?: string; vision?: boolean } | undefined
  return { name: model?.name ?? id ?? t('当前模型'), vision: model?.vision === true }
}

export const noVision = (name: string) => say('模型「{s}」不能识别图片：请移除图片，或在对话设置里换用支持识图的模型', { s: name })

function patch(id: string, change: Partial<Item>) {
  $items.set($items.get().map((item) => (item.id === id ? { ...item, ...change } : item)))
}

/** Checks each file and starts its upload; refusals show above the field. No files: the picker opens. */
export async function add(files?: Iterable<File>): Promise<void> {
  if (!files) return pick()
  const refused: string[] = []
  for (const file of files) {
    if ($items.get().length >= MAX_FILES) {
      refused.push(say('一条消息最多 {n} 个附件', { n: MAX_FILES }))
      break
    }
    const checked = await check(file)
    if ('error' in checked) {
      refused.push(say('「{s}」{e}', { s: file.name, e: checked.error }))
      continue
    }
    if (checked.kind === 'image' && !currentModel().vision) {
      refused.push(noVision(currentModel().name))
      continue
    }
    const item: Item = {
      id: `a${++next}`,
      name: file.name,
      size: file.size,
      kind: checked.kind,
      preview: checked.kind === 'image' ? URL.createObjectURL(file) : null,
      progress: 0,
      attachment: null,
      error: null,
      controller: new AbortController()
    }
    $items.set([...$items.get(), item])
    upload(file, (progress) => patch(item.id, { progress }), item.controller.signal).then(
      (attachment) => patch(item.id, { attachment, progress: 1 }),
      (error: unknown) => {
        if (!item.controller.signal.aborted)
          patch(item.id, { error: error instanceof ApiError || error instanceof Error ? error.message : t(MSG_SYSTEM_ERROR) })
      }
    )
  }
  $refusal.set(refused.length > 0 ? refused.join(t('；')) : null)
}

/** Opens the system's file picker. */
export function pick(): void {
  const input = document.createElement('input')
  input.type = 'file'
  input.multiple = true
  input.accept = ACCEPT
  input.onchange = () => void add([...(input.files ?? [])])
  input.click()
}

export function remove(id: string): void {
  const item = $items.get().find((i) => i.id === id)
  if (!item) return
  item.controller.abort()
  if (item.preview) URL.revokeObjectURL(item.preview)
  $items.set($items.get().filter((i) => i.id !== id))
  $refusal.set(null)
}

/** After the question went: the tray empties. */
export function clear(): void {
  for (const item of $items.get()) if (item.preview) URL.revokeObjectURL(item.preview)
  $items.set([])
  $refusal.set(null)
}

/**
 * Hands the uploaded files to the next sendMessage. false (and the reason shown) while one is
 * still uploading or failed, or an image is there and the model cannot see it; else the text to
 * send when the field is empty ('' when there are no files).
 */
export function stage(): string | false {
  const items = $items.get()
  const refuse = (why: string) => {
    $refusal.set(why)
    return false as const
  }
  if (items.some((i) => i.error)) return refuse(t('有附件上传失败，请移除后再发送'))
  if (items.some((i) => !i.attachment)) return refuse(t('附件还在上传，请稍候'))
  if (items.some((i) => i.kind === 'image') && !currentModel().vision) return refuse(noVision(currentModel().name))
  $refusal.set(null)
  outbox.files = items.map((i) => i.attachment!)
  return items.length > 0 ? t('请看附件') : ''
}

function Chip({ item }: { item: Item }) {
  const uploading = !item.attachment && !item.error
  const label = [item.name, size(item.size), item.error ?? (uploading ? say('上传中 {n}%', { n: Math.round(item.progress * 100) }) : '')]
    .filter(Boolean)
    .join(t('，'))
  return (
    <li data-testid="attachment" data-state={item.error ? 'error' : uploading ? 'uploading' : 'done'} className="relative shrink-0">
      {item.preview ? (
        <img src={item.preview} alt={label} title={label} className="size-16 rounded-lg border border-line object-cover" />
      ) : (
        <span
          title={label}
          className={`flex h-16 w-40 flex-col justify-center rounded-lg border px-2.5 text-xs ${item.error ? 'border-danger text-danger' : 'border-line'}`}
        >
          <span className="truncate font-medium text-ink">{item.name}</span>
          <span className="text-muted">{item.error ?? size(item.size)}</span>
        </span>
      )}
      {uploading && (
        <span
          role="progressbar"
          aria-label={say('上传「{s}」', { s: item.name })}
          aria-valuenow={Math.round(item.progress * 100)}
          className="absolute inset-x-1 bottom-1 h-1 rounded-full bg-raised"
        >
          <span className="block h-full rounded-full bg-primary" style={{ width: `${Math.round(item.progress * 100)}%` }} />
        </span>
      )}
      {item.error && item.preview && <span className="absolute inset-0 grid place-items-center rounded-lg bg-danger/70 text-xs text-white">{t('失败')}</span>}
      <button
        type="button"
        aria-label={say('移除「{s}」', { s: item.name })}
        title={t('移除')}
        onClick={() => remove(item.id)}
        className="absolute -top-1.5 -right-1.5 size-5 grid place-items-center rounded-full border border-line bg-surface text-muted hover:text-danger"
      >
        <Glyph name="close" className="size-3" />
      </button>
    </li>
  )
}

/** The waiting files above the field; `onCount` tells the composer how many there are. */
export function Tray({ onCount }: { onCount: (count: number) => void }) {
  const items = useStore($items)
  const refusal = useStore($refusal)
  // The model may change in the settings, or with the topic: an image it cannot see says so at once.
  useStore($topics)
  useStore($activeTopicId)
  useStore($chatConfig)
  useEffect(() => onCount(items.length), [items.length, onCount])
  const blind = items.some((i) => i.kind === 'image') && !currentModel().vision
  const why = refusal ?? (blind ? noVision(currentModel().name) : null)
  if (items.length === 0 && !why) return null
  return (
    <div className="mb-2">
      {why && (
        <p role="alert" className="mb-2 text-sm text-danger">
          {why}
        </p>
      )}
      {items.length > 0 && (
        <ul aria-label={t('待发送的附件')} className="flex gap-2 overflow-x-auto pt-1.5 pr-1.5">
          {items.map((item) => (
            <Chip key={item.id} item={item} />
          ))}
        </ul>
      )}
    </div>
  )
}
