import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { notifyError, request } from '../../core/api'
import { toast } from '../../core/emit'
import { Spinner } from '../../ui/icons'
import { usePagedList } from '../../ui/use-paged-list'
import type { ReportTarget } from '../../ui/report-dialog'
import { Lightbox } from './lightbox'

// 举报 is rare: its dialog loads when first asked for.
const ReportDialog = lazy(() => import('../../ui/report-dialog'))
import { painting, PAINTING_LIMITS, sendPromptToMj, type GalleryWork } from './state'

/** What the gallery shows: newest or 本周最受欢迎, a prompt search, model and aspect, or one author's other works. */
interface GalleryQuery {
  sort: 'new' | 'week'
  keyword: string
  model: '' | 'mj' | 'sd'
  aspect: '' | 'square' | 'landscape' | 'portrait'
  /** The other works of this work's author (the server knows who; the page never does). */
  author: { workId: string; name: string } | null
}

const NO_QUERY: GalleryQuery = { sort: 'new', keyword: '', model: '', aspect: '', author: null }

function loadGallery(pageNum: number, q: GalleryQuery) {
  const body: Record<string, unknown> = { pageNum, pageSize: PAINTING_LIMITS.galleryPageSize, sort: q.sort }
  if (q.keyword.trim()) body.keyword = q.keyword.trim()
  if (q.model) body.model = q.model
  if (q.aspect) body.aspect = q.aspect
  if (q.author) body.sameAuthorAs = q.author.workId
  return request<{ list: GalleryWork[]; total: number; pageNum: number; pageSize: number }>('/gallery/list', body)
}

interface LikeAnswer {
  workId: string
  likes: number
  liked: boolean
}

const field = 'h-9 rounded-lg border border-line bg-raised px-2 text-sm text-ink outline-none focus:border-primary'

/**
 * /gallery: published works in a masonry grid that loads more as it scrolls; search, filters, 本周最受欢迎,
 * likes, an author's other works; 做同款 takes a prompt to /mj.
 */
