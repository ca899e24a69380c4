import type { ReactNode } from 'react'
import { IconButton } from './glyphs'
import { t } from './i18n'

/** What the bubble's panel gives its header: close, and the notice shown under it (bubble.tsx). */
export interface PanelProps {
  onClose: () => void
  notice?: ReactNode
}

/**
 * The bubble panel's header: 灵犀 AI (and what is open under it), the panel's buttons, close; the
 * notice (公告, announcement.tsx) under it, between the header and the messages.
 */
export function PanelHeader({ subtitle, lead, onClose, notice, children }: PanelProps & { subtitle?: string; lead?: ReactNode; children?: ReactNode }) {
  return (
    <>
      <header part="panel-header" className="h-14 shrink-0 flex items-center gap-0.5 pl-2 pr-2 border-b border-line bg-surface">
        {lead}
        <div className="min-w-0 flex-1 px-2">
          <h2 className="truncate font-semibold leading-5">{t('灵犀 AI')}</h2>
          {subtitle && <p className="truncate text-xs text-muted leading-4">{subtitle}</p>}
        </div>
        {children}
        <IconButton icon="close" label="关闭对话" onClick={onClose} />
      </header>
      {notice}
    </>
  )
}
