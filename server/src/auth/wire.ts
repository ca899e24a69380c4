import { z } from 'zod'

/** `auth/login`, `auth/login-without-code` and `auth/modify-phone`: the session opened. */
export const loginResponse = z.object({ accessToken: z.string(), accountId: z.string(), phone: z.string() }).meta({ id: 'LoginResult' })

/** `auth/send-sms-code` and `auth/modify-phone-sms-code`; withoutCode 1: this phone logs in without a code. */
export const sendCodeResponse = z.object({ withoutCode: z.union([z.literal(0), z.literal(1)]) }).meta({ id: 'SendCodeResult' })

/**
 * A WeChat login, as the callback hands it back in `?login=` (base64 of this JSON) or the popup
 * stores it. needPhone: the account was made by this login and has no phone yet (phone is '').
 */
export const wechatLoginPayload = loginResponse.extend({ needPhone: z.boolean() })