export default function GalleryView() {
  const [state, works] = usePagedList<GalleryWork, GalleryQuery>({ load: loadGallery, key: (w: GalleryWork) => w.workId })
  const page = state.loaded ? state : null
  const { loading } = state
  const [open, setOpen] = useState<GalleryWork | null>(null)
  const [query, setQuery] = useState<GalleryQuery>(NO_QUERY)
  const [keyword, setKeyword] = useState('')
  const [liking, setLiking] = useState<string | null>(null)
  const [reporting, setReporting] = useState<ReportTarget | null>(null)
  const sentinel = useRef<HTMLDivElement>(null)

  useEffect(() => {
    void works.reload(query)
  }, [query])

  function change(next: Partial<GalleryQuery>) {
    setQuery((q) => ({ ...q, ...next }))
  }

  async function toggleLike(work: GalleryWork) {
    if (liking) return
    setLiking(work.workId)
    try {
      const answer = await request<LikeAnswer>(work.liked ? '/gallery/unlike' : '/gallery/like', { workId: work.workId })
      const apply = (w: GalleryWork) => (w.workId === answer.workId ? { ...w, likes: answer.likes, liked: answer.liked } : w)
      works.update((list) => list.map(apply))
      setOpen((o) => (o ? apply(o) : o))
    } catch (error) {
      notifyError(error)
    } finally {
      setLiking(null)
    }
  }

  function showAuthor(work: GalleryWork) {
    setOpen(null)
    setKeyword('')
    setQuery({ ...NO_QUERY, author: { workId: work.workId, name: work.author } })
  }

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
      if (query.author?.workId === work.workId) setQuery(NO_QUERY)
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
        <button type="button" onClick={() => works.reload(query)} className="ml-auto h-8 px-3 rounded-md text-sm text-muted hover:text-ink hover:bg-raised">
          刷新
        </button>
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <fieldset aria-label="排序" className="flex rounded-lg border border-line p-0.5">
          {(
            [
              ['new', '最新'],
              ['week', '本周最受欢迎']
            ] as const
          ).map(([sort, label]) => (
            <button
              key={sort}
              type="button"
              aria-pressed={query.sort === sort}
              onClick={() => change({ sort })}
              className={`h-8 px-3 rounded-md text-sm ${query.sort === sort ? 'bg-primary text-primary-ink font-semibold' : 'text-muted hover:text-ink'}`}
            >
              {label}
            </button>
          ))}
        </fieldset>
        <form
          aria-label="搜索作品"
          onSubmit={(e) => {
            e.preventDefault()
            change({ keyword })
          }}
          className="flex w-full cq-md:w-auto cq-md:flex-1 cq-md:max-w-sm"
        >
          <input
            type="search"
            value={keyword}
            maxLength={100}
            onInput={(e) => {
              const value = (e.target as HTMLInputElement).value
              setKeyword(value)
              if (!value) change({ keyword: '' })
            }}
            placeholder="搜索提示词"
            aria-label="搜索提示词"
            className={`${field} flex-1 min-w-0 rounded-r-none`}
          />
          <button type="submit" className="h-9 px-3 rounded-r-lg bg-primary text-primary-ink text-sm font-semibold">
            搜索
          </button>
        </form>
        <select
          aria-label="模型"
          value={query.model}
          onChange={(e) => change({ model: (e.target as HTMLSelectElement).value as GalleryQuery['model'] })}
          className={`${field} flex-1 cq-md:flex-none`}
        >
          <option value="">全部模型</option>
          <option value="mj">Midjourney</option>
          <option value="sd">Stable Diffusion</option>
        </select>
        <select
          aria-label="画幅"
          value={query.aspect}
          onChange={(e) => change({ aspect: (e.target as HTMLSelectElement).value as GalleryQuery['aspect'] })}
          className={`${field} flex-1 cq-md:flex-none`}
        >
          <option value="">全部画幅</option>
          <option value="square">方图</option>
          <option value="landscape">横图</option>
          <option value="portrait">竖图</option>
        </select>
      </div>
      {query.author && (
        <p className="mt-3 flex items-center gap-2 text-sm" data-testid="author-filter">
          <span>
            作者 <span className="text-primary">{query.author.name}</span> 的其他作品
          </span>
          <button type="button" onClick={() => change({ author: null })} className="h-7 px-2 rounded-md border border-line text-muted hover:text-ink">
            返回全部作品
          </button>
        </p>
      )}
      {!page && loading && <Spinner label="加载画廊" />}
      {page && page.list.length === 0 && (
        <p className="py-16 text-center text-muted">
          {query.author
            ? '这位作者还没有其他公开的作品。'
            : query.keyword || query.model || query.aspect
              ? '没有符合条件的作品，换个关键词或筛选条件试试。'
              : query.sort === 'week'
                ? '本周还没有作品获得喜欢，去「最新」里为喜欢的作品点个赞吧。'
                : '还没有公开的作品。在 AI 绘画里打开一张图，点「发布到画廊」吧。'}
        </p>
      )}
      <ul className="mt-4 columns-2 cq-md:columns-3 cq-lg:columns-4 gap-3" aria-busy={loading || undefined} data-testid="gallery-grid">
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
                  {w.mine && <span className="text-primary shrink-0">· 我的</span>}
                  <LikeButton work={w} busy={liking === w.workId} onToggle={toggleLike} />
                  <button type="button" onClick={() => sendPromptToMj(w.prompt)} className="shrink-0 px-2 h-6 rounded text-primary hover:bg-primary/10">
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
              <LikeButton work={open} busy={liking === open.workId} onToggle={toggleLike} large />
              {!query.author || query.author.workId !== open.workId ? (
                <button
                  type="button"
                  onClick={() => showAuthor(open)}
                  className="h-10 px-4 rounded-lg border border-line text-ink hover:border-primary hover:text-primary"
                >
                  作者的其他作品
                </button>
              ) : null}
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
              {!open.mine && (
                <button
                  type="button"
                  onClick={() => {
                    setReporting({ kind: 'painting', itemId: open.workId })
                    setOpen(null)
                  }}
                  className="h-10 px-4 rounded-lg border border-line text-muted hover:text-danger hover:border-danger"
                >
                  举报
                </button>
              )}
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
      {reporting && (
        <Suspense fallback={null}>
          <ReportDialog target={reporting} onClose={() => setReporting(null)} />
        </Suspense>
      )}
    </section>
  )
}

/** 喜欢: a toggle with the count; one per account (the server counts), pressed while the account likes it. */
function LikeButton({ work, busy, onToggle, large }: { work: GalleryWork; busy: boolean; onToggle: (w: GalleryWork) => void; large?: boolean }) {
  return (
    <button
      type="button"
      aria-pressed={work.liked}
      aria-label={`喜欢，${work.likes} 人喜欢`}
      aria-disabled={busy || undefined}
      onClick={() => onToggle(work)}
      data-testid="like"
      className={`ml-auto shrink-0 flex items-center gap-1 rounded ${large ? 'h-10 px-4 border border-line' : 'h-6 px-1.5'} ${
        work.liked ? 'text-danger' : 'text-muted hover:text-ink'
      }`}
    >
      <svg viewBox="0 0 24 24" className="size-4" aria-hidden="true">
        <path
          d="M12 20s-7-4.4-7-10a4 4 0 0 1 7-2.6A4 4 0 0 1 19 10c0 5.6-7 10-7 10z"
          fill={work.liked ? 'currentColor' : 'none'}
          stroke="currentColor"
          strokeWidth="2"
          strokeLinejoin="round"
        />
      </svg>
      <span className="tabular-nums">{work.likes}</span>
    </button>
  )
}
