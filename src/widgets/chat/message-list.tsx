import { lazy, memo, Suspense, useCallback, useContext, useEffect, useLayoutEffect, useRef, useState, type MutableRefObject } from 'react'
import { confirm } from '../../core/emit'
import { copyText } from '../../core/format'
import { Markdown } from '../../ui/markdown'
import type { ReportTarget } from '../../ui/report-dialog'
import { Glyph, IconButton, Logo, RoleAvatar } from './glyphs'
import { LiveReply } from './live-reply'
import { report } from './notice'
import { loadMessages } from './replies'
import { t } from './i18n'
import { ReplyContext } from './reply'
import { deferred } from './deferred'
import { SCROLL_DELAY_MS, type ChatMessage, type Topic, type TopicMessages } from './state'

// The question editor and the ‹ 1/2 › switcher load the first time either shows.
const Edit = lazy(() => deferred(import('./edit')))
// A question's files (thumbnails, chips): with the first message that has any.
const Attached = lazy(() => deferred(import('./attach/history')))
// 举报 a reply to the operators (issue 18): the shared dialog, when asked for.
const Report = lazy(() => deferred(import('../../ui/report-dialog')))

const DEFAULT_EXAMPLES = ['用三句话解释什么是量子计算', '帮我写一封请假邮件，语气礼貌', '推荐几本适合入门的科幻小说', '把「心有灵犀一点通」翻译成英文并解释']
/** How close to the bottom still counts as being there (px). */
const NEAR = 32

interface MessageListProps {
  topic: Topic | null
  messages: TopicMessages | undefined
  examples?: string[]
  /** The line under the greeting (default 有什么可以帮你？试试这些：). */
  welcome?: string
  onExample: (text: string) => void
  /** Filled with a function that scrolls to the newest message. */
  scrollRef: MutableRefObject<() => void>
}

/**
 * The conversation, oldest at the top: older pages load when the top comes into view (the
 * reading position stays put), the view follows a reply as it streams only while the reader is
 * at the bottom, and a button brings the reader back down.
 */
