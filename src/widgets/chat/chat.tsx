import { useStore } from '@nanostores/react'
import { lazy, Suspense, useEffect } from 'react'
import { $loginOpen, $token } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { Bubble } from './bubble'
import { deferred } from './deferred'
import { emitFrom, EVENT_MESSAGE, type ReplyDetail } from './events'
import { $dict, setLocale, t } from './i18n'
import { PanelHeader, type PanelProps } from './panel-header'
import type { ChatRequest, PageInfo } from './state'

// Only for visitors (and a refused token): the page may well have its own login element.
const LoginDialog = lazy(() => deferred(import('../../ui/login/login-dialog')).then((m) => ({ default: m.LoginDialog })))
// The conversation: loaded at once inline, when the panel first opens in a bubble (so the
// launcher shows as soon as the element's small entry has arrived).
const loadView = () => import('./chat-view')
const ChatView = lazy(() => loadView().then((m) => ({ default: m.ChatView })))
const prefetch = () => void loadView().catch(() => {})
const LoginPrompt = lazy(() => import('./login-prompt').then((m) => ({ default: m.LoginPrompt })))

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
  /** Bubble: `bottom-right` (default) or `bottom-left` (also `right` / `left`). */
  position?: 'bottom-right' | 'bottom-left' | 'right' | 'left' | string
  /** Bubble: distance of the launcher from its corner in px, `24` or `24 96` (side, bottom). */
  offset?: string
  /** Bubble: an image URL for the launcher instead of the chat glyph. */
  icon?: string
  /** Up to four questions offered in an empty conversation (default: the server's examples). */
  starters?: string[]
  /** The line under 你好，我是灵犀 in an empty conversation. */
  welcome?: string
  /** `zh-CN` (default) or `en`: the language of the chat's own texts. */
  locale?: string
  /** `off`: send no page context with the questions (default: the page's title and URL). */
  pageContext?: string
  /** The page context sent with the next questions instead of the page's title and URL. */
  context?: PageInfo
  /** A question to send or a text to put in the question field (the element's send() and prefill()). */
  request?: ChatRequest
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
 * @attr position - Bubble: `bottom-right` (default) or `bottom-left` (also `right` / `left`).
 * @attr offset - Bubble: the launcher's distance from its corner in px: `24` (both) or `24 96` (side, bottom); the panel follows.
 * @attr icon - Bubble: an image URL shown on the closed launcher instead of the chat glyph.
 * @attr color - Bubble: the launcher's colour, any CSS colour (default the primary colour).
 * @attr greeting - Bubble: a short text shown once beside the launcher until dismissed or opened.
 * @attr label - Bubble: the launcher's accessible name (default 打开灵犀 AI 对话).
 * @attr starters - Up to four questions offered in an empty conversation, a JSON array (`'["退货怎么办？","运费多少？"]'`; default: the server's examples).
 * @attr welcome - The line under 你好，我是灵犀 in an empty conversation (default 有什么可以帮你？试试这些：).
 * @attr locale - `zh-CN` (default) or `en`: the language of the chat's own texts (buttons, labels, placeholders).
 * @attr page-context - `off`: send no page context. By default each question carries the page's title and URL, which the server adds to that request's system context (capped, moderated, not stored).
 * @attr context - Property only: `{title, url}` sent with the questions instead of the page's own.
 * @attr request - Property only, internal: what send() and prefill() asked.
 * @method show - Bubble: opens the panel.
 * @method hide - Bubble: closes the panel.
 * @method toggle - Bubble: opens or closes the panel.
 * @method send - `send(text)`: sends a question (a bubble opens; a visitor logs in first, then it goes).
 * @method prefill - `prefill(text)`: puts a text in the question field without sending it (a bubble opens).
 * @method destroy - Removes the element (a bubble's launcher and panel go with it).
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
 * @csspart badge - Bubble: the count of replies that finished while the panel was closed, on the launcher.
 * @csspart greeting - Bubble: the greeting beside the launcher.
 * @csspart panel - Bubble: the chat panel.
 * @csspart share-dialog - The 导出与分享 dialog (share link, export as Markdown, PNG or text).
 * @csspart announcement - Bubble: an operator's notice marked for embeds, under the panel's header (above the messages) until dismissed.
 * @csspart panel-header - Bubble: the panel's header (灵犀 AI, topics, new topic, settings, clear, close).
 * @cssproperty --lingxi-chat-height - Inline: height of the chat (default 100% of the element).
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00); the bubble's `color` attribute sets it for the launcher and panel.
 */
export function Chat(props: ChatProps) {
  const { container, mode, topicId, externalControls, onMessage } = props
  const token = useStore($token)
  const loginOpen = useStore($loginOpen)
  useStore($dict)
  useEffect(() => setLocale(props.locale), [props.locale])
  const handleReply = (reply: ReplyDetail) => {
    emitFrom(container, EVENT_MESSAGE, reply)
    onMessage?.(reply)
  }
  const view = {
    topicId,
    onReply: handleReply,
    starters: props.starters,
    welcome: props.welcome,
    request: props.request,
    page: () => (props.pageContext === 'off' ? undefined : (props.context ?? { title: document.title, url: location.href }))
  }
  const login = (!token || loginOpen) && (
    <Suspense fallback={null}>
      <LoginDialog />
    </Suspense>
  )
  if (mode === 'bubble') {
    return (
      <>
        <Bubble {...props} onPrefetch={prefetch}>
          {(close, notice) =>
            token ? (
              <Suspense fallback={<PanelLoading onClose={close} notice={notice} />}>
                <ChatView {...view} panel={{ onClose: close, notice }} autoFocus />
              </Suspense>
            ) : (
              <>
                <PanelHeader onClose={close} notice={notice} />
                <Suspense fallback={null}>
                  <LoginPrompt fill />
                </Suspense>
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
          <ChatView {...view} externalControls={externalControls} />
        </Suspense>
      ) : (
        <Suspense fallback={<Loading />}>
          <LoginPrompt />
        </Suspense>
      )}
      {login}
    </>
  )
}

function Loading() {
  return (
    <div part="base" role="status" aria-label={t('加载中')} className="h-[var(--lingxi-chat-height,100%)] min-h-[360px] grid place-items-center bg-bg">
      <span className="lx-spinner" />
    </div>
  )
}

function PanelLoading(panel: PanelProps) {
  return (
    <>
      <PanelHeader {...panel} />
      <div role="status" aria-label={t('加载中')} className="flex-1 grid place-items-center">
        <span className="lx-spinner" />
      </div>
    </>
  )
}
