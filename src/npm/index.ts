/**
 * The npm entry for React apps: `import { LingxiProvider, Chat, LoginDialog, Profile, Toaster, useUser } from 'lingxi'`.
 * React stays a peer dependency here (the CDN build swaps in preact/compat instead). Every
 * component renders in its own shadow root with Lingxi's stylesheet, like the custom elements.
 * Importing this module touches no browser global, so server renderers may import it; the
 * components render an empty host there and fill it on the client.
 */
import { Chat as ChatInner } from '../widgets/chat/chat'
import { HotNews as HotNewsInner } from '../widgets/hot-news'
import { ImageHost as ImageHostInner } from '../widgets/image-host'
import { Login as LoginInner } from '../widgets/login'
import { Music as MusicInner } from '../widgets/music'
import { Orders as OrdersInner } from '../widgets/orders'
import { Painting as PaintingInner } from '../widgets/painting'
import { Profile as ProfileInner } from '../widgets/profile'
import { Toaster as ToasterInner } from '../widgets/toaster'
import { UserCenter as UserCenterInner } from '../widgets/user-center'
import { withShadow } from './shadow'

export * from '../core'
export type { ChatProps } from '../widgets/chat/chat'
export { EVENT_CLOSE, EVENT_MESSAGE, EVENT_OPEN, type ReplyDetail } from '../widgets/chat/events'
export type { LoginProps } from '../widgets/login'
export type { HotNewsProps } from '../widgets/hot-news'
export type { MusicProps } from '../widgets/music'
export type { PaintingProps, PaintingView } from '../widgets/painting'
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
/** AI painting: `view` mj (default), sd, helper or gallery; `prompt` starts /mj with a prompt. */
export const Painting = withShadow(PaintingInner, 'painting')
/** The image host: upload (drop, paste, pick) with progress, my images, copy links, preview, delete. */
export const ImageHost = withShadow(ImageHostInner, 'image-host')
/** The personal center: `tab` general, card or setting. */
export const UserCenter = withShadow(UserCenterInner, 'user-center')
/** AI music: create from a description or lyrics, two songs per request, the player (it keeps playing across routes; `mini` for the compact bar). */
export const Music = withShadow(MusicInner, 'music')
/** Hot news: source tabs, ranked lists, open the original, AI 解读 streamed. */
export const HotNews = withShadow(HotNewsInner, 'hot-news')
/** The order platforms: `quality` for 优质接单平台; `view` list, mine or detail (with `activityId`, `sessionId`). */
export const Orders = withShadow(OrdersInner, 'orders')
