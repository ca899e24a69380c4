import type { SmsProvider } from './provider.js'

/**
 * Development default: one stdout line per message, exactly `[sms] +<enCode> <phone> <code>`.
 * End-to-end tests read the code from the server's stdout by this format (API.md).
 */
export function createConsoleSmsProvider(write: (line: string) => void = (line) => process.stdout.write(line)): SmsProvider {
  return {
    async send(enCode, phone, code) {
      write(`[sms] +${enCode} ${phone} ${code}\n`)
    }
  }
}
