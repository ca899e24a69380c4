import { useStore } from '@nanostores/react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { ApiError, notifyError } from '../../core/api'
import { confirm } from '../../core/emit'
import { $token } from '../../core/stores'
import { UPLOAD_ACCEPT, uploadImage } from '../../core/upload'
import { UNAUTHORIZED_CODES } from '../../core/wire'
import type { ElementProps } from '../../ui/define'
import type * as On from '../../ui/events'
import { Icon, Spinner } from '../../ui/icons'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { usePagedList } from '../../ui/use-paged-list'
import { useEffectEvent } from '../../ui/use-effect-event'
import { AlbumBar, MoveSelect } from './albums'
import { CopyButtons, SmallButton } from './buttons'
import { Lightbox } from './lightbox'
import { type AlbumFilter, absoluteUrl, deleteImage, formatBytes, type HostedImage, type ImageAlbum, listAlbums, listImages, moveImages } from './state'

/** Uploads running at once; the rest wait their turn. */
const PARALLEL = 3
/** How long a finished upload stays in the list. */
const DONE_MS = 2500

interface Job {
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

/**
 * @summary The image host: upload images by drag and drop, paste or the file picker (several at
 * once, a progress bar each), browse my images, copy a link as URL, Markdown or HTML, preview
 * (arrow keys move, Esc closes) and delete. Logged out, a login prompt.
 * @event lingxi-confirm - (window) Asks before deleting an image.
 * @event lingxi-toast - (window) 已复制到剪切板！ and errors.
 * @csspart dropzone - The upload area.
 * @csspart card - One image of the grid.
 * @csspart lightbox - The preview dialog (arrow keys move, Esc closes).
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function ImageHost(_: ElementProps) {
  const token = useStore($token)
  return (
    <>
      {token ? (
        <Gallery key={token} />
      ) : (
        <LoggedOut icon={<Icon name="image" className="size-7" />} title="登录后使用图床" blurb="拖拽或粘贴上传图片，一键复制链接。" />
      )}
      <InlineLogin />
    </>
  )
}

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.isContentEditable)
}

function Gallery() {
  const [jobs, setJobs] = useState<Job[]>([])
  const [filter, setFilter] = useState<AlbumFilter>('all')
  const [albums, setAlbums] = useState<ImageAlbum[]>([])
  const filterRef = useRef<AlbumFilter>(filter)
  filterRef.current = filter
  const [state, images] = usePagedList({
    load: (pageNum, query: AlbumFilter) => listImages(pageNum, undefined, query),
    key: (i: HostedImage) => i.imageId
  })
  // Shown once the first page arrived, or an upload finished before it.
  const page = state.loaded || state.list.length ? state : null
  const { loading } = state
  const [dragging, setDragging] = useState(false)
  const [preview, setPreview] = useState<number | null>(null)
  const [announce, setAnnounce] = useState('')
  const inputRef = useRef<HTMLInputElement>(null)
  const sentinelRef = useRef<HTMLDivElement>(null)
  const seq = useRef(0)
  const alive = useRef(true)
  const jobsRef = useRef<Job[]>([])
  const started = useRef(new Set<number>())
  jobsRef.current = jobs

  const refreshAlbums = useEffectEvent(async () => {
    try {
      const list = await listAlbums()
      if (alive.current) setAlbums(list)
    } catch (error) {
      notifyError(error)
    }
  })

  useEffect(() => {
    alive.current = true
    void images.reload('all')
    void refreshAlbums()
    return () => {
      alive.current = false
      for (const job of jobsRef.current) job.controller.abort()
    }
  }, [])

  const hasMore = !!page && page.list.length < page.total

  // Infinite scroll: the next page loads when the end of the grid comes into view. Observed anew
  // after each page and load, so an end still in view asks for the next page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: loading, page?.pageNum: observed anew after each page (above)
  useEffect(() => {
    const sentinel = sentinelRef.current
    if (!sentinel || !hasMore || typeof IntersectionObserver === 'undefined') return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void images.more()
    })
    observer.observe(sentinel)
    return () => observer.disconnect()
  }, [hasMore, loading, page?.pageNum])

  function showAlbum(next: AlbumFilter) {
    setFilter(next)
    filterRef.current = next
    void images.reload(next)
  }

  /** Moves an image; it leaves the grid when the grid shows another album. */
  async function move(image: HostedImage, albumId: string | null) {
    try {
      await moveImages([image.imageId], albumId)
      const shown = filterRef.current
      const stays = shown === 'all' || (shown === 'none' ? albumId === null : shown.albumId === albumId)
      images.update(
        (list) => (stays ? list.map((i) => (i.imageId === image.imageId ? { ...i, albumId } : i)) : list.filter((i) => i.imageId !== image.imageId)),
        stays ? 0 : -1
      )
      const album = albums.find((a) => a.albumId === albumId)
      setAnnounce(album ? `已将 ${image.name} 移到「${album.name}」` : `已将 ${image.name} 移出相册`)
      await refreshAlbums()
    } catch (error) {
      notifyError(error)
    }
  }

