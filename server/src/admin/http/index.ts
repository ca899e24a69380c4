import type { AllowanceRegistry } from '../../allowances/registry.js'
import type { Api } from '../../http/api.js'
import { registerAuditRoutes } from './audit.js'
import { registerCardRoutes } from './cards.js'
import { bootstrapOperators, firstOperators, refuseDisabledLogin } from './gate.js'
import { registerUserRoutes } from './users.js'

/**
 * Before the login routes: a disabled account's login is refused (gate.ts). Registered first so it
 * wraps them.
 */
export function guardLogins(api: Api): void {
  api.app.use('/api/v1/auth/*', refuseDisabledLogin(api))
}

/**
 * The operator HTTP API under /api/admin (docs/deployment.md, "Operating Lingxi"): behind the ADMIN
 * permission, every change written to the audit log. `adminPhones` is ADMIN_PHONES.
 */
export function registerAdminRoutes(api: Api, options: { allowances: AllowanceRegistry; adminPhones?: string | undefined }): void {
  const phones = firstOperators(options.adminPhones)
  api.app.use('/api/admin/*', bootstrapOperators(api, phones))
  registerUserRoutes(api, options.allowances)
  registerCardRoutes(api, options.allowances)
  registerAuditRoutes(api)
}
