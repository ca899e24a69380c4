import { chat } from './chat/index.js'
import { hotNews } from './hot-news/index.js'
import { imageHost } from './image-host/index.js'
import { music } from './music/index.js'
import { orders } from './orders/index.js'
import { painting } from './painting/index.js'
import { payments } from './payments/index.js'
import { userCenter } from './user-center/index.js'

/**
 * The one list of the server's tools. app.ts registers their routes and jobs in this order,
 * server.ts sweeps, starts, resumes and closes them in it. A new tool: its folder, and one line here.
 */
export const MODULES = [chat, painting, music, hotNews, imageHost, userCenter, orders, payments] as const
