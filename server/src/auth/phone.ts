import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { ApiError } from '../errors.js'

export interface Phone {
  /** Country calling code without "+", e.g. "86". */
  enCode: string
  /** National significant number, e.g. "13800138000". */
  phone: string
}

export const INVALID_PHONE_MESSAGE = '手机号格式不正确'

/**
 * Validates a phone number for its country calling code and returns it normalised, or
 * undefined. The "max" metadata checks number ranges, not just lengths.
 */
export function parsePhone(enCode: string, phone: string): Phone | undefined {
  if (!/^[0-9]{1,4}$/.test(enCode)) return undefined
  // A "+" inside the national part would let the number pick a different country.
  if (!/^[0-9 ()\-.]+$/.test(phone)) return undefined
  const parsed = parsePhoneNumberFromString(`+${enCode}${phone}`)
  if (!parsed || parsed.countryCallingCode !== enCode || !parsed.isValid()) return undefined
  return { enCode, phone: parsed.nationalNumber }
}

export function requirePhone(enCode: string, phone: string): Phone {
  const parsed = parsePhone(enCode, phone)
  if (!parsed) throw new ApiError(50011008, INVALID_PHONE_MESSAGE)
  return parsed
}

export function phoneKey({ enCode, phone }: Phone): string {
  return `${enCode}:${phone}`
}
