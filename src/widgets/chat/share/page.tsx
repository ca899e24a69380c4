import { useEffect, useState } from 'react'
import { ApiError } from '../../../core/api'
import { formatTime } from '../../../core/time'
import { siteHref } from '../../../ui/boot'
import { Markdown } from '../../../ui/markdown'
import { Logo } from '../../../ui/icons'
import { type PublicChatShare, readShare } from './public'

const NOTES: Partial<Record<string, string>> = { interrput: '已中断', timeout: '回复超时', error: '回复失败' }

type State = { kind: 'loading' } | { kind: 'gone'; message: string } | { kind: 'shown'; share: PublicChatShare }

/**
 * /share/{id}: a shared topic, read-only, for anyone (no login). Replies go through the same safe
 * markdown renderer as the chat (model text only ever becomes text nodes); nothing here can send.
 */
export function SharePage({ shareId }: { shareId: string }) {
  const [state, setState] = useState<State>({ kind: 'loading' })

  // A share is for those who have the link: search engines are asked not to list it.
  useEffect(() => {
    const meta = Object.assign(document.createElement('meta'), { name: 'robots', content: 'noindex, nofollow' })
    document.head.append(meta)
    return () => meta.remove()
  }, [])

  useEffect(() => {
    const abort = new AbortController()
    setState({ kind: 'loading' })
    readShare(shareId, abort.signal).then(
      (share) => {
        setState({ kind: 'shown', share })
        document.title = `${share.title} - 灵犀分享`
      },
      (error: unknown) => {
        if (abort.signal.aborted) return
        setState({ kind: 'gone', message: error instanceof ApiError ? error.message : '加载失败，请稍后重试' })
      }
    )
    return () => abort.abort()
  }, [shareId])

  const cta = (
    <a href={siteHref('/chat')} className="inline-flex items-center h-10 px-5 rounded-xl bg-primary text-primary-ink font-semibold hover:brightness-110">
      在灵犀中继续对话
    </a>
  )

  if (state.kind === 'loading') {
    return (
      <div role="status" aria-label="加载中" className="py-16 grid place-items-center">
        <span className="lx-spinner" />
      </div>
    )
  }
  if (state.kind === 'gone') {
    return (
      <section aria-labelledby="share-title" className="max-w-xl mx-auto mt-6 md:mt-16 text-center rounded-3xl border border-line bg-surface px-6 py-12">
        <h1 id="share-title" data-testid="share-gone" className="text-xl font-bold">
          {state.message}
        </h1>
        <p className="mt-3 text-muted">链接可能已被分享者撤销，或地址不完整。</p>
        <div className="mt-8">{cta}</div>
      </section>
    )
  }

  const { share } = state
  return (
    <article aria-labelledby="share-title" className="max-w-3xl mx-auto" data-testid="share-page">
      <header className="pb-4 mb-6 border-b border-line flex items-start gap-3">
        {share.roleAvatar ? <ShareAvatar avatar={share.roleAvatar} className="size-10 text-2xl" /> : <Logo className="size-10 shrink-0" />}
        <div className="min-w-0 flex-1">
          <h1 id="share-title" className="text-xl font-bold break-words">
            {share.title}
          </h1>
          <p className="mt-1 text-xs text-muted">
            分享于 {formatTime(share.createTime)} · {share.messages.length} 条消息 · 只读
          </p>
        </div>
      </header>
      <div role="log" aria-label="对话消息" className="flex flex-col gap-6">
        {share.messages.map((m, i) => {
          const user = m.role === 'user'
          const note = NOTES[m.status]
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a snapshot never changes: its order is its identity
            <div key={i} data-testid="shared-message" data-role={m.role} className={`flex gap-3 ${user ? 'justify-end' : ''}`}>
              {!user && (share.roleAvatar ? <ShareAvatar avatar={share.roleAvatar} className="size-8 text-lg" /> : <Logo className="size-8 shrink-0" />)}
              <div className={`min-w-0 flex flex-col ${user ? 'items-end max-w-[85%]' : 'flex-1'}`}>
                <span className="sr-only">{user ? '提问：' : '回复：'}</span>
                {m.thinking && (
                  <details className="mb-2 rounded-lg border border-line px-3 py-2 text-sm text-muted">
                    <summary className="cursor-pointer select-none">思考过程</summary>
                    <div className="mt-2 whitespace-pre-wrap break-words">{m.thinking}</div>
                  </details>
                )}
                {user ? (
                  <div className="rounded-2xl rounded-tr-md bg-raised px-4 py-2.5 whitespace-pre-wrap break-words">{m.content}</div>
                ) : (
                  m.content && <Markdown text={m.content} streaming={false} className="min-w-0 break-words" />
                )}
                {note && <p className="mt-2 text-sm text-muted">{note}</p>}
              </div>
            </div>
          )
        })}
      </div>
      <footer className="mt-10 mb-4 pt-6 border-t border-line flex flex-col items-center gap-3 text-center">
        <p className="text-sm text-muted">以上内容由 AI 生成，仅供参考。</p>
        {cta}
      </footer>
    </article>
  )
}

/**
 * The role's avatar (an emoji, or a picture on Lingxi's origin) as the chat shows it: written here,
 * not imported from the chat's glyphs, which would then become a chunk the chat element and the
 * host's share screen share.
 */
function ShareAvatar({ avatar, className }: { avatar: string; className: string }) {
  if (/^(https?:)?\//.test(avatar)) return <img src={avatar} alt="" className={`${className} shrink-0 rounded-full object-cover`} />
  return (
    <span aria-hidden="true" className={`${className} shrink-0 grid place-items-center rounded-full bg-raised leading-none`}>
      {avatar}
    </span>
  )
}
