import type { AccessEntry } from './http.js'
import { stdoutAccessLog } from './http.js'

/** The operations settings of an app (docs/deployment.md, "Operating Lingxi"). */
export interface OpsOptions {
  /** METRICS_TOKEN: /metrics answers only this bearer token; unset: only internal addresses. */
  metricsToken?: string
  /** ACCESS_LOG=off turns the access log off; tests pass their own writer. */
  accessLog?: ((entry: AccessEntry) => void) | false
  /** ADMIN_PHONES: phones whose accounts become operators (ADMIN) on their first /api/admin call. */
  adminPhones?: string
}

export function readOpsEnv(env: Record<string, string | undefined> = process.env): OpsOptions {
  // On unless turned off; under the test runner off unless turned on (test output stays readable).
  const setting = env.ACCESS_LOG?.trim()
  const off = setting ? /^(off|false|0|no)$/i.test(setting) : env.NODE_ENV === 'test'
  return {
    ...(env.METRICS_TOKEN ? { metricsToken: env.METRICS_TOKEN } : {}),
    ...(env.ADMIN_PHONES ? { adminPhones: env.ADMIN_PHONES } : {}),
    accessLog: off ? false : stdoutAccessLog
  }
}
