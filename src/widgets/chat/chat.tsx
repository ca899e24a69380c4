import { useStore } from '@nanostores/react'
import { lazy, Suspense } from 'react'
import { $loginOpen, $token, openLogin } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { Bubble } from './bubble'
import { deferred } from './deferred'
import { emitFrom, EVENT_MESSAGE, type ReplyDetail } from './events'
import { Glyph } from './glyphs'
import { PanelHeader } from './panel-header'

// Only for visitors (and a refused token): the page may well have its own login element.
const LoginDialog = lazy(() => deferred(import('../../ui/login/login-dialog')).then((m) => ({ default: m.LoginDialog })))
// The conversation: loaded at once inline, when the panel first opens in a bubble (so the
// launcher shows as soon as the element's small entry has arrived).
const loadView = () => import('./chat-view')
const ChatView = lazy(() => loadView().then((m) => ({ default: m.ChatView })))
const prefetch = () => void loadView().catch(() => {})

export interface ChatProps extends ElementProps {
  /** `inline` (default): the chat in the page's flow. `bubble`: a floating launcher that opens a chat panel. */
  mode?: 'inline' | 'bubble' | string
  /** Open this topic (default: the last one used). */
  topicId?: string
  /**
   * The page's header drives the chat on phones through `lingxi-chat-command` events (the host
   * page does): the widget then shows no header of its own there.
   */
  externalControls?: boolean
  /** Bubble: the panel is open (reflected as the `open` attribute). */
  open?: boolean
  /** Bubble: `bottom-right` (default) or `bottom-left`. */
  position?: 'bottom-right' | 'bottom-left' | string
  /** Bubble: the launcher's colour, any CSS colour (default the primary colour). */
  color?: string
  /** Bubble: a short text shown once beside the launcher (dismissible). */
  greeting?: string
  /** Bubble: the launcher's accessible name (default 打开灵犀 AI 对话). */
  label?: string
  /** React only (the element sends lingxi-open / lingxi-close): the bubble opened or closed. */
  onOpenChange?: (open: boolean) => void
  /** React only (the element sends lingxi-message): a reply finished. */
  onMessage?: (reply: ReplyDetail) => void
}

/**
 * @summary Text chat with streaming replies: topics grouped 置顶 / 今天 / 七天内 / 更早 (pin, rename,
 * delete), markdown answers with their reasoning, stop, retry and regenerate, model, temperature and
 * context per topic. Logged out, a login prompt (the login dialog opens inside the element). Inline,
 * the messages scroll inside the element: give it a height (or set --lingxi-chat-height). With
 * `mode="bubble"`, a round launcher in a corner of the page opens the chat in a panel (400×640,
 * full screen below 640 px); Esc closes it and focus returns to the launcher.
 * @attr mode - `inline` (default) or `bubble`.
 * @attr topic-id - Open this topic (default: the last one used).
 * @attr external-controls - Hide the phone header: the page sends `lingxi-chat-command` window events (detail `{command: 'topics' | 'settings' | 'clear' | 'bottom'}`) instead.
 * @attr open - Bubble: the panel is open; reflects the state, settable (also the `open` property).
 * @attr position - Bubble: `bottom-right` (default) or `bottom-left`.
 * @attr color - Bubble: the launcher's colour, any CSS colour (default the primary colour).
 * @attr greeting - Bubble: a short text shown once beside the launcher until dismissed or opened.
 * @attr label - Bubble: the launcher's accessible name (default 打开灵犀 AI 对话).
 * @method show - Bubble: opens the panel.
 * @method hide - Bubble: closes the panel.
 * @method toggle - Bubble: opens or closes the panel.
 * @event lingxi-open - Bubble: the panel opened.
 * @event lingxi-close - Bubble: the panel closed.
 * @event lingxi-message - A reply asked from this element finished; detail `{topicId, messageId, content}`.
 * @event lingxi-unauthorized - (window) The server refused the token: the login dialog opens.
 * @event lingxi-toast - (window) A failure to show, with the server's message.
 * @event lingxi-confirm - (window) Asks before deleting a topic or a message and before clearing a topic.
 * @csspart base - The chat's frame.
 * @csspart message - One message (data-role user or assistant, data-status as on the wire).
 * @csspart dock - Bubble: the corner holding the launcher and the greeting.
 * @csspart launcher - Bubble: the round launcher button.
 * @csspart greeting - Bubble: the greeting beside the launcher.
 * @csspart panel - Bubble: the chat panel.
 * @csspart panel-header - Bubble: the panel's header (灵犀 AI, topics, new topic, settings, clear, close).
 * @cssproperty --lingxi-chat-height - Inline: height of the chat (default 100% of the element).
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function Chat({ container, mode, topicId, externalControls, open, position, color, greeting, label, onOpenChange, onMessage }: ChatProps) {
  const token = useStore($token)
  const loginOpen = useStore($loginOpen)
  const handleReply = (reply: ReplyDetail) => {
    emitFrom(container, EVENT_MESSAGE, reply)
    onMessage?.(reply)
  }
  const login = (!token || loginOpen) && (
    <Suspense fallback={null}>
      <LoginDialog />
    </Suspense>
  )
  if (mode === 'bubble') {
    return (
      <>
        <Bubble
          container={container}
          open={open}
          position={position}
          color={color}
          greeting={greeting}
          label={label}
          onOpenChange={onOpenChange}
          onPrefetch={prefetch}
        >
          {(close) =>
            token ? (
              <Suspense fallback={<PanelLoading onClose={close} />}>
                <ChatView topicId={topicId} panel={{ onClose: close }} autoFocus onReply={handleReply} />
              </Suspense>
            ) : (
              <>
                <PanelHeader onClose={close} />
                <LoginPrompt fill />
              </>
            )
          }
        </Bubble>
        {login}
      </>
    )
  }
  return (
    <>
      {token ? (
        <Suspense fallback={<Loading />}>
          <ChatView topicId={topicId} externalControls={externalControls} onReply={handleReply} />
        </Suspense>
      ) : (
        <LoginPrompt />
      )}
      {login}
    </>
  )
}

function Loading() {
  return (
    <div part="base" role="status" aria-label="加载中" className="h-[var(--lingxi-chat-height,100%)] min-h-[360px] grid place-items-center bg-bg">
      <span className="lx-spinner" />
    </div>
  )
}

function PanelLoading({ onClose }: { onClose: () => void }) {
  return (
    <>
      <PanelHeader onClose={onClose} />
      <div role="status" aria-label="加载中" className="flex-1 grid place-items-center">
        <span className="lx-spinner" />
      </div>
    </>
  )
}

/** Logged out: what the chat is, and a 登录 button. `fill`: the rest of the bubble's panel. */
function LoginPrompt({ fill }: { fill?: boolean }) {
  return (
    <div
      part="base"
      className={`${fill ? 'flex-1 min-h-0' : 'h-[var(--lingxi-chat-height,100%)] min-h-[240px]'} grid place-items-center p-6 text-center bg-bg text-ink`}
    >
      <div className="flex flex-col items-center gap-2">
        <span className="size-14 grid place-items-center rounded-2xl bg-primary/15 text-primary">
          <Glyph name="chat" className="size-7" />
        </span>
        <h2 className="mt-2 text-lg font-semibold">登录后开始对话</h2>
        <p className="text-sm text-muted">多话题、角色扮演，回答实时生成。</p>
        <button type="button" onClick={() => openLogin()} className="mt-3 h-10 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
          登录
        </button>
      </div>
    </div>
  )
}
