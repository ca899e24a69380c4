import { admin } from './admin/tool'
import { chat } from './chat/tool'
import { hotNews } from './hot-news/tool'
import { imageHost } from './image-host/tool'
import { login } from './login/tool'
import type { Tool } from './manifest'
import { music } from './music/tool'
import { orders } from './orders/tool'
import { painting } from './painting/tool'
import { profile } from './profile/tool'
import { roles } from './roles/tool'
import { toaster } from './toaster/tool'
import { userCenter } from './user-center/tool'

/**
 * Every tool of Lingxi, one manifest each (src/widgets/<tool>/tool.ts). The host's routes and
 * menu, the loader's tag table, the npm entry, the custom-elements manifest and the size report
 * are all derived from this list (derive.ts, scripts/tools.mjs): adding a tool is its folder and
 * its entry here.
 */
export const tools: readonly Tool[] = [login, profile, toaster, chat, roles, painting, imageHost, userCenter, music, hotNews, orders, admin]
