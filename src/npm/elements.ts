/**
 * Types only, no code (issue 16): the `lingxi-*` tags in HTMLElementTagNameMap (properties and
 * methods, e.g. `document.querySelector('lingxi-chat')!.send('你好')`; every tag builds on
 * LingxiElement of src/ui/define.ts: `document.querySelector('lingxi-painting')!.session`) and in React's
 * JSX.IntrinsicElements, for apps that also place the custom elements of the CDN loader. Each
 * element module declares its own; they define the tags when run, so only their types come here.
 * The event details are in GlobalEventHandlersEventMap, WindowEventMap and DocumentEventMap (the
 * chat's events.ts, core/emit.ts).
 */
export type {} from '../widgets/admin/admin.element'
export type {} from '../widgets/chat/chat.element'
export type {} from '../widgets/hot-news/hot-news.element'
export type {} from '../widgets/image-host/image-host.element'
export type {} from '../widgets/login/login.element'
export type {} from '../widgets/music/music.element'
export type {} from '../widgets/orders/orders.element'
export type {} from '../widgets/painting/painting.element'
export type {} from '../widgets/profile/profile.element'
export type {} from '../widgets/roles/roles.element'
export type {} from '../widgets/toaster/toaster.element'
export type {} from '../widgets/user-center/user-center.element'
