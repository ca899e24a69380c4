import type { Config } from '../config.js'
import { createConsoleSmsProvider } from './console-provider.js'
import { createHttpSmsProvider } from './http-provider.js'
import type { SmsProvider } from './provider.js'

export type { SmsProvider } from './provider.js'
export { createConsoleSmsProvider } from './console-provider.js'
export { createHttpSmsProvider } from './http-provider.js'

export function createSmsProvider(sms: Config['sms']): SmsProvider {
  if (sms.provider === 'http' && sms.httpUrl) return createHttpSmsProvider({ url: sms.httpUrl, token: sms.httpToken })
  return createConsoleSmsProvider()
}
