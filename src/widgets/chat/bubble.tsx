import { useEffect, useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react'
import { request } from '../../core/api'
import { useEffectEvent } from '../../ui/use-effect-event'
import { emitFrom, EVENT_CLOSE, EVENT_COMMAND, EVENT_MESSAGE, EVENT_OPEN } from './events'
import { Glyph } from './glyphs'
import { t } from './i18n'

/** localStorage: the greeting text the visitor has seen (a new text shows again). */
const GREETING_SEEN_KEY = 'lingxi-greeting-seen'

export interface BubbleProps {
  container?: ShadowRoot
  /** Open state asked by the page (the element's `open` attribute or the React prop). */
  open?: boolean
  /** `bottom-right` (default) or `bottom-left` (also `right` / `left`). */
  position?: string
  /** Distance from the corner in px: `24` (both) or `24 96` (side, bottom). */
  offset?: string
  /** The launcher's image (a URL) instead of the chat glyph. */
  icon?: string
  /** The launcher's colour (any CSS colour); also the accent inside the panel. */
  color?: string
  /** A short text shown once beside the launcher until dismissed or opened. */
  greeting?: string
  /** The launcher's accessible name. */
  label?: string
  onOpenChange?: (open: boolean) => void
  /** Warm up the panel's code (pointer over the launcher, or focus). */
  onPrefetch?: () => void
  /**
   * The panel's content, rendered from the first opening on; `notice` (公告 for embeds, when one
   * runs) goes right under its header (PanelHeader), above the messages.
   */
  children: (close: () => void, notice: ReactNode) => ReactNode
}

type Popoverish = HTMLElement & { showPopover?: () => void; hidePopover?: () => void }

/** Into the top layer (nothing on the page can cover it); pages without popover get a maximal z-index. */
function raise(el: Popoverish) {
  if (typeof el.showPopover !== 'function') return
  try {
    if (el.matches(':popover-open')) el.hidePopover!()
    el.showPopover()
  } catch {
    // not in the document any more, or a browser that half-supports popover: the z-index remains
  }
}

function lower(el: Popoverish) {
  try {
    if (typeof el.hidePopover === 'function' && el.matches(':popover-open')) el.hidePopover()
  } catch {
    // as above
  }
}

function readSeen(): string | null {
  try {
    return localStorage.getItem(GREETING_SEEN_KEY)
  } catch {
    return null
  }
}

function writeSeen(text: string) {
  try {
    localStorage.setItem(GREETING_SEEN_KEY, text)
  } catch {
    // storage refused (private mode, sandbox): the greeting may show again
  }
}

/**
 * The floating launcher and its chat panel: 400×640 beside the launcher's corner from 640 px up,
 * full screen below. Esc or the close button closes it and focus returns to the launcher. The
 * open state is reflected on the host (`open` attribute) and announced with lingxi-open/close.
 */
export function Bubble({ container, open, position, offset, icon, color, greeting, label, onOpenChange, onPrefetch, children }: BubbleProps) {
  const [isOpen, setOpen] = useState(!!open)
  /** Replies that finished while the panel was closed (the launcher's badge). */
  const [unread, setUnread] = useState(0)
  const [opened, setOpened] = useState(!!open)
  // 公告 for embeds: asked on the first opening; the notice's code loads only when one runs (announcement.tsx).
  const [notice, setNotice] = useState<ReactNode>()
  useEffect(() => {
    opened &&
      request<{ id: number; title: string; body: string }[]>('/announcements', { embed: true }).then(
        (list) => list[0] && import('./announcement').then((m) => setNotice(m.notice(list))),
        () => {}
      )
  }, [opened])
  const [greet, setGreet] = useState(false)
  const [ink, setInk] = useState<string | undefined>(undefined)
  const dock = useRef<HTMLDivElement>(null)
  const panel = useRef<HTMLDivElement>(null)
  const launcher = useRef<HTMLButtonElement>(null)
  const announced = useRef(false)
  const left = position?.endsWith('left')

  // The page set `open` (attribute, property, show()/hide(), lingxi('open'), or the React prop).
  useEffect(() => setOpen(!!open), [open])

  /**
   * A change from inside (launcher, Esc, close, the window command): reflected on the host at
   * once, from the event — never from an effect, which could undo an `open` the page set meanwhile.
   */
  const change = useEffectEvent((next: boolean) => {
    setOpen(next)
    container?.host.toggleAttribute('open', next)
  })

  // `lingxi('open')` / `lingxi('close')` reach every bubble, also those inside other shadow roots.
  useEffect(() => {
    const handle = (event: Event) => {
      const command = (event as CustomEvent<{ command?: string } | null>).detail?.command
      if (command === 'open' || command === 'close') change(command === 'open')
    }
    addEventListener(EVENT_COMMAND, handle)
    return () => removeEventListener(EVENT_COMMAND, handle)
  }, [])

  useEffect(() => {
    if (greeting && readSeen() !== greeting) setGreet(true)
  }, [greeting])

  // A reply finished (lingxi-message from this element) while closed: one more on the badge.
  const count = useEffectEvent(() => isOpen || setUnread((n) => n + 1))
  useEffect(() => {
    const host = container?.host
    host?.addEventListener(EVENT_MESSAGE, count)
    return () => host?.removeEventListener(EVENT_MESSAGE, count)
  }, [container])

  useLayoutEffect(() => {
    if (dock.current) raise(dock.current)
  }, [])

  useLayoutEffect(() => {
    const el = launcher.current
    if (!color || !el) return setInk(undefined)
    void import('./ink').then((m) => setInk(m.inkOn(getComputedStyle(el).backgroundColor)))
  }, [color])

  // On opening and closing only: raising the panel again later would put it above the login dialog.
  const reflectOpen = useEffectEvent((isOpen: boolean) => {
    const el = panel.current
    if (!el) return
    if (isOpen) {
      setOpened(true)
      setUnread(0)
      if (greeting) dismissGreeting()
      // Last into the top layer, so above everything but what opens later (the login dialog, toasts).
      raise(el)
      // Focus into the panel (the conversation moves it on to the question field once it is there).
      if (!el.contains(container?.activeElement ?? null)) el.focus()
    } else {
      const hadFocus = !!container?.activeElement && el.contains(container.activeElement)
      lower(el)
      if (hadFocus) launcher.current?.focus()
    }
  })
  useLayoutEffect(() => reflectOpen(isOpen), [isOpen])

  const announce = useEffectEvent((isOpen: boolean) => {
    if (!announced.current && !isOpen) return
    announced.current = true
    emitFrom(container, isOpen ? EVENT_OPEN : EVENT_CLOSE)
    onOpenChange?.(isOpen)
  })
  useEffect(() => announce(isOpen), [isOpen])

  function dismissGreeting() {
    setGreet(false)
    if (greeting) writeSeen(greeting)
  }

  function close() {
    change(false)
    launcher.current?.focus()
  }

  function handleKeyDown(event: { key: string; defaultPrevented: boolean; preventDefault(): void }) {
    if (event.key !== 'Escape' || event.defaultPrevented || !isOpen) return
    event.preventDefault()
    close()
  }

  const [x, y = x] =
    offset
      ?.trim()
      .split(/[\s,]+/)
      .map((v) => `${parseFloat(v)}px`) ?? []
  const accent = { '--lx-x': x, '--lx-y': y, ...(color && { '--color-primary': color, '--color-primary-ink': ink }) } as CSSProperties
  const name = label || t('打开灵犀 AI 对话')
  return (
    <>
      <div
        ref={dock}
        popover="manual"
        part="dock"
        style={accent}
        className={`fixed inset-auto bottom-[var(--lx-y,20px)] ${left ? 'left-[var(--lx-x,20px)] flex-row-reverse' : 'right-[var(--lx-x,20px)]'} m-0 p-0 border-0 bg-transparent overflow-visible z-[2147483647] flex items-center gap-3 pointer-events-none`}
      >
        {greet && !isOpen && (
          <div
            part="greeting"
            role="status"
            className="pointer-events-auto relative max-w-[240px] rounded-2xl border border-line bg-surface py-2.5 pl-4 pr-9 text-sm text-ink shadow-xl lx-rise"
          >
            <button type="button" onClick={() => change(true)} className="text-left">
              {greeting}
            </button>
            <button
              type="button"
              aria-label={t('关闭提示')}
              title={t('关闭提示')}
              onClick={dismissGreeting}
              className="absolute right-1.5 top-1.5 size-6 grid place-items-center rounded-full text-muted hover:text-ink hover:bg-raised"
            >
              <Glyph name="close" className="size-3.5" />
            </button>
          </div>
        )}
        <button
          ref={launcher}
          type="button"
          part="launcher"
          aria-label={unread ? `${name} · ${unread} ${t('条新回复')}` : name}
          title={name}
          aria-expanded={isOpen}
          aria-controls="lingxi-chat-panel"
          onClick={() => change(!isOpen)}
          onKeyDown={handleKeyDown}
          onPointerEnter={onPrefetch}
          onFocus={onPrefetch}
          className="pointer-events-auto relative size-14 shrink-0 grid place-items-center rounded-full bg-primary text-primary-ink shadow-[0_8px_24px_rgba(0,0,0,0.35)] transition-transform hover:scale-105 active:scale-95"
        >
          {isOpen ? (
            <Glyph name="chevron" className="size-7" />
          ) : icon ? (
            <img src={icon} alt="" className="size-14 rounded-full" />
          ) : (
            <Glyph name="chat" className="size-7" />
          )}
          {!!unread && (
            <span
              part="badge"
              aria-hidden="true"
              className="absolute top-1 right-1 size-5 grid place-items-center rounded-full bg-danger text-white text-xs font-semibold"
            >
              {unread}
            </span>
          )}
        </button>
      </div>
      <div
        ref={panel}
        id="lingxi-chat-panel"
        popover="manual"
        role="dialog"
        aria-label={t('灵犀 AI')}
        part="panel"
        tabIndex={-1}
        style={accent}
        onKeyDown={handleKeyDown}
        className={`fixed inset-0 m-0 p-0 w-full h-[100dvh] max-w-none max-h-none border-0 bg-bg text-ink overflow-hidden outline-none z-[2147483647] sm:inset-auto sm:bottom-[calc(var(--lx-y,20px)+76px)] ${
          left ? 'sm:left-[var(--lx-x,20px)]' : 'sm:right-[var(--lx-x,20px)]'
        } sm:w-[400px] sm:h-[640px] sm:max-w-[calc(100vw-40px)] sm:max-h-[calc(100dvh-var(--lx-y,20px)-96px)] sm:rounded-2xl sm:border sm:border-line sm:shadow-[0_16px_48px_rgba(0,0,0,0.45)] ${
          isOpen ? 'flex flex-col lx-rise' : 'hidden'
        }`}
      >
        {opened && children(close, notice)}
      </div>
    </>
  )
}
