import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Config } from '../config.js'
import { accounts } from '../db/schema.js'
import { isUniqueViolation } from '../db/errors.js'
import { ApiError } from '../errors.js'
import { type Api, type AppContext, defineRoute } from '../http/api.js'
import { clientAddress } from '../http/client-address.js'
import { fields, literalNumber, oneOf } from '../http/fields.js'
import { findAccountByPhone, findOrCreateAccount } from './accounts.js'
import { type Phone, requirePhone } from './phone.js'
import { clearSessionCookie, fromBrowser, issueSession } from './cookie.js'
import { phoneFor } from './phone-view.js'
import { announceRevoked } from './session-streams.js'
import { createSession, type Platform, revokeAccountSessions, revokeSession } from './sessions.js'
import { checkCode, consumeCode } from './sms-codes.js'
import { BROWSER_SESSION_TTL_MS, TOKEN_TTL_MS } from './tokens.js'
import type { SendCode } from './sms-sender.js'
import { hasPlaceholderPhone } from './partner-origin.js'
import { loginResponse, sendCodeResponse } from './wire.js'

const PHONE_TAKEN = '该手机号已被其他账号使用'

export function registerAuthRoutes(api: Api, config: Config, sendCode: SendCode): void {
  const { db, now } = api
  const tag = 'auth'
  const allowlisted = (p: Phone) => config.loginWithoutCodePhones.some((a) => a.enCode === p.enCode && a.phone === p.phone)
  const address = (c: AppContext) => clientAddress(c, config.trustProxy)
  const sessionTtl = (c: AppContext) => (fromBrowser(c) ? BROWSER_SESSION_TTL_MS : TOKEN_TTL_MS)
  const answer = (c: AppContext, session: { accessToken: string; accountId: string; phone: string }, ttl: number) => ({
    accessToken: issueSession(c, session.accessToken, ttl),
    accountId: session.accountId,
    phone: phoneFor(c, config, session.phone)
  })
  // Once the revocation committed: the streams opened with those sessions close on every node. A
  // failed publish does not undo the logout; the bus logs its own failures, and each node's
  // periodic check of its open streams' sessions closes them instead (auth/session-streams.ts).
  // This node forgets them at once (its own copy of the announcement may come later, on Redis).
  const closeStreams = (sessionIds: number[]) => {
    api.sessions?.forgetSessions(sessionIds)
    return announceRevoked(api.bus, sessionIds).catch(() => {})
  }

  /**
   * Consumes the checked code (if any), finds or creates the account and opens a session,
   * atomically. A browser gets the session as its HttpOnly cookie (auth/cookie.ts), short and
   * renewed on use, and the phone number as its page may see it (auth/phone-view.ts).
   */
  async function logIn(c: AppContext, phone: Phone, platform: Platform, codeId: number | undefined) {
    const ttl = sessionTtl(c)
    const session = await db.transaction(async (tx) => {
      const t = now()
      if (codeId !== undefined) await consumeCode(tx, codeId, t)
      const accountId = await findOrCreateAccount(tx, phone, config, t)
      const accessToken = await createSession(tx, accountId, platform, t, ttl)
      return { accessToken, accountId, phone: phone.phone }
    })
    return answer(c, session, ttl)
  }

  defineRoute(
    api,
    '/api/v1/auth/send-sms-code',
    {
      tag,
      summary: 'Send a login code by SMS (withoutCode 1: this phone logs in without one)',
      body: z.object({
        enCode: fields.enCode,
        phone: fields.phone,
        smsType: oneOf('smsType', ['LOGIN']).optional(),
        imgVerifyState: literalNumber('imgVerifyState', [0, 1]).optional()
      }),
      response: sendCodeResponse,
      message: '短信验证码已发送'
    },
    async ({ c, body }) => {
      const phone = requirePhone(body.enCode, body.phone)
      // Review and test accounts: nothing is sent, so nothing is rate limited.
      if (allowlisted(phone)) return { withoutCode: 1 as const }
      await sendCode(phone, 'LOGIN', address(c))
      return { withoutCode: 0 as const }
    }
  )

  defineRoute(
    api,
    '/api/v1/auth/login',
    {
      tag,
      summary: 'Log in with an SMS code; the first login creates the account',
      body: z.object({ enCode: fields.enCode, phone: fields.phone, code: fields.code, platform: fields.platform }),
      response: loginResponse,
      message: '登录成功！'
    },
    async ({ c, body }) => {
      const phone = requirePhone(body.enCode, body.phone)
      const codeId = await checkCode(db, phone, 'LOGIN', body.code, now())
      return logIn(c, phone, body.platform, codeId)
    }
  )

  defineRoute(
    api,
    '/api/v1/auth/login-without-code',
    {
      tag,
      summary: 'Log in without a code (allowlisted review and test phones only)',
      body: z.object({ enCode: fields.enCode.optional(), phone: fields.phone, platform: fields.platform }),
      response: loginResponse,
      message: '登录成功！'
    },
    async ({ c, body }) => {
      const phone = requirePhone(body.enCode ?? '86', body.phone)
      if (!allowlisted(phone)) throw new ApiError(40300001, '该手机号不支持免验证码登录')
      return logIn(c, phone, body.platform, undefined)
    }
  )

  defineRoute(
    api,
    '/api/v1/auth/logout',
    {
      tag,
      summary: 'Revoke the session of this request (bearer or cookie); the session cookie is cleared',
      body: z.object({}),
      auth: true,
      response: z.null(),
      message: '已退出登录，期待您再次回来'
    },
    async ({ c, auth }) => {
      await revokeSession(db, auth.sessionId, 'logout', now())
      clearSessionCookie(c)
      await closeStreams([auth.sessionId])
      return null
    }
  )

  defineRoute(
    api,
    '/api/v1/auth/session-cookie',
    {
      tag,
      summary: 'A browser trades the readable bearer of an older client for the session cookie: a fresh cookie session opens, the bearer’s ends',
      body: z.object({}),
      auth: true,
      response: loginResponse,
      message: '操作成功'
    },
    async ({ c, auth }) => {
      if (!fromBrowser(c)) throw new ApiError(40000001, '只有浏览器页面可以换取会话 Cookie（请求缺少 Origin）')
      const login = await db.transaction(async (tx) => {
        const t = now()
        await revokeSession(tx, auth.sessionId, 'logout', t)
        const accessToken = await createSession(tx, auth.account.id, auth.platform, t, BROWSER_SESSION_TTL_MS, auth.partnerId)
        // An account made by WeChat login has a placeholder until a phone is bound: it shows none.
        return { accessToken, accountId: auth.account.id, phone: hasPlaceholderPhone(auth.account.enCode) ? '' : auth.account.phone }
      })
      await closeStreams([auth.sessionId])
      return answer(c, login, BROWSER_SESSION_TTL_MS)
    }
  )

  async function newPhoneFor(accountId: string, current: Phone, enCode: string, raw: string): Promise<Phone> {
    const phone = requirePhone(enCode, raw)
    if (phone.enCode === current.enCode && phone.phone === current.phone) throw new ApiError(40000001, '新手机号与当前手机号相同')
    const owner = await findAccountByPhone(db, phone)
    if (owner && owner.id !== accountId) throw new ApiError(50011009, PHONE_TAKEN)
    return phone
  }

  defineRoute(
    api,
    '/api/v1/auth/modify-phone-sms-code',
    {
      tag,
      summary: 'Send a code to the new phone number',
      body: z.object({ enCode: fields.enCode, phone: fields.phone }),
      auth: true,
      response: sendCodeResponse,
      message: '短信验证码已发送'
    },
    async ({ c, body, auth }) => {
      const phone = await newPhoneFor(auth.account.id, auth.account, body.enCode, body.phone)
      await sendCode(phone, 'MODIFY_PHONE', address(c))
      return { withoutCode: 0 as const }
    }
  )

  defineRoute(
    api,
    '/api/v1/auth/modify-phone',
    {
      tag,
      summary: 'Change the phone number; every session ends and a new token is returned',
      body: z.object({ enCode: fields.enCode, phone: fields.phone, code: fields.code }),
      auth: true,
      response: loginResponse,
      message: '修改成功！'
    },
    async ({ c, body, auth }) => {
      const phone = await newPhoneFor(auth.account.id, auth.account, body.enCode, body.phone)
      const codeId = await checkCode(db, phone, 'MODIFY_PHONE', body.code, now())
      const ttl = sessionTtl(c)
      const { revoked, login } = await db
        .transaction(async (tx) => {
          const t = now()
          await consumeCode(tx, codeId, t)
          await tx
            .update(accounts)
            .set({ enCode: phone.enCode, phone: phone.phone, updatedAt: new Date(t) })
            .where(eq(accounts.id, auth.account.id))
          // Every session of the account ends, this one included: whoever knew the old number
          // must not stay logged in. The caller proved the new number just now, so it gets a
          // fresh token in the answer and the browser stays logged in without a second login.
          const revoked = await revokeAccountSessions(tx, auth.account.id, 'phone-change', t)
          // A partner's session stays locked to its origins (auth/partner-origin.ts).
          const accessToken = await createSession(tx, auth.account.id, auth.platform, t, ttl, auth.partnerId)
          return { revoked, login: { accessToken, accountId: auth.account.id, phone: phone.phone } }
        })
        .catch((error: unknown) => {
          // Another account took the number between the check above and this update.
          if (isUniqueViolation(error)) throw new ApiError(50011009, PHONE_TAKEN)
          throw error
        })
      // By id, not by account: the session just created for the answer keeps its streams.
      await closeStreams(revoked)
      return answer(c, login, ttl)
    }
  )
}
