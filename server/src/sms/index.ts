import type { Config } from '../config.js'
import { createAliyunSmsProvider } from './aliyun.js'
import { createConsoleSmsProvider } from './console-provider.js'
import { createHttpSmsProvider } from './http-provider.js'
import type { SmsProvider } from './provider.js'
import { createTencentSmsProvider } from './tencent.js'

export type { SmsProvider } from './provider.js'

export function createSmsProvider(sms: Config['sms']): SmsProvider {
  if (sms.provider === 'http' && sms.httpUrl) return createHttpSmsProvider({ url: sms.httpUrl, token: sms.httpToken, timeoutMs: sms.timeoutMs })
  if (sms.provider === 'aliyun' && sms.aliyun) return createAliyunSmsProvider({ ...sms.aliyun, timeoutMs: sms.timeoutMs })
  if (sms.provider === 'tencent' && sms.tencent) return createTencentSmsProvider({ ...sms.tencent, timeoutMs: sms.timeoutMs })
  return createConsoleSmsProvider()
}
