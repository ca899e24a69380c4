// Generated from src/widgets/tools.ts by scripts/tools.mjs (`node scripts/tools.mjs` writes it; the build
// does too, and a unit test fails while it is stale). Do not edit.
import { withShadow } from './shadow'
import { Login as LoginComponent, LoginDialog as LoginDialogComponent } from '../widgets/login'
import { Profile as ProfileComponent } from '../widgets/profile'
import { Toaster as ToasterComponent } from '../widgets/toaster'
import { Chat as ChatComponent } from '../widgets/chat'
import { Roles as RolesComponent } from '../widgets/roles'
import { Painting as PaintingComponent } from '../widgets/painting'
import { ImageHost as ImageHostComponent } from '../widgets/image-host'
import { UserCenter as UserCenterComponent } from '../widgets/user-center'
import { Music as MusicComponent } from '../widgets/music'
import { HotNews as HotNewsComponent } from '../widgets/hot-news'
import { Orders as OrdersComponent } from '../widgets/orders'
import { Admin as AdminComponent } from '../widgets/admin'

export * from '../widgets/login'
export * from '../widgets/profile'
export * from '../widgets/toaster'
export * from '../widgets/chat'
export * from '../widgets/roles'
export * from '../widgets/painting'
export * from '../widgets/image-host'
export * from '../widgets/user-center'
export * from '../widgets/music'
export * from '../widgets/hot-news'
export * from '../widgets/orders'
export * from '../widgets/admin'

/** Phone-number login: the dialog every Lingxi widget opens, plus an optional button. */
export const Login = /* @__PURE__ */ withShadow(LoginComponent, 'login')

/** The login dialog alone (it opens with `openLogin()`), for apps with a 登录 button of their own. */
export const LoginDialog = /* @__PURE__ */ withShadow(LoginDialogComponent, 'login-dialog')

/** The signed-in person: a header button (masked phone with a menu) and the profile panel with usage, permitted tools, change phone and log out. Renders nothing while logged out. */
export const Profile = /* @__PURE__ */ withShadow(ProfileComponent, 'profile')

/** Toast messages and confirm dialogs for the whole page. Any script can raise them with `window.dispatchEvent(new CustomEvent('lingxi-toast', {detail: {message, type}}))` or `lingxi-confirm` (detail `{message, title?, resolve}`). */
export const Toaster = /* @__PURE__ */ withShadow(ToasterComponent, 'toaster')

/** Text chat with streaming replies: topics grouped 置顶 / 今天 / 七天内 / 更早 (pin, rename, delete), markdown answers with their reasoning, stop, retry and regenerate, model, temperature and context per topic. Logged out, a login prompt (the login dialog opens inside the element). Inline, the messages scroll inside the element: give it a height (or set --lingxi-chat-height). With `mode="bubble"`, a round launcher in a corner of the page opens the chat in a panel (400×640, full screen below 640 px); Esc closes it and focus returns to the launcher. */
export const Chat = /* @__PURE__ */ withShadow(ChatComponent, 'chat')

/** The role repository: filter by tag (全部, each tag with its count, 我的), search, start a conversation with a role, and create, edit or delete your own roles. Logged out, a login prompt. */
export const Roles = /* @__PURE__ */ withShadow(RolesComponent, 'roles')

/** AI painting: Midjourney jobs with progress, U/V/reroll/pan buttons, describe and blend (`view="mj"`), stable diffusion (`view="sd"`), the prompt helper (`view="helper"`) and the gallery (`view="gallery"`). Logged out, a login prompt. */
export const Painting = /* @__PURE__ */ withShadow(PaintingComponent, 'painting')

/** The image host: upload images by drag and drop, paste or the file picker (several at once, a progress bar each), browse my images, copy a link as URL, Markdown or HTML, preview (arrow keys move, Esc closes) and delete. Logged out, a login prompt. */
export const ImageHost = /* @__PURE__ */ withShadow(ImageHostComponent, 'image-host')

/** The personal center: 账户总览 (allowances, 已过期 when the account has expired, the balance log), 卡密兑换 (redeem a recharge card, the recharge log), 在线充值 (buy a package with WeChat Pay, Alipay or 演示支付, and my orders) and 个人设置 (nickname, avatar, change phone, log out). Logged out, a login prompt. */
export const UserCenter = /* @__PURE__ */ withShadow(UserCenterComponent, 'user-center')

/** AI music: create two songs from a description, or from lyrics, style tags and a title (AI 写词 writes the lyrics), follow their progress, and play them — play/pause, seek, previous/next, lyrics, download. The audio belongs to the page, not to the element: it keeps playing when the element goes away, and `<lingxi-music mini>` is the compact bar that controls it from anywhere. Songs of the offline demo composer are marked 示例. */
export const Music = /* @__PURE__ */ withShadow(MusicComponent, 'music')

/** Hot news: the hot lists of Chinese sites (微博, 知乎, 百度, 抖音, B站…) and feeds, one tab per source, ranked with their heat; open the original, copy the list as text, and AI 解读 — a short commentary on one item streamed by the chat model (charged to tokens). Sample data of the offline demo source is marked 示例数据; a source that failed to update shows its last list with a notice. */
export const HotNews = /* @__PURE__ */ withShadow(HotNewsComponent, 'hot-news')

/** Order platforms (接单平台 / 优质接单平台): paid content tasks published by the operator. Browse activities (filters: platform, status, keyword) with their reward, places left and time window; open a session, take an order, write the content (AI 起草 streams a draft from the brief), post it, submit the link with 1–6 screenshots; once the operator approves, 领取红包 opens a WeChat red packet with the reward. */
export const Orders = /* @__PURE__ */ withShadow(OrdersComponent, 'orders')

/** The operator console (needs the ADMIN permission): 用户 (search, allowances and logs, adjust with a reason, disable/enable, permissions), 充值卡 (batches, CSV, void), 套餐 (recharge packages, on/off sale), 订单 (filters, CSV, refunds), 内容 (take down / restore), 举报 (the reports queue), 审核日志 (the moderation log, CSV), 敏感词库 (the word list), 公告 (announcements), 统计 (daily charts, CSV), 渠道 (upstream channels, their health), 模型倍率 (per-model price ratios) and 审计日志. Logged out, a login prompt. */
export const Admin = /* @__PURE__ */ withShadow(AdminComponent, 'admin')
