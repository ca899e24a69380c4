import { lazy, Suspense } from 'react'
import { deferred } from '../deferred'

// The only eager part of export and share: where the dialog renders, in the topic list whose item
// opened it (a bubble whose drawer was never opened loads none of this). Everything else (the
// dialog, Markdown and PNG export, share links) loads on first use.

const ShareDialog = lazy(() => deferred(import('./dialog')))

/** The 导出与分享 dialog of a topic. Esc closes the dialog only, not a drawer around the list. */
export function ShareSlot({ topicId, onClose }: { topicId: string; onClose: () => void }) {
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: not a control: it keeps the dialog's Esc from the drawer around it
    <div onKeyDown={(e) => e.key === 'Escape' && e.stopPropagation()}>
      <Suspense fallback={null}>
        <ShareDialog topicId={topicId} onClose={onClose} />
      </Suspense>
    </div>
  )
}
