import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { Row } from './row'
import { type HotSearchHit, searchHot } from './state'

/** What a search of every list found (the server searches the lists it has fetched), each hit with its list and rank. */
export function SearchResults({ query, onRead }: { query: string; onRead: (hit: HotSearchHit) => void }) {
  const [hits, setHits] = useState<HotSearchHit[] | null>(null)
  useEffect(() => {
    let live = true
    setHits(null)
    searchHot(query).then(
      (found) => live && setHits(found),
      (error: unknown) => {
        if (!live) return
        setHits([])
        notifyError(error)
      }
    )
    return () => {
      live = false
    }
  }, [query])

  if (hits === null)
    return (
      <div role="status" className="py-12 grid place-items-center gap-3 text-muted text-sm">
        <span className="lx-spinner" />
        搜索中…
      </div>
    )
  return (
    <div className="mt-4">
      <p role="status" className="mb-2 text-xs text-muted">
        {hits.length === 0 ? `没有找到包含「${query}」的热点` : `在全部热榜中找到 ${hits.length} 条包含「${query}」的热点`}
      </p>
      {hits.length > 0 && (
        <ol aria-label={`「${query}」的搜索结果`} className="flex flex-col divide-y divide-line rounded-card border border-line bg-surface">
          {hits.map((hit) => (
            <Row
              key={`${hit.source.sourceId}:${hit.item.id}`}
              item={hit.item}
              rank={hit.rank}
              from={hit.source.name}
              demo={hit.source.demo || Boolean(hit.item.demo)}
              onRead={() => onRead(hit)}
            />
          ))}
        </ol>
      )}
    </div>
  )
}
