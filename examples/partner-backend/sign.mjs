// Signs a Lingxi identity assertion on the partner's backend (single sign-on, see README
// "合作方单点登录" and docs/decisions/0020-partner-sso.md). Plain Node ≥ 18, no dependencies:
// copy this file into your backend.
//
//   import { signAssertion } from './sign.mjs'
//   const assertion = signAssertion({ partnerId: 'acme', secret: process.env.LINGXI_PARTNER_SECRET, sub: user.id, nickname: user.name })
//   // hand it to your page, which calls lingxi.identify(assertion)
//
// Or from a shell:  LINGXI_PARTNER_SECRET=… node sign.mjs acme user-42 [nickname]
//
// Never sign in the browser: the secret must stay on your server. Sign one assertion per login,
// right before the page needs it; it is valid for at most 5 minutes and accepted only once.
import { createHmac, randomUUID } from 'node:crypto'
import { pathToFileURL } from 'node:url'

const base64url = (value) => Buffer.from(value).toString('base64url')

/**
 * @param {object} input
 * @param {string} input.partnerId  your partner id (iss), as configured on the Lingxi server
 * @param {string} input.secret     your partner secret (at least 32 bytes)
 * @param {string} input.sub        your own, stable id of the user (never reuse it for another person)
 * @param {string} [input.nickname] shown in Lingxi when the account is first made
 * @param {string} [input.phone]    informational only; Lingxi never logs anyone in by it
 * @param {number} [input.ttlSeconds=120] lifetime, at most 300
 * @param {number} [input.now=Date.now()] epoch milliseconds
 * @returns {string} a compact JWT (HS256)
 */
export function signAssertion({ partnerId, secret, sub, nickname, phone, ttlSeconds = 120, now = Date.now() }) {
  if (!partnerId || !sub) throw new Error('partnerId and sub are required')
  if (!secret || Buffer.byteLength(secret, 'utf8') < 32) throw new Error('the partner secret must be at least 32 bytes')
  if (!(ttlSeconds > 0 && ttlSeconds <= 300)) throw new Error('ttlSeconds must be between 1 and 300')
  const iat = Math.floor(now / 1000)
  const payload = { iss: partnerId, sub: String(sub), aud: 'lingxi', iat, exp: iat + ttlSeconds, jti: randomUUID() }
  if (nickname) payload.nickname = String(nickname).slice(0, 30)
  if (phone) payload.phone = String(phone)
  const unsigned = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(payload))}`
  const signature = createHmac('sha256', secret).update(unsigned).digest('base64url')
  return `${unsigned}.${signature}`
}

// Run directly: print one assertion.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [partnerId, sub, nickname] = process.argv.slice(2)
  const secret = process.env.LINGXI_PARTNER_SECRET
  if (!partnerId || !sub || !secret) {
    console.error('usage: LINGXI_PARTNER_SECRET=… node sign.mjs <partnerId> <userId> [nickname]')
    process.exit(1)
  }
  console.log(signAssertion({ partnerId, secret, sub, nickname }))
}
