import type { AllowanceRegistry } from '../../allowances/registry.js'
import type { MiddlewareHandler } from 'hono'
import type { Api, AppEnv } from '../../http/api.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { registerAnnouncementRoutes } from './announcements.js'
import { registerAuditRoutes } from './audit.js'
import { registerCardRoutes } from './cards.js'
import { registerChannelRoutes } from './channels.js'
import { registerContentRoutes } from './content.js'
import { bootstrapOperators, firstOperators, refuseDisabledLogin } from './gate.js'
import { registerModerationRoutes } from './moderation.js'
import { registerOrderAdminRoutes } from './orders.js'
import { registerPaymentAdminRoutes } from './payments.js'
import { registerReportRoutes } from './reports.js'
import { registerStatsRoutes } from './stats.js'
import { registerUserRoutes } from './users.js'
import { registerWordRoutes } from './words.js'
import { registerReportRoute } from '../../moderation/report-route.js'
import type { ModerationSettings } from '../../moderation/settings.js'

/**
 * Before the login routes: a disabled account's login is refused (gate.ts). Registered first so it
 * wraps them.
 */
export function guardLogins(api: Api): void {
  api.app.use('/api/v1/auth/*', refuseDisabledLogin(api))
  // An ADMIN_PHONES account is made an operator when the site first asks for its menu, so the console
  // opens on the first visit, and before every /api/admin route — those registered before
  // registerAdminRoutes too (/api/admin/partners, auth/partner.ts): Hono runs a middleware only for
  // routes added after it, and the console's first calls race the menu's (the middleware is set by
  // registerAdminRoutes).
  const bootstrap: MiddlewareHandler<AppEnv> = (c, next) => (bootstraps.get(api) ?? ((_, go) => go()))(c, next)
  api.app.use('/api/v1/userPermission', bootstrap)
  api.app.use('/api/admin/*', bootstrap)
}

const bootstraps = new WeakMap<Api, MiddlewareHandler<AppEnv>>()

/**
 * The operator HTTP API under /api/admin (docs/deployment.md, "Operating Lingxi"): behind the ADMIN
 * permission, every change written to the audit log. `adminPhones` is ADMIN_PHONES.
 */
export function registerAdminRoutes(
  api: Api,
  options: {
    allowances: AllowanceRegistry
    adminPhones?: string | undefined
    chat?: Pick<ChatRuntime, 'channels' | 'models'>
    moderation?: ModerationSettings | undefined
  }
): void {
  const phones = firstOperators(options.adminPhones)
  // Run before every /api/admin route and the menu's (guardLogins).
  bootstraps.set(api, bootstrapOperators(api, phones))
  registerUserRoutes(api, options.allowances)
  registerCardRoutes(api, options.allowances)
  registerPaymentAdminRoutes(api, options.allowances)
  registerOrderAdminRoutes(api)
  registerModerationRoutes(api)
  registerAuditRoutes(api)
  if (options.chat) registerChannelRoutes(api, options.chat.channels, options.chat.models)
  registerContentRoutes(api)
  registerReportRoutes(api)
  // The users' side of reports (POST /api/v1/report), whose queue is the console's.
  registerReportRoute(api)
  registerWordRoutes(api, options.moderation)
  registerStatsRoutes(api)
  // The visitors' side (POST /api/v1/announcements) with the operators'.
  registerAnnouncementRoutes(api)
}