  function update(id: number, patch: Partial<Job>) {
    if (!alive.current) return
    setJobs((all) => all.map((j) => (j.id === id ? { ...j, ...patch } : j)))
  }

  // Starts waiting jobs while fewer than PARALLEL are running.
  useEffect(() => {
    const running = jobs.filter((j) => j.status === 'uploading').length
    const waiting = jobs.filter((j) => j.status === 'waiting' && !started.current.has(j.id)).slice(0, Math.max(0, PARALLEL - running))
    for (const job of waiting) {
      started.current.add(job.id)
      void run(job)
    }
  }, [jobs])

  const run = useEffectEvent(async (job: Job) => {
    update(job.id, { status: 'uploading' })
    try {
      const image = await uploadImage(job.file, {
        purpose: 'image',
        signal: job.controller.signal,
        onProgress: (progress) => update(job.id, { progress })
      })
      if (!alive.current) return
      // Uploaded while an album is shown: it goes into that album.
      const shown = job.album
      let albumId: string | null = null
      if (typeof shown === 'object') {
        await moveImages([image.imageId], shown.albumId)
        albumId = shown.albumId
        void refreshAlbums()
      }
      if (!alive.current) return
      update(job.id, { status: 'done', progress: 1 })
      setAnnounce(`${job.name} 上传成功`)
      const now = filterRef.current
      if (now === 'all' || (now === 'none' ? albumId === null : now.albumId === albumId))
        images.update((list) => [{ ...image, albumId }, ...list.filter((i) => i.imageId !== image.imageId)], 1)
      setTimeout(() => alive.current && setJobs((all) => all.filter((j) => j.id !== job.id)), DONE_MS)
    } catch (error) {
      if (job.controller.signal.aborted) return
      const message = error instanceof Error && error.message ? error.message : '上传失败，请稍后重试'
      if (error instanceof ApiError && UNAUTHORIZED_CODES.includes(error.code)) notifyError(error)
      update(job.id, { status: 'error', error: message })
      setAnnounce(`${job.name} 上传失败：${message}`)
    }
  })

  const add = useCallback((files: Iterable<Blob & { name?: string }>) => {
    const next: Job[] = []
    for (const file of files) {
      next.push({
        id: ++seq.current,
        name: file.name || '粘贴的图片',
        size: file.size,
        file,
        progress: 0,
        status: 'waiting',
        controller: new AbortController(),
        album: filterRef.current
      })
    }
    if (next.length) setJobs((all) => [...all, ...next])
  }, [])

  function dismiss(job: Job) {
    job.controller.abort()
    setJobs((all) => all.filter((j) => j.id !== job.id))
  }

