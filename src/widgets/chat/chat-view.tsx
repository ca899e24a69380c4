import { useStore } from '@nanostores/react'
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react'
import { confirm } from '../../core/emit'
import { $token } from '../../core/stores'
import { preloadMarkdown } from '../../ui/markdown'
import { useEffectEvent } from '../../ui/use-effect-event'
import { Composer } from './composer'
import { deferred } from './deferred'
import { MD, SM, useMedia, useWidth } from './dom'
import type { ReplyDetail } from './events'
import { IconButton } from './glyphs'
import { MessageList } from './message-list'
import { $allowanceNotice, report } from './notice'
import { PanelHeader, type PanelProps } from './panel-header'
import { selectTopic, sendMessage, stopMessage } from './replies'
import { ReplyContext } from './reply'
import { t } from './i18n'
import {
  $activeTopicId,
  activeRequest,
  $chatConfig,
  $messages,
  $streaming,
  $topics,
  type ChatRequest,
  EVENT_CHAT_COMMAND,
  type PageInfo,
  type SendResult
} from './state'
import { awaitTitle, createTopic, creating, startChat } from './topics'

// Opened now and then: loaded on first use, with the popover they open in.
const loadSettings = () => deferred(import('./settings'))
const ChatSettings = lazy(() => loadSettings().then((m) => ({ default: m.ChatSettings })))
const SettingsPopover = lazy(() => loadSettings().then((m) => ({ default: m.SettingsPopover })))
// Inline on narrow screens only (a bubble's panel has its own drawer).
const Dialog = lazy(() => deferred(import('../../ui/dialog')).then((m) => ({ default: m.Dialog })))
// In a bubble's panel the topics are a drawer that many never open. Its rules are in the chat's
// sheet (the host page shows the list at once): no deferred rules to bring.
const loadTopicList = () => import('./topic-list')
const TopicList = lazy(() => loadTopicList().then((m) => ({ default: m.TopicList })))
const TopicDrawer = lazy(() => loadTopicList().then((m) => ({ default: m.TopicDrawer })))
const Loading = () => <p className="text-sm text-muted">{t('加载中…')}</p>
/** Where a popover or drawer is still loading. */
const Pending = ({ className }: { className: string }) => (
  <div role="status" aria-label={t('加载中')} className={`z-20 grid place-items-center ${className}`}>
    <span className="lx-spinner" />
  </div>
)

/**
 * Below this width of its own the chat keeps the topic list in a drawer, however wide the page: a
 * chat in a 360px sidebar of a desktop page is a phone chat. On Lingxi's own site (external
 * controls) the page's phone layout also keeps it in a drawer, since the page's bars hold the controls.
 */
const WIDE = 560

export interface ChatViewProps {
  /** Open this topic (default: the last one used). */
  topicId?: string
  /** The page's header drives the chat on phones (`lingxi-chat-command`): no header of its own there. */
  externalControls?: boolean
  /**
   * Inside a bubble's panel: the panel's header (灵犀 AI, topics, new topic, settings, clear,
   * close), the topic list as a drawer inside the panel, settings under their button.
   */
  panel?: PanelProps
  /** Focus the question field on arrival (not on phones, where it would raise the keyboard). */
  autoFocus?: boolean
  /** A reply asked from this view finished (status complete). */
  onReply?: (reply: ReplyDetail) => void
  /** Questions offered in an empty conversation instead of the server's examples. */
  starters?: string[]
  /** The line under the greeting of an empty conversation. */
  welcome?: string
  /** What the page asked (send a question, fill the field): done once, when it arrives. */
  request?: ChatRequest
  /** The page context sent with each question (none: undefined). */
  page?: () => PageInfo | undefined
}

/** Empties the active conversation, once confirmed. */
async function handleClear() {
  const id = $activeTopicId.get()
  if (!id || !(await confirm({ title: '清空对话', message: '确定清空当前对话的全部消息吗？清空后无法恢复。', confirmText: '清空' }))) return
  import('./message-actions').then((a) => a.clearTopic(id)).catch(report)
}

