import { useStore } from '@nanostores/react'
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react'
import {
  $activeTopicId,
  $chatConfig,
  $loginOpen,
  $messages,
  $streaming,
  $token,
  $topics,
  activeRequest,
  clearTopic,
  confirm,
  createTopic,
  EVENT_CHAT_COMMAND,
  openLogin,
  selectTopic,
  sendMessage,
  startChat,
  stopMessage,
} from '../../core'
import type { ElementProps } from '../../ui/define'
import { Dialog } from '../../ui/dialog'
import { Icon } from '../../ui/icons'
import { preloadMarkdown } from '../../ui/markdown'
import { MD, useMedia } from '../../ui/use-media'
import { Composer } from './composer'
import { useWidth } from './dom'
import { IconButton } from './glyphs'
import { MessageList } from './message-list'
import { $allowanceNotice, report } from './notice'
import { TopicList } from './topic-list'

// Only for visitors (and a refused token): the page may well have its own login element.
const LoginDialog = lazy(() => import('../../ui/login/login-dialog').then((m) => ({ default: m.LoginDialog })))
// Opened now and then: loaded on first use.
const ChatSettings = lazy(() => import('./settings').then((m) => ({ default: m.ChatSettings })))
const Loading = () => <p className="text-sm text-muted">加载中…</p>

/** Below this width (or on a phone) the topic list is a drawer. */
const WIDE = 560

export interface ChatProps extends ElementProps {
  /** Open this topic (default: the last one used). */
  topicId?: string
  /**
   * The page's header drives the chat on phones through `lingxi-chat-command` events (the host
   * page does): the widget then shows no header of its own there.
   */
  externalControls?: boolean
}

