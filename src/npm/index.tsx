/**
 * The npm entry for React apps: `import { LingxiProvider, Chat, LoginDialog, Profile, Toaster, useUser } from 'lingxi'`.
 * React stays a peer dependency here (the CDN build swaps in preact/compat instead). Every
 * component renders in its own shadow root with Lingxi's stylesheet, like the custom elements.
 * Importing this module touches no browser global, so server renderers may import it; the
 * components render an empty host there and fill it on the client.
 */
import { Chat as ChatInner } from '../widgets/chat/chat'
import { Login as LoginInner } from '../widgets/login'
import { Profile as ProfileInner } from '../widgets/profile'
import { Toaster as ToasterInner } from '../widgets/toaster'
import { withShadow } from './shadow'

export * from '../core'
export type { ChatProps } from '../widgets/chat/chat'
export { EVENT_CLOSE, EVENT_MESSAGE, EVENT_OPEN, type ReplyDetail } from '../widgets/chat/events'
export type { LoginProps } from '../widgets/login'
export { useLoginOpen, useMenu, useUser } from './hooks'
export { LingxiProvider, type LingxiProviderProps } from './provider'
export { withShadow, type ShadowProps } from './shadow'

/**
 * Text chat with streaming replies; `mode="bubble"` makes it a floating launcher with a chat
 * panel (`open`, `position`, `color`, `greeting`, `label`, `onOpenChange`). `onMessage` hears
 * every finished reply.
 */
export const Chat = withShadow(ChatInner, 'chat')
/** The login dialog, plus a 登录 button with `button`. */
export const Login = withShadow(LoginInner, 'login')
/** The signed-in person's header button, menu and profile panel. */
export const Profile = withShadow(ProfileInner, 'profile')
/** Toasts and confirm dialogs for the page (render one per app). */
export const Toaster = withShadow(ToasterInner, 'toaster')
/** The login dialog alone (opens with `openLogin()`). */
export const LoginDialog = withShadow(() => <LoginInner />, 'login-dialog')