/** The chat of a logged-in person: the topic list beside (or in a drawer over) the conversation. */
export function ChatView({ topicId, externalControls, panel, autoFocus, onReply, starters, welcome, request: asked, page }: ChatViewProps) {
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
  const wide = !panel && (desktop || !externalControls) && (width === 0 ? desktop : width >= WIDE)
  const [drawer, setDrawer] = useState(false)
  const [settings, setSettings] = useState(false)
  const composerRef = useRef<HTMLTextAreaElement>(null)
  const scrollRef = useRef<() => void>(() => {})
  const replyRef = useRef(onReply)
  replyRef.current = onReply

  const topic = topics?.find((t) => t.topicId === activeId) ?? null
  const request = activeRequest(streams, activeId)
  // Inline, the list is (nearly) always in view: fetch it along.
  if (!panel) void loadTopicList().catch(() => {})

  /** Tells the element's page when a reply asked from here has finished. */
  const watch = useCallback((result: SendResult) => {
    void result.finished.then((status) => {
      if (status !== 'ready') return
      for (const [topicId, slot] of Object.entries($messages.get())) {
        const m = slot.list.find((x) => x.messageId === result.replyId)
        if (m?.status === 'complete') return replyRef.current?.({ topicId, messageId: m.messageId, content: m.content })
      }
    })
  }, [])

  // On the first render only: a later autoFocus must not take the focus from where the user is.
  const focusOnMount = useEffectEvent(() => {
    if (autoFocus && matchMedia(SM).matches) composerRef.current?.focus()
  })
  useEffect(() => {
    focusOnMount()
  }, [])

  // The list is in view when wide: no drawer left pending for a later narrow layout.
  useEffect(() => {
    if (wide && drawer) setDrawer(false)
  }, [wide, drawer])

  // biome-ignore lint/correctness/useExhaustiveDependencies: token: a login or logout starts the chat again (startChat reads the new token itself)
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

  async function handleSend(text: string): Promise<boolean> {
    // The reply's renderer comes while the question is sent: a conversation shown without a
    // reply to render (a new topic) never loads it; a reply shown loads it as it mounts.
    preloadMarkdown().catch(() => {})
    try {
      await creating?.catch(() => {})
      const id = $activeTopicId.get() ?? (await createTopic()).topicId
      const sending = sendMessage(id, text, page?.())
      scrollRef.current()
      const result = await sending
      watch(result)
      awaitTitle(id, result.finished)
      $allowanceNotice.set(null)
      return true
    } catch (error) {
      report(error)
      return false
    }
  }

  // The page's send(text), once the conversation is there (and its topics, to send into); the
  // composer takes a prefill(text) itself.
  // biome-ignore lint/correctness/useExhaustiveDependencies: carried out once per request, when it or the topics arrive
  useEffect(() => {
    if (!asked?.send || asked.done || !topics) return
    asked.done = true
    void handleSend(asked.send)
  }, [asked, topics])

  function closeDrawer() {
    setDrawer(false)
    if (panel) rootRef.current?.querySelector<HTMLElement>(`header [aria-label="${t('话题列表')}"]`)?.focus()
  }

  function handlePick(id: string) {
    closeDrawer()
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
  const settingsButton = (
    <div className="relative">
      <IconButton icon="sliders" label="对话设置" aria-expanded={settings} aria-haspopup="dialog" onClick={() => setSettings(!settings)} />
      {(wide || panel) && settings && (
        <Suspense fallback={<Pending className="absolute right-0 top-10 size-16 rounded-xl border border-line bg-surface shadow-2xl" />}>
          <SettingsPopover topic={topic} onClose={() => setSettings(false)} />
        </Suspense>
      )}
    </div>
  )
  return (
    <ReplyContext.Provider value={watch}>
      <div
        ref={rootRef}
        part="base"
        className={`@container relative flex ${panel ? 'flex-1 min-h-0' : 'h-[var(--lingxi-chat-height,100%)] min-h-[360px]'} overflow-hidden bg-bg text-ink`}
      >
        {wide && (
          <aside aria-label={t('话题')} className="w-[260px] shrink-0 border-r border-line bg-surface/40">
            <Suspense fallback={null}>
              <TopicList activeId={activeId} onPick={handlePick} onNew={handleNew} />
            </Suspense>
          </aside>
        )}
        <section aria-label={t('对话')} className="flex-1 min-w-0 flex flex-col">
          {panel ? (
            <PanelHeader
              subtitle={topic?.name ?? t('新对话')}
              {...panel}
              lead={<IconButton icon="list" label="话题列表" aria-expanded={drawer} onClick={() => setDrawer(true)} />}
            >
              <IconButton icon="plus" label="新建对话" onClick={handleNew} />
              {settingsButton}
              <IconButton icon="eraser" label="清空对话" onClick={handleClear} disabled={!topic} />
            </PanelHeader>
          ) : !header ? (
            // the page's header has the controls (a phone on the host page): the model still shows
            modelName && (
              <p data-testid="chat-model" className="shrink-0 truncate px-4 py-1 text-xs text-muted border-b border-line">
                {t('模型：')}
                {modelName}
              </p>
            )
          ) : (
            header && (
              <header className="h-14 shrink-0 flex items-center gap-1 px-3 cq-md:px-4 border-b border-line">
                {!wide && <IconButton icon="list" label="话题列表" onClick={() => setDrawer(true)} />}
                <div className="min-w-0 flex-1 px-1">
                  <h2 className="truncate font-semibold leading-5">{topic?.name ?? t('新对话')}</h2>
                  {modelName && <p className="truncate text-xs text-muted leading-4">{modelName}</p>}
                </div>
                {settingsButton}
                <IconButton icon="eraser" label="清空对话" onClick={handleClear} disabled={!topic} />
              </header>
            )
          )}
          <MessageList
            topic={topic}
            messages={activeId ? messages[activeId] : undefined}
            examples={starters ?? config?.examples}
            welcome={welcome}
            onExample={handleExample}
            scrollRef={scrollRef}
          />
          <Composer
            busy={!!request}
            onSend={handleSend}
            onStop={() => request && stopMessage(request[0]).catch(report)}
            notice={notice}
            inputRef={composerRef}
            prefill={asked}
          />
        </section>
        {panel && drawer && (
          <Suspense fallback={<Pending className="absolute inset-0 bg-black/50" />}>
            <TopicDrawer activeId={activeId} onPick={handlePick} onNew={handleNew} onClose={closeDrawer} />
          </Suspense>
        )}
        {!wide && !panel && (drawer || settings) && (
          <Suspense fallback={null}>
            <Dialog open={drawer} onClose={() => setDrawer(false)} title={t('话题列表')} placement="right" width={300}>
              <div className="-mx-4 -mb-4 h-[calc(100%-3.5rem)]">
                <Suspense fallback={<Loading />}>
                  <TopicList activeId={activeId} onPick={handlePick} onNew={handleNew} />
                </Suspense>
              </div>
            </Dialog>
            <Dialog open={settings} onClose={() => setSettings(false)} title={t('对话设置')} placement="bottom" width={420}>
              <Suspense fallback={<Loading />}>
                <ChatSettings topic={topic} />
              </Suspense>
            </Dialog>
          </Suspense>
        )}
      </div>
    </ReplyContext.Provider>
  )
}