export function MessageList({ topic, messages, examples, welcome, onExample, scrollRef }: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null)
  const content = useRef<HTMLDivElement>(null)
  const sentinel = useRef<HTMLDivElement>(null)
  /** The reader is at the bottom (as of their last scroll). */
  const stick = useRef(true)
  /** scrollTop at the last scroll event (to tell the reader's scrolling from the content's growth). */
  const lastTop = useRef(0)
  const [atBottom, setAtBottom] = useState(true)
  /** Distance from the bottom before an older page was asked for. */
  const anchor = useRef<number | null>(null)
  const firstId = useRef<string | undefined>(undefined)
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const topicId = topic?.topicId ?? null
  const list = messages?.list ?? []
  const lastReply = [...list].reverse().find((m) => m.role === 'assistant')?.messageId

  const toBottom = useCallback(() => {
    const el = scroller.current
    if (!el) return
    el.scrollTop = el.scrollHeight
    stick.current = true
    setAtBottom(true)
  }, [])
  scrollRef.current = toBottom

  /** After the content changed: follow it down, SCROLL_DELAY_MS later, if the reader was there. */
  const follow = useCallback(() => {
    if (!stick.current || pending.current) return
    pending.current = setTimeout(() => {
      pending.current = undefined
      if (stick.current) toBottom()
    }, SCROLL_DELAY_MS)
  }, [toBottom])

  function handleScroll() {
    const el = scroller.current
    if (!el) return
    const bottom = el.scrollHeight - el.scrollTop - el.clientHeight <= NEAR
    // Only the reader lets go of the bottom, by scrolling up: a scroll event that arrives after
    // the streamed text grew again (React renders later than preact) must not.
    const up = el.scrollTop < lastTop.current - 1
    lastTop.current = el.scrollTop
    if (bottom || up) stick.current = bottom
    setAtBottom(bottom || stick.current)
  }

  // Another topic, or its first page: start at the newest message.
  // biome-ignore lint/correctness/useExhaustiveDependencies: topicId, messages?.loaded are what starts it, not what it reads
  useLayoutEffect(() => {
    anchor.current = null
    toBottom()
  }, [topicId, messages?.loaded, toBottom])

  useLayoutEffect(() => {
    const el = scroller.current
    const first = list[0]?.messageId
    if (el && anchor.current !== null && first !== firstId.current) {
      el.scrollTop = el.scrollHeight - anchor.current
      anchor.current = null
    }
    if (!messages?.loading) anchor.current = null
    firstId.current = first
    follow()
  }, [list, messages?.loading, follow])

  // Markdown renders after the text arrives and images load late: follow size changes as well.
  useEffect(() => {
    const el = content.current
    if (!el || typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver(() => follow())
    observer.observe(el)
    return () => {
      observer.disconnect()
      clearTimeout(pending.current)
      pending.current = undefined
    }
  }, [follow])

  // Older messages when the top comes into view. Observed anew after each page, so a page that
  // does not fill the view is followed by the next one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: list.length: observed anew after each page (above)
  useEffect(() => {
    const el = sentinel.current
    const root = scroller.current
    if (!el || !root || !topicId || !messages?.hasMore || messages.loading || typeof IntersectionObserver === 'undefined') return
    const observer = new IntersectionObserver(
      ([entry]) => {
        if (!entry?.isIntersecting) return
        observer.disconnect()
        anchor.current = root.scrollHeight - root.scrollTop
        loadMessages(topicId, { older: true }).catch(report)
      },
      { root, rootMargin: '200px 0px 0px 0px' }
    )
    observer.observe(el)
    return () => observer.disconnect()
  }, [topicId, list.length, messages?.hasMore, messages?.loading])

  const empty = messages?.loaded && list.length === 0
  return (
    <div className="relative flex-1 min-h-0">
      <div ref={scroller} onScroll={handleScroll} className="h-full overflow-y-auto overscroll-contain [overflow-anchor:none] px-3 cq-md:px-6">
        <div ref={sentinel} className="h-px" />
        <div ref={content} className="max-w-3xl mx-auto py-4">
          {empty || !topic ? <Welcome topic={topic} examples={(examples ?? DEFAULT_EXAMPLES).map(t)} welcome={welcome} onExample={onExample} /> : null}
          {/* not live: LiveReply reads a streamed reply out once, sentence by sentence */}
          <div role="log" aria-live="off" aria-label={t('对话消息')} className="flex flex-col gap-6">
            {list.map((m) => (
              <MessageItem key={m.messageId} message={m} last={m.messageId === lastReply} avatar={topic?.roleAvatar ?? null} />
            ))}
          </div>
        </div>
      </div>
      <LiveReply message={list.at(-1)} />
      {messages?.loading && (
        <p role="status" className="absolute top-2 left-1/2 -translate-x-1/2 rounded-full bg-raised px-3 py-1 text-xs text-muted shadow">
          {t('加载中…')}
        </p>
      )}
      {!atBottom && (
        <button
          type="button"
          aria-label={t('回到底部')}
          title={t('回到底部')}
          onClick={toBottom}
          className="absolute bottom-3 right-4 size-9 grid place-items-center rounded-full border border-line bg-surface text-ink shadow-lg hover:text-primary lx-fade-in"
        >
          <Glyph name="down" />
        </button>
      )}
    </div>
  )
}

function Welcome({ topic, examples, welcome, onExample }: { topic: Topic | null; examples: string[]; welcome?: string; onExample: (text: string) => void }) {
  if (topic?.roleId) {
    return (
      <div className="pt-10 pb-6 flex flex-col items-center text-center gap-3">
        <RoleAvatar avatar={topic.roleAvatar ?? '🤖'} className="size-16 text-4xl" />
        <h2 className="text-lg font-semibold">{topic.roleName ?? topic.name}</h2>
        <p className="text-muted">{t('开始和「{s}」对话吧').replace('{s}', topic.roleName ?? topic.name)}</p>
      </div>
    )
  }
  return (
    <div className="pt-8 cq-md:pt-14 pb-6 flex flex-col items-center text-center">
      <Logo className="size-12" />
      <h2 className="mt-4 text-xl font-semibold">{t('你好，我是灵犀')}</h2>
      <p className="mt-1 text-muted">{welcome ?? t('有什么可以帮你？试试这些：')}</p>
      <ul className="mt-6 w-full grid gap-2 cq-md:grid-cols-2">
        {examples.slice(0, 4).map((text) => (
          <li key={text}>
            <button
              type="button"
              onClick={() => onExample(text)}
              className="w-full h-full px-4 py-3 rounded-card border border-line bg-surface text-left text-sm hover:border-primary hover:text-primary"
            >
              {text}
            </button>
          </li>
        ))}
      </ul>
    </div>
  )
}

const NOTES: Partial<Record<ChatMessage['status'], string>> = { interrput: '已中断', timeout: '回复超时', error: '回复失败' }

