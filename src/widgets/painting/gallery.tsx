import { useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import { Spinner } from '../../ui/icons'
import { usePagedList } from '../../ui/use-paged-list'
import { Lightbox } from './lightbox'
import { painting, PAINTING_LIMITS, sendPromptToMj, type GalleryWork } from './state'

/** /gallery: published works in a masonry grid that loads more as it scrolls; 做同款 takes a prompt to /mj. */
export default function GalleryView() {
  const [state, works] = usePagedList({ load: (pageNum) => painting.gallery(pageNum, PAINTING_LIMITS.galleryPageSize), key: (w: GalleryWork) => w.workId })
  const page = state.loaded ? state : null
  const { loading } = state
  const [open, setOpen] = useState<GalleryWork | null>(null)
  const sentinel = useRef<HTMLDivElement>(null)

  useEffect(() => {
    void works.reload()
  }, [])

  const more = page !== null && page.list.length < page.total

  // Infinite scroll: the sentinel under the grid asks for the next page as it comes into view.
  // Observed anew after each page, so a sentinel still in view asks for the next one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: page?.pageNum: observed anew after each page (above)
  useEffect(() => {
    const el = sentinel.current
    if (!el || !more || typeof IntersectionObserver === 'undefined') return
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) void works.more()
      },
      { rootMargin: '600px 0px' }
    )
    observer.observe(el)
    return () => observer.disconnect()
  }, [more, page?.pageNum])

  async function unpublish(work: GalleryWork) {
    try {
      await painting.unpublish(work.taskId)
      works.update((list) => list.filter((w) => w.workId !== work.workId), -1)
      setOpen(null)
      toast('已从画廊撤下', 'success')
    } catch (error) {
      notifyError(error)
    }
  }

  return (
    <section aria-labelledby="lx-gallery-title" className="max-w-7xl mx-auto">
      <div className="flex items-center gap-2">
        <h2 id="lx-gallery-title" className="text-xl font-bold">
          画廊
        </h2>
        {page && <span className="text-sm text-muted">共 {page.total} 幅作品</span>}
        <button type="button" onClick={() => works.reload()} className="ml-auto h-8 px-3 rounded-md text-sm text-muted hover:text-ink hover:bg-raised">
          刷新
        </button>
      </div>
      {!page && loading && <Spinner label="加载画廊" />}
      {page && page.list.length === 0 && <p className="py-16 text-center text-muted">还没有公开的作品。在 AI 绘画里打开一张图，点「发布到画廊」吧。</p>}
      <ul className="mt-4 columns-2 sm:columns-3 lg:columns-4 gap-3" aria-busy={loading || undefined} data-testid="gallery-grid">
        {page?.list.map((w) => (
          <li key={w.workId} className="mb-3 break-inside-avoid" data-testid="gallery-item">
            <figure className="rounded-lg overflow-hidden border border-line bg-surface">
              <button
                type="button"
                onClick={() => setOpen(w)}
                aria-label={`查看作品：${w.prompt}`}
                className="block w-full bg-raised"
                style={{ aspectRatio: w.width && w.height ? `${w.width} / ${w.height}` : undefined }}
              >
                <img
                  src={w.imageUrl}
                  srcSet={w.thumbUrl && w.width ? `${w.thumbUrl} 160w, ${w.imageUrl} ${w.width}w` : undefined}
                  sizes="(min-width: 1024px) 25vw, (min-width: 640px) 33vw, 50vw"
                  width={w.width || undefined}
                  height={w.height || undefined}
                  alt={w.prompt}
                  loading="lazy"
                  className="block w-full h-auto"
                />
              </button>
              <figcaption className="p-2 text-xs">
                <p className="line-clamp-2 break-words text-ink/90">{w.prompt}</p>
                <p className="mt-1 flex items-center gap-1 text-muted">
                  <span className="truncate">{w.author}</span>
                  {w.mine && <span className="text-primary">· 我的</span>}
                  <button type="button" onClick={() => sendPromptToMj(w.prompt)} className="ml-auto shrink-0 px-2 h-6 rounded text-primary hover:bg-primary/10">
                    做同款
                  </button>
                </p>
              </figcaption>
            </figure>
          </li>
        ))}
      </ul>
      <div ref={sentinel} aria-hidden="true" className="h-px" />
      {more && (
        <div className="mt-4 text-center">
          <button
            type="button"
            onClick={() => works.more()}
            aria-disabled={loading}
            className="h-10 px-6 rounded-lg border border-line hover:border-primary hover:text-primary"
          >
            {loading ? '加载中…' : '加载更多'}
          </button>
        </div>
      )}
      <Lightbox
        image={
          open
            ? {
                url: open.imageUrl,
                width: open.width,
                height: open.height,
                prompt: open.prompt,
                fileName: `lingxi-${open.workId}.png`,
                caption: `作者 ${open.author} · ${new Date(open.publishTime).toLocaleDateString('zh-CN')}`
              }
            : null
        }
        onClose={() => setOpen(null)}
        actions={
          open && (
            <>
              <button
                type="button"
                onClick={() => {
                  const prompt = open.prompt
                  setOpen(null)
                  sendPromptToMj(prompt)
                }}
                className="h-10 px-4 rounded-lg border border-primary text-primary hover:bg-primary/10"
              >
                做同款
              </button>
              {open.mine && (
                <button
                  type="button"
                  onClick={() => unpublish(open)}
                  className="h-10 px-4 rounded-lg border border-line text-muted hover:text-danger hover:border-danger"
                >
                  从画廊撤下
                </button>
              )}
            </>
          )
        }
      />
    </section>
  )
}
