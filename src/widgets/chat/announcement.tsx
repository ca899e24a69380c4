import { useState } from 'react'
import { readJson, writeJson } from '../../core/storage'
import { Glyph } from './glyphs'
import { t } from './i18n'

// 公告 in the chat bubble (issue 17): the operator's notices marked "also in embeds", loaded only
// when one runs now (bubble.tsx asks on the first opening). A polite notice under the panel's
// header, above the messages (panel-header.tsx), one at a time — never a dialog, never taking the
// focus from the composer; dismissed ones are remembered in this browser under the site's key
// (host/announce.tsx; not imported from there, which would bring its dialog along). Only classes
// the chat's sheet already has, so that the bubble's stylesheet does not grow.

/** What POST /api/v1/announcements lists. */
interface Announcement {
  id: number
  title: string
  body: string
}

const SEEN = 'lingxi-announcements-seen'
const seen = () => readJson<number[]>(SEEN) ?? []

function Notice({ list }: { list: Announcement[] }) {
  const [queue, setQueue] = useState(() => list.filter((a) => !seen().includes(a.id)))
  const current = queue[0]
  if (!current) return null
  return (
    <div role="status" aria-live="polite" part="announcement" className="relative shrink-0 border-b border-line bg-surface py-2.5 pl-4 pr-9 text-sm text-ink">
      <p className="font-semibold">{current.title}</p>
      <p data-testid="announcement" className="break-words text-muted">
        {current.body}
      </p>
      <button
        type="button"
        aria-label={`${t('关闭提示')}：${current.title}`}
        title={t('关闭提示')}
        onClick={() => {
          writeJson(SEEN, [...seen(), current.id].slice(-50))
          setQueue((q) => q.slice(1))
        }}
        className="absolute right-1.5 top-1.5 size-6 grid place-items-center rounded-full text-muted hover:text-ink hover:bg-raised"
      >
        <Glyph name="close" className="size-3.5" />
      </button>
    </div>
  )
}

/** The notice for the announcements the server listed (at least one). */
export const notice = (list: Announcement[]) => <Notice list={list} />
