import { useEffect, useRef, useState } from 'react'
import type { ChatMessage } from './state'

/** Where the last whole sentence of `text` ends after `from` (a sentence mark or a line break), or `from`. */
function sentenceEnd(text: string, from: number): number {
  let end = from
  for (let i = from; i < text.length; i++) if ('。！？!?；;\n'.includes(text[i]!)) end = i + 1
  return end
}

/** What a screen reader should say of some markdown: no code fences, emphasis marks or table bars. */
function spoken(markdown: string): string {
  return markdown
    .replace(/```[^\n]*\n?/g, ' ')
    .replace(/[`*_#>|~]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

/**
 * The reply as a screen reader hears it: the conversation's log is not live (its markdown is
 * rendered again as the reply streams, and would be read out again and again), so this polite
 * region gets each whole sentence of a reply once, as it arrives, and the rest when it ends. Only a
 * reply seen streaming, or arriving whole just after the question, is read: not the history.
 */
export function LiveReply({ message }: { message: ChatMessage | undefined }) {
  const [said, setSaid] = useState('')
  const read = useRef<{ id: string | null; at: number; after: string | undefined }>({ id: null, at: 0, after: undefined })
  const id = message?.role === 'assistant' ? message.messageId : null
  const content = message?.content ?? ''
  const streaming = message?.status === 'streaming'
  const role = message?.role
  useEffect(() => {
    const r = read.current
    // what came last before this message: a question just asked is followed by its reply
    const after = r.after
    r.after = role
    if (!id) return
    if (r.id !== id) {
      // a reply seen streaming, or one that came (already whole) right after the question
      if (!streaming && after !== 'user') return
      r.id = id
      r.at = 0
    }
    const end = streaming ? sentenceEnd(content, r.at) : content.length
    if (end <= r.at) return
    const chunk = spoken(content.slice(r.at, end))
    r.at = end
    if (chunk) setSaid(chunk)
  }, [id, content, streaming, role])
  return (
    <p aria-live="polite" data-testid="live-reply" className="sr-only">
      {said}
    </p>
  )
}
