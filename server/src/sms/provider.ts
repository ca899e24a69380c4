import type { SmsPurpose } from '../db/schema.js'

/**
 * Delivers one verification code. Throwing means the code did not go out: the sender
 * releases the resend window and the caller sees an upstream error.
 */
export interface SmsProvider {
  send(enCode: string, phone: string, code: string, purpose: SmsPurpose): Promise<void>
}