const MessageItem = memo(function MessageItem({ message: m, last, avatar }: { message: ChatMessage; last: boolean; avatar: string | null }) {
  const user = m.role === 'user'
  const streaming = m.status === 'streaming'
  const failed = m.status === 'error' || m.status === 'timeout'
  const note = t(NOTES[m.status] ?? '')
  const watch = useContext(ReplyContext)
  const [editing, setEditing] = useState(false)
  // The dialog's target: one object while it is open (the form starts afresh when it changes).
  const [reporting, setReporting] = useState<ReportTarget | null>(null)

  async function handleDelete() {
    if (await confirm({ title: '删除消息', message: '确定删除这条消息吗？', confirmText: '删除' }))
      import('./message-actions').then((a) => a.deleteMessage(m.messageId)).catch(report)
  }
  const retry = () =>
    import('./message-actions')
      .then((a) => a.regenerate(m.messageId))
      .then((result) => watch?.(result))
      .catch(report)

  return (
    <article
      data-testid="message"
      data-id={m.messageId}
      data-status={m.status}
      data-role={m.role}
      part="message"
      aria-busy={streaming || undefined}
      className={`group flex gap-3 ${user ? 'justify-end' : ''}`}
    >
      {!user && (avatar ? <RoleAvatar avatar={avatar} className="size-8 text-lg" /> : <Logo className="size-8 shrink-0" />)}
      <div className={`min-w-0 flex flex-col ${user ? 'items-end max-w-[85%]' : 'flex-1'}`}>
        <span className="sr-only">{t(user ? '我：' : '回复：')}</span>
        {m.thinking && (
          <details open={streaming && !m.content} className="mb-2 rounded-lg border border-line px-3 py-2 text-sm text-muted">
            <summary className="cursor-pointer select-none">{t('思考过程')}</summary>
            <div className="mt-2 whitespace-pre-wrap break-words">{m.thinking}</div>
          </details>
        )}
        {m.attachments && (
          <Suspense fallback={null}>
            <Attached list={m.attachments} />
          </Suspense>
        )}
        {editing ? (
          <Suspense fallback={null}>
            <Edit message={m} onClose={() => setEditing(false)} />
          </Suspense>
        ) : user ? (
          <div className="rounded-2xl rounded-tr-md bg-raised px-4 py-2.5 whitespace-pre-wrap break-words">{m.content}</div>
        ) : (
          (m.content || streaming) && <Markdown text={m.content} streaming={streaming} className="min-w-0 break-words" />
        )}
        {note && (
          <p className={`mt-2 flex flex-wrap items-center gap-2 text-sm ${failed ? 'text-danger' : 'text-muted'}`}>
            <span>{failed && m.errorMessage ? `${note}：${m.errorMessage}` : note}</span>
            {failed && last && (
              <button
                type="button"
                onClick={retry}
                className="inline-flex items-center gap-1 h-7 px-2.5 rounded-md border border-line text-ink hover:border-primary hover:text-primary"
              >
                <Glyph name="retry" className="size-3.5" />
                {t('重试')}
              </button>
            )}
          </p>
        )}
        <div className="flex items-center">
          {!!m.versions && (
            <Suspense fallback={null}>
              <Edit message={m} />
            </Suspense>
          )}
          {!streaming && !editing && (
            <div className="mt-1 flex gap-0.5 opacity-0 group-hover:opacity-100 group-focus-within:opacity-100 pointer-coarse:opacity-100">
              {m.content && <IconButton icon="copy" label={user ? '复制' : '复制 Markdown'} onClick={() => copyText(m.content)} />}
              {m.content && !user && (
                <IconButton
                  icon="text"
                  label="复制纯文本"
                  onClick={() => import('./export/plain').then(async (p) => copyText(await p.toPlainText(m.content)))}
                />
              )}
              {!user && last && !failed && <IconButton icon="retry" label="重新生成" onClick={retry} />}
              {user && !m.messageId.startsWith('local-') && <IconButton icon="edit" label="编辑" onClick={() => setEditing(true)} />}
              {!user && m.content && !m.messageId.startsWith('local-') && (
                <IconButton icon="flag" label="举报" onClick={() => setReporting({ kind: 'reply', itemId: m.messageId })} />
              )}
              <IconButton icon="trash" label="删除" onClick={handleDelete} className="hover:text-danger" />
            </div>
          )}
          {reporting && (
            <Suspense fallback={null}>
              <Report target={reporting} onClose={() => setReporting(null)} />
            </Suspense>
          )}
        </div>
      </div>
    </article>
  )
})
