import { useStore } from '@nanostores/react'
import { memo, useEffect, useRef, useState } from 'react'
import { confirm } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { composingEnter } from './dom'
import { Glyph, IconButton, RoleAvatar } from './glyphs'
import { groupTopics } from './groups'
import { t } from './i18n'
import { SearchBox } from './search/box'
import { $topicsError, report } from './notice'
import { ShareSlot } from './share/slot'
import { $topics, MAX_TOPIC_NAME, type Topic } from './state'
import { deleteTopic, renameTopic, togglePin } from './topic-actions'

interface TopicListProps {
  activeId: string | null
  onPick: (topicId: string) => void
  onNew: () => void
}

const NAV = 'flex-1 min-h-0 overflow-y-auto px-2 pb-3'

/** The topics, grouped 置顶 / 今天 / 七天内 / 更早, with a new-topic button and a search field over topics and messages. */
export function TopicList({ activeId, onPick, onNew }: TopicListProps) {
  const topics = useStore($topics)
  const error = useStore($topicsError)
  const groups = topics ? groupTopics(topics) : []
  /** The topic whose 导出与分享 dialog is open. */
  const [sharing, setSharing] = useState<string | null>(null)
  const list = (
    <>
      {!topics && error && (
        <p role="status" className="px-3 py-8 text-center text-sm text-muted">
          {error}
        </p>
      )}
      {!topics && !error && <Spinner label={t('加载话题')} />}
      {topics?.length === 0 && <p className="px-3 py-8 text-center text-sm text-muted">{t('还没有对话，发条消息开始吧')}</p>}
      {groups.map((group) => (
        <section key={group.key} className="mt-2 first:mt-0">
          <h3 className="px-2 py-1.5 text-xs text-muted">{t(group.label)}</h3>
          <ul className="flex flex-col gap-0.5">
            {group.topics.map((topic) => (
              <TopicItem key={topic.topicId} topic={topic} active={topic.topicId === activeId} onPick={onPick} onShare={setSharing} />
            ))}
          </ul>
        </section>
      ))}
    </>
  )
  return (
    <div className="flex flex-col h-full min-h-0">
      <div className="p-3 shrink-0">
        <button
          type="button"
          onClick={onNew}
          className="w-full h-10 flex items-center justify-center gap-2 rounded-lg border border-line text-ink hover:border-primary hover:text-primary"
        >
          <Glyph name="plus" />
          {t('新建对话')}
        </button>
      </div>
      {/* The search field over topics and messages, and its results in place of the list. */}
      <SearchBox onPick={onPick} className={NAV}>
        {list}
      </SearchBox>
      {sharing && <ShareSlot topicId={sharing} onClose={() => setSharing(null)} />}
    </div>
  )
}

const TopicItem = memo(function TopicItem({
  topic,
  active,
  onPick,
  onShare
}: {
  topic: Topic
  active: boolean
  onPick: (id: string) => void
  onShare: (id: string) => void
}) {
  const [editing, setEditing] = useState(false)
  const pinned = topic.topFlag === 1
  const itemRef = useRef<HTMLLIElement>(null)

  function finish(refocus: boolean) {
    setEditing(false)
    if (refocus) setTimeout(() => itemRef.current?.querySelector<HTMLElement>('button')?.focus())
  }

  async function handleDelete() {
    const ok = await confirm({ title: '删除话题', message: `确定删除「${topic.name}」吗？其中的消息将一并删除，且无法恢复。`, confirmText: '删除' })
    if (ok) deleteTopic(topic.topicId).catch(report)
  }

  return (
    <li ref={itemRef} data-testid="topic-item" className="group relative">
      {editing ? (
        <RenameField topic={topic} onDone={finish} />
      ) : (
        <>
          <button
            type="button"
            aria-current={active ? 'true' : undefined}
            onClick={() => onPick(topic.topicId)}
            className={`w-full h-10 flex items-center gap-2 pl-2.5 pr-2 rounded-lg text-left group-hover:pr-[132px] group-focus-within:pr-[132px] pointer-coarse:pr-[132px] ${
              active ? 'bg-primary/15 text-primary' : 'text-ink hover:bg-raised'
            }`}
          >
            {topic.roleAvatar ? <RoleAvatar avatar={topic.roleAvatar} className="size-6 text-sm" /> : null}
            <span className="truncate">{topic.name}</span>
          </button>
          <div className="absolute right-1 top-1 flex opacity-0 group-hover:opacity-100 group-focus-within:opacity-100 pointer-coarse:opacity-100">
            <IconButton
              icon="pin"
              label={pinned ? '取消置顶' : '置顶'}
              aria-pressed={pinned}
              onClick={() => togglePin(topic.topicId).catch(report)}
              className={pinned ? 'text-primary' : ''}
            />
            <IconButton icon="edit" label="重命名" onClick={() => setEditing(true)} />
            <IconButton icon="share" label="导出与分享" onClick={() => onShare(topic.topicId)} />
            <IconButton icon="trash" label="删除话题" onClick={handleDelete} className="hover:text-danger" />
          </div>
        </>
      )}
    </li>
  )
})

