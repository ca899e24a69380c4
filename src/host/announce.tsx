import { useEffect, useState } from 'react'
import { request } from '../core/api'
import { readJson, writeJson } from '../core/storage'
import { Dialog } from '../ui/dialog'
import { SM, useMedia } from '../ui/use-media'
import './rest-css'

// 公告 (issue 17): the operator's notices that run now, each shown once in this browser (the ids
// shown are remembered), one at a time, in a dialog the keyboard and screen readers handle like any
// other (focus moves in, Escape or 知道了 closes it). Loaded after the page's first screen.

export interface Announcement {
  id: number
  title: string
  body: string
}

const SEEN = 'lingxi-announcements-seen'

/** The notices of `list` this browser has not shown yet. */
export function unseen(list: Announcement[], seen: number[] | null): Announcement[] {
  return list.filter((a) => !(seen ?? []).includes(a.id))
}

export default function Announcements({ embed }: { embed?: boolean }) {
  const [queue, setQueue] = useState<Announcement[]>([])
  const wide = useMedia(SM)
  useEffect(() => {
    request<Announcement[]>('/announcements', embed ? { embed } : {}).then(
      (list) => setQueue(unseen(list, readJson<number[]>(SEEN))),
      () => {}
    )
  }, [embed])
  const current = queue[0]
  function dismiss() {
    if (!current) return
    // The last 50 ids are plenty: an announcement that ended is never asked for again.
    writeJson(SEEN, [...(readJson<number[]>(SEEN) ?? []), current.id].slice(-50))
    setQueue((q) => q.slice(1))
  }
  if (!current) return null
  return (
    <Dialog open title={current.title} onClose={dismiss} placement={wide ? 'center' : 'bottom'} width={440} part="announcement">
      <p data-testid="announcement" className="whitespace-pre-line break-words text-sm leading-relaxed">
        {current.body}
      </p>
      <div className="mt-5 flex justify-end">
        <button type="button" onClick={dismiss} data-autofocus className="h-10 px-5 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
          知道了
        </button>
      </div>
    </Dialog>
  )
}