/**
 * @summary Text chat with streaming replies: topics grouped 置顶 / 今天 / 七天内 / 更早 (pin, rename,
 * delete), markdown answers with their reasoning, stop, retry and regenerate, model, temperature and
 * context per topic. Logged out, a login prompt. The messages scroll inside the element: give it a
 * height (or set --lingxi-chat-height). Attributes: `topic-id` opens that topic; `external-controls`
 * hides the widget's phone header because the page sends `lingxi-chat-command` window events
 * (detail `{command: 'topics' | 'settings' | 'clear' | 'bottom'}`) instead.
 * @event lingxi-unauthorized - (window) The server refused the token: the login dialog opens.
 * @event lingxi-toast - (window) A failure to show, with the server's message.
 * @event lingxi-confirm - (window) Asks before deleting a topic or a message and before clearing a topic.
 * @csspart base - The chat's frame.
 * @csspart message - One message (data-role user or assistant, data-status as on the wire).
 * @cssproperty --lingxi-chat-height - Height of the chat (default 100% of the element).
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function Chat({ topicId, externalControls }: ChatProps) {
  const token = useStore($token)
  const loginOpen = useStore($loginOpen)
  return (
    <>
      {token ? <ChatView topicId={topicId} externalControls={externalControls} /> : <LoginPrompt />}
      {(!token || loginOpen) && (
        <Suspense fallback={null}>
          <LoginDialog />
        </Suspense>
      )}
    </>
  )
}

function LoginPrompt() {
  return (
    <div part="base" className="h-[var(--lingxi-chat-height,100%)] min-h-[240px] grid place-items-center p-6 text-center bg-bg text-ink">
      <div className="flex flex-col items-center gap-2">
        <span className="size-14 grid place-items-center rounded-2xl bg-primary/15 text-primary">
          <Icon name="chat" className="size-7" />
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

/** The chat of a logged-in person: the topic list beside (or in a drawer over) the conversation. */
export function ChatView({ topicId, externalControls }: Omit<ChatProps, 'container'>) {
  const token = useStore($token)
  const activeId = useStore($activeTopicId)
  const topics = useStore($topics)
  const messages = useStore($messages)
  const streams = useStore($streaming)
  const config = useStore($chatConfig)
  const notice = useStore($allowanceNotice)
  const desktop = useMedia(MD)
  const rootRef = useRef<HTMLDivElement>(null)
  const width = useWidth(rootRef)
  const wide = desktop && (width === 0 || width >= WIDE)
  const [drawer, setDrawer] = useState(false)
  const [settings, setSettings] = useState(false)
  const composerRef = useRef<HTMLTextAreaElement>(null)
  const scrollRef = useRef<() => void>(() => {})

  const topic = topics?.find((t) => t.topicId === activeId) ?? null
  const request = activeRequest(streams, activeId)

  useEffect(() => {
    preloadMarkdown().catch(() => {})
  }, [])

  // The list is in view when wide: no drawer left pending for a later narrow layout.
  useEffect(() => {
    if (wide) setDrawer(false)
  }, [wide, drawer])

  useEffect(() => {
    startChat(topicId).then(() => {
      if (topicId && $activeTopicId.get() !== topicId && $topics.get()?.some((t) => t.topicId === topicId)) selectTopic(topicId).catch(report)
    })
  }, [topicId, token])

  useEffect(() => {
    const handle = (event: Event) => {
      const command = (event as CustomEvent<{ command?: string } | null>).detail?.command
      if (command === 'topics') setDrawer(true)
      else if (command === 'settings') setSettings(true)
      else if (command === 'clear') void handleClear()
      else if (command === 'bottom') scrollRef.current()
    }
    addEventListener(EVENT_CHAT_COMMAND, handle)
    return () => removeEventListener(EVENT_CHAT_COMMAND, handle)
  }, [])

  async function handleClear() {
    const id = $activeTopicId.get()
    if (!id || !(await confirm({ title: '清空对话', message: '确定清空当前对话的全部消息吗？清空后无法恢复。', confirmText: '清空' }))) return
    clearTopic(id).catch(report)
  }

  async function handleSend(text: string): Promise<boolean> {
    try {
      const id = $activeTopicId.get() ?? (await createTopic()).topicId
      const sending = sendMessage(id, text)
      scrollRef.current()
      await sending
      $allowanceNotice.set(null)
      return true
    } catch (error) {
      report(error)
      return false
    }
  }

  function handlePick(id: string) {
    setDrawer(false)
    if (id !== $activeTopicId.get()) selectTopic(id).catch(report)
  }

  async function handleNew() {
    setDrawer(false)
    const current = activeId ? messages[activeId] : undefined
    // An empty topic is already a new one.
    if (!(topic && !topic.roleId && current?.loaded && current.list.length === 0)) {
      try {
        await createTopic()
      } catch (error) {
        return report(error)
      }
    }
    composerRef.current?.focus()
  }

  function handleExample(text: string) {
    void handleSend(text)
    composerRef.current?.focus()
  }

  const modelName = topic ? (config?.models.find((m) => m.id === topic.model)?.name ?? topic.model) : ''
  const header = wide || desktop || !externalControls
  return (
    <div ref={rootRef} part="base" className="relative flex h-[var(--lingxi-chat-height,100%)] min-h-[360px] overflow-hidden bg-bg text-ink">
      {wide && (
        <aside aria-label="话题" className="w-[260px] shrink-0 border-r border-line bg-surface/40">
          <TopicList activeId={activeId} onPick={handlePick} onNew={handleNew} />
        </aside>
      )}
      <section aria-label="对话" className="flex-1 min-w-0 flex flex-col">
        {header && (
          <header className="h-14 shrink-0 flex items-center gap-1 px-3 md:px-4 border-b border-line">
            {!wide && <IconButton icon="list" label="话题列表" onClick={() => setDrawer(true)} />}
            <div className="min-w-0 flex-1 px-1">
              <h2 className="truncate font-semibold leading-5">{topic?.name ?? '新对话'}</h2>
              {modelName && <p className="truncate text-xs text-muted leading-4">{modelName}</p>}
            </div>
            <div className="relative">
              <IconButton icon="sliders" label="对话设置" aria-expanded={settings} aria-haspopup="dialog" onClick={() => setSettings(!settings)} />
              {wide && settings && (
                <Popover onClose={() => setSettings(false)}>
                  <Suspense fallback={<Loading />}>
                    <ChatSettings topic={topic} />
                  </Suspense>
                </Popover>
              )}
            </div>
            <IconButton icon="eraser" label="清空对话" onClick={handleClear} disabled={!topic} />
          </header>
        )}
        <MessageList
          topic={topic}
          messages={activeId ? messages[activeId] : undefined}
          examples={config?.examples}
          onExample={handleExample}
          scrollRef={scrollRef}
        />
        <Composer busy={!!request} onSend={handleSend} onStop={() => request && stopMessage(request[0]).catch(report)} notice={notice} inputRef={composerRef} />
      </section>
      {!wide && (
        <>
          <Dialog open={drawer} onClose={() => setDrawer(false)} title="话题列表" placement="right" width={300}>
            <div className="-mx-4 -mb-4 h-[calc(100%-3.5rem)]">
              <TopicList activeId={activeId} onPick={handlePick} onNew={handleNew} />
            </div>
          </Dialog>
          <Dialog open={settings} onClose={() => setSettings(false)} title="对话设置" placement="bottom" width={420}>
            <Suspense fallback={<Loading />}>
              <ChatSettings topic={topic} />
            </Suspense>
          </Dialog>
        </>
      )}
    </div>
  )
}

/** The desktop settings panel under its button: Esc or a click elsewhere closes it. */
function Popover({ onClose, children }: { onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const panel = ref.current
    // The panel takes the focus (its fields may still be loading), so Tab leads into it.
    panel?.focus()
    const away = (event: Event) => {
      if (panel?.parentElement && !event.composedPath().includes(panel.parentElement)) onClose()
    }
    const escape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      onClose()
      panel?.parentElement?.querySelector<HTMLElement>('button')?.focus()
    }
    document.addEventListener('pointerdown', away)
    document.addEventListener('keydown', escape)
    return () => {
      document.removeEventListener('pointerdown', away)
      document.removeEventListener('keydown', escape)
    }
  }, [])

  return (
    <div
      ref={ref}
      role="dialog"
      aria-label="对话设置"
      tabIndex={-1}
      className="absolute right-0 top-10 z-20 w-72 p-4 rounded-xl border border-line bg-surface shadow-2xl outline-none lx-fade-in"
    >
      {children}
    </div>
  )
}
