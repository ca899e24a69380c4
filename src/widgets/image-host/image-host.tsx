import { useStore } from '@nanostores/react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { ApiError, notifyError } from '../../core/api'
import { confirm } from '../../core/emit'
import { $token } from '../../core/stores'
import { uploadImage } from '../../core/upload'
import { UNAUTHORIZED_CODES } from '../../core/wire'
import type { ElementProps } from '../../ui/define'
import { Icon, Spinner } from '../../ui/icons'
import { Canvas } from '../../ui/canvas'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { usePagedList } from '../../ui/use-paged-list'
import { useEffectEvent } from '../../ui/use-effect-event'
import { AlbumBar, MoveSelect } from './albums'
import { CopyButtons, SmallButton } from './buttons'
import { Lightbox } from './lightbox'
import { type AlbumFilter, absoluteUrl, deleteImage, formatBytes, type HostedImage, type ImageAlbum, listAlbums, listImages, moveImages } from './state'
import { Dropzone, type Job, UploadQueue } from './uploads'

/** Uploads running at once; the rest wait their turn. */
const PARALLEL = 3
/** How long a finished upload stays in the list. */
const DONE_MS = 2500

/**
 * @summary The image host: upload images by drag and drop, paste or the file picker (several at
 * once, a progress bar each), browse my images, copy a link as URL, Markdown or HTML, preview
 * (arrow keys move, Esc closes) and delete. Logged out, a login prompt.
 * @event lingxi-confirm - (window) Asks before deleting an image.
 * @event lingxi-toast - (window) 已复制到剪切板！ and errors.
 * @csspart base - The element's root, painted with --lingxi-bg over its whole height (padding, corners…).
 * @csspart dropzone - The upload area.
 * @csspart card - One image of the grid.
 * @csspart lightbox - The preview dialog (arrow keys move, Esc closes).
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function ImageHost(_: ElementProps) {
  const token = useStore($token)
  return (
    <Canvas>
      {token ? (
        <Gallery key={token} />
      ) : (
        <LoggedOut icon={<Icon name="image" className="size-7" />} title="登录后使用图床" blurb="拖拽或粘贴上传图片，一键复制链接。" />
      )}
      <InlineLogin />
    </Canvas>
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
  const [preview, setPreview] = useState<number | null>(null)
  const [announce, setAnnounce] = useState('')
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
    <section aria-labelledby="lx-img-title" className="@container max-w-6xl mx-auto">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="lx-img-title" className="text-xl font-bold mr-auto">
          图床
        </h2>
        {page && <p className="text-sm text-muted">共 {page.total} 张</p>}
      </div>

      <Dropzone onFiles={add} />

      <AlbumBar albums={albums} filter={filter} onFilter={showAlbum} onChanged={refreshAlbums} />

      <UploadQueue jobs={jobs} onDismiss={dismiss} />

      <p aria-live="polite" className="sr-only">
        {announce}
      </p>

      {!page && loading && <Spinner label="加载图片" />}
      {page && list.length === 0 && !loading && (
        <p className="py-16 text-center text-muted">{filter === 'all' ? '还没有图片，上传第一张吧。' : '这里还没有图片。'}</p>
      )}
      <ul aria-label="我的图片" aria-busy={loading || undefined} className="mt-5 grid gap-3 grid-cols-2 cq-md:grid-cols-3 cq-lg:grid-cols-4 cq-xl:grid-cols-5">
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