/** Inline rename: Enter (or leaving the field) saves, Esc cancels. */
function RenameField({ topic, onDone }: { topic: Topic; onDone: (refocus: boolean) => void }) {
  const [name, setName] = useState(topic.name)
  const ref = useRef<HTMLInputElement>(null)
  const done = useRef(false)

  useEffect(() => {
    ref.current?.focus()
    ref.current?.select()
  }, [])

  function save(refocus: boolean) {
    if (done.current) return
    done.current = true
    const value = name.trim()
    if (value && value !== topic.name) renameTopic(topic.topicId, value).catch(report)
    onDone(refocus)
  }

  function handleKeyDown(event: On.Key) {
    if (event.key === 'Enter' && !composingEnter(event)) {
      event.preventDefault()
      save(true)
    } else if (event.key === 'Escape') {
      event.preventDefault()
      event.stopPropagation()
      done.current = true
      onDone(true)
    }
  }

  return (
    <input
      ref={ref}
      value={name}
      maxLength={MAX_TOPIC_NAME}
      aria-label={t('话题名称')}
      onInput={(e) => setName((e.target as HTMLInputElement).value)}
      onKeyDown={handleKeyDown}
      onBlur={() => save(false)}
      className="w-full h-10 px-2.5 rounded-lg border border-primary bg-raised text-ink outline-none"
    />
  )
}

/**
 * The topic list over the conversation, inside the bubble's panel: Esc or a click beside it
 * closes it. Here rather than in chat-view, so it loads with the list, when first opened.
 */
export function TopicDrawer({ onClose, ...list }: TopicListProps & { onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('button')?.focus()
  }, [])
  function handleKeyDown(event: On.Key) {
    if (event.key !== 'Escape' || event.defaultPrevented) return
    event.preventDefault()
    onClose()
  }

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click beside the list is the mouse's Escape; the keyboard closes it with Escape in the dialog
    // biome-ignore lint/a11y/noStaticElementInteractions: as above, the backdrop takes clicks only
    <div className="absolute inset-0 z-20 flex justify-end bg-black/50 lx-fade-in" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={ref}
        role="dialog"
        aria-label={t('话题列表')}
        onKeyDown={handleKeyDown}
        className="w-[280px] max-w-[85%] h-full flex flex-col border-l border-line bg-surface shadow-2xl lx-slide-left"
      >
        <div className="h-14 shrink-0 flex items-center justify-between pl-4 pr-2 border-b border-line">
          <h3 className="font-semibold">{t('话题列表')}</h3>
          <IconButton icon="close" label="关闭话题列表" onClick={onClose} />
        </div>
        <div className="flex-1 min-h-0">
          <TopicList {...list} />
        </div>
      </div>
    </div>
  )
}