  // Paste anywhere on the page (outside text fields) uploads the pasted images.
  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      if (isTyping(event.composedPath()[0] ?? event.target)) return
      const files = [...(event.clipboardData?.files ?? [])]
      if (!files.length) return
      event.preventDefault()
      add(files)
    }
    document.addEventListener('paste', onPaste)
    return () => document.removeEventListener('paste', onPaste)
  }, [add])

  function onDrop(event: On.Drag) {
    event.preventDefault()
    setDragging(false)
    add([...(event.dataTransfer?.files ?? [])])
  }

  async function handleDelete(image: HostedImage) {
    if (!(await confirm({ title: '删除图片', message: `确定删除「${image.name}」吗？删除后它的链接将无法访问。`, confirmText: '删除' }))) return
    try {
      await deleteImage(image.imageId)
      images.update((list) => list.filter((i) => i.imageId !== image.imageId), -1)
      if (image.albumId) void refreshAlbums()
      setPreview(null)
      setAnnounce(`已删除 ${image.name}`)
    } catch (error) {
      notifyError(error)
    }
  }

  const list = page?.list ?? []
  return (
    <section aria-labelledby="lx-img-title" className="max-w-6xl mx-auto">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="lx-img-title" className="text-xl font-bold mr-auto">
          图床
        </h2>
        {page && <p className="text-sm text-muted">共 {page.total} 张</p>}
      </div>

      {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping files is the mouse's way; the keyboard's are the 选择图片 button inside and paste */}
      <div
        part="dropzone"
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault()
          setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        className={`mt-4 rounded-2xl border-2 border-dashed px-4 py-5 sm:py-10 flex flex-col items-center gap-2 sm:gap-3 text-center transition-colors ${
          dragging ? 'border-primary bg-primary/10' : 'border-line bg-surface'
        }`}
      >
        <span className="hidden sm:grid size-12 place-items-center rounded-xl bg-primary/15 text-primary">
          <Icon name="image" className="size-6" />
        </span>
        <p className="text-base font-medium">
          <span className="hidden sm:inline">拖拽图片到这里，或粘贴（Ctrl+V）上传</span>
          <span className="sm:hidden">选择图片上传</span>
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
            add([...(input.files ?? [])])
            input.value = ''
          }}
        />
      </div>

      <AlbumBar albums={albums} filter={filter} onFilter={showAlbum} onChanged={refreshAlbums} />

      {jobs.length > 0 && (
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
                <SmallButton
                  label={job.status === 'error' ? `移除 ${job.name}` : `取消上传 ${job.name}`}
                  d="M6 6l12 12M18 6L6 18"
                  onClick={() => dismiss(job)}
                />
              )}
            </li>
          ))}
        </ul>
      )}

      <p aria-live="polite" className="sr-only">
        {announce}
      </p>

      {!page && loading && <Spinner label="加载图片" />}
      {page && list.length === 0 && !loading && (
        <p className="py-16 text-center text-muted">{filter === 'all' ? '还没有图片，上传第一张吧。' : '这里还没有图片。'}</p>
      )}
      <ul aria-label="我的图片" aria-busy={loading || undefined} className="mt-5 grid gap-3 grid-cols-2 sm:grid-cols-3 lg:grid-cols-4 xl:grid-cols-5">
        {list.map((image, index) => (
          <li
            key={image.imageId}
            part="card"
            data-testid="image-card"
            className="flex flex-col rounded-card border border-line bg-surface overflow-hidden hover:border-primary/60"
          >
            <button type="button" onClick={() => setPreview(index)} aria-label={`预览 ${image.name}`} className="block aspect-square bg-raised">
              {image.takedown ? (
                <span className="size-full grid place-items-center text-sm text-danger">已下架</span>
              ) : (
                <img src={absoluteUrl(image.thumbUrl || image.url)} alt={image.name} loading="lazy" className="size-full object-cover" />
              )}
            </button>
            <div className="p-2.5 flex flex-col gap-2">
              {/* the copy buttons get a row of their own: beside the delete button, HTML overflowed a phone's card */}
              <div className="flex items-start gap-1">
                <div className="min-w-0 flex-1">
                  <p className="text-sm truncate" title={image.name}>
                    {image.name}
                  </p>
                  <p className="text-xs text-muted">
                    {image.width}×{image.height} · {formatBytes(image.size)}
                  </p>
                  {image.takedown && <p className="text-xs text-danger break-words">已下架：{image.takedown}</p>}
                </div>
                <SmallButton label={`删除 ${image.name}`} d="M4 7h16 M9 7V4h6v3 M6 7l1 13h10l1-13" onClick={() => handleDelete(image)} danger />
              </div>
              <CopyButtons image={image} compact />
              <MoveSelect image={image} albums={albums} onMove={(albumId) => void move(image, albumId)} />
            </div>
          </li>
        ))}
      </ul>
      {hasMore && (
        <div ref={sentinelRef} className="mt-6 text-center">
          <button
            type="button"
            onClick={() => images.more()}
            aria-disabled={loading}
            className="h-10 px-6 rounded-lg border border-line text-ink hover:border-primary hover:text-primary"
          >
            {loading ? '加载中…' : '加载更多'}
          </button>
        </div>
      )}
      <Lightbox
        images={list}
        index={preview}
        onIndex={setPreview}
        onClose={() => setPreview(null)}
        onDelete={handleDelete}
        actions={(image) => <CopyButtons image={image} />}
      />
    </section>
  )
}
