/**
 * The `lingxi(...)` commands that need Lingxi's core, loaded by the loader on the first such call
 * (and for such calls queued before it arrived). `on`, `open`, `close` and `load` run in the
 * loader itself. Unknown commands are reported on the console, never thrown at the page.
 */
import { logout, startSession } from '../core/auth'
import { identify } from '../core/identify'
import { currentSession, openLogin } from '../core/stores'

type Handler = (...args: unknown[]) => unknown

const handlers: Record<string, Handler> = {
  /** Opens the login dialog. */
  login: () => openLogin(),
  /** Logs out every Lingxi element on the page. */
  logout: () => logout(),
  /** Resolves who is logged in once the session is known (a restored one confirmed by the server), or null. */
  session: async () => {
    await startSession()
    return currentSession()
  },
  /** Logs the partner's user in with the assertion its backend signed (partner single sign-on). */
  identify
}

type ChatElement = HTMLElementTagNameMap['lingxi-chat']

/** The page's chats once defined: every one (`all`), or the one a question goes to — the first bubble, else the first chat. */
async function chats(all?: boolean): Promise<ChatElement[]> {
  await customElements.whenDefined('lingxi-chat')
  const list = [...document.querySelectorAll('lingxi-chat')]
  return all
    ? list
    : list
        .filter((el) => el.mode === 'bubble')
        .concat(list)
        .slice(0, 1)
}

/** `lingxi.chat.*` (`lingxi('send', text)`…): the page's chat; open and close run in the loader. */
const chat: Record<string, Handler> = {
  toggle: async () => {
    for (const el of await chats(true)) el.toggle()
  },
  send: async (text) => {
    for (const el of await chats()) el.send(String(text))
  },
  prefill: async (text) => {
    for (const el of await chats()) el.prefill(String(text))
  },
  /** `{title, url}` instead of the page's own; false: none; true (or nothing): the page's title and URL again. */
  context: async (value) => {
    for (const el of await chats(true)) {
      el.pageContext = value === false ? 'off' : undefined
      el.context = value && typeof value === 'object' ? (value as ChatElement['context']) : undefined
    }
  },
  /**
   * The loader tag's `data-chat="bubble"` (the loader runs this): a chat added to the end of
   * <body>, its mode from data-chat and the other data-* but the loader's own as its attributes —
   * data-page-context="off" → page-context="off".
   */
  add: (data) => {
    const el = document.createElement('lingxi-chat')
    for (const [key, value] of Object.entries(data as Record<string, string>))
      if (!/^(api|site|cookieDomain)$/.test(key)) el.setAttribute(key === 'chat' ? 'mode' : key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), value)
    const append = () => document.body.append(el)
    if (document.body) append()
    else addEventListener('DOMContentLoaded', append, { once: true })
  },
  /** Removes the page's chats (a bubble's launcher and panel go with it). */
  destroy: async () => {
    for (const el of await chats(true)) el.destroy()
  }
}

export function run([command, ...args]: [string, ...unknown[]]): unknown {
  startSession()
  const handler = handlers[command] ?? chat[command]
  if (!handler) {
    console.warn(`[lingxi] unknown command: ${String(command)}`)
    return undefined
  }
  return handler(...args)
}
