// A partner's site whose own login already knows the user, with the Lingxi chat bubble logged in as
// that user without SMS (single sign-on; README "合作方单点登录"). Plain Node ≥ 18, no dependencies.
//
//   LINGXI_ORIGIN=http://127.0.0.1:8787 LINGXI_PARTNER_ID=acme LINGXI_PARTNER_SECRET=… PORT=3000 node server.mjs
//
// and on the Lingxi server:
//   LINGXI_PARTNERS='[{"id":"acme","origins":["http://localhost:3000"],"secret":"…"}]'
//
// GET /login?user=42&name=张三   the partner's own login (a demo: it trusts the query; yours checks a password)
// GET /logout                    the partner's own logout
// GET /lingxi/assertion          for the logged-in user only: a fresh assertion, signed here with the secret
// GET /                          the page (page.html), which calls lingxi.identify() with that assertion
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { signAssertion } from './sign.mjs'

const port = Number(process.env.PORT ?? 3000)
const lingxi = (process.env.LINGXI_ORIGIN ?? 'http://127.0.0.1:8787').replace(/\/+$/, '')
const partnerId = process.env.LINGXI_PARTNER_ID ?? 'acme'
const secret = process.env.LINGXI_PARTNER_SECRET ?? ''
if (Buffer.byteLength(secret, 'utf8') < 32) {
  console.error('LINGXI_PARTNER_SECRET must be at least 32 bytes (the secret configured for this partner on the Lingxi server)')
  process.exit(1)
}
const page = readFileSync(new URL('./page.html', import.meta.url), 'utf8').replaceAll('LINGXI_ORIGIN', lingxi)

/** The partner's own session store (a demo: in memory). */
const sessions = new Map()
const sessionOf = (req) => sessions.get(/(?:^|;\s*)shop_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1] ?? '')

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`)
  if (url.pathname === '/login') {
    const id = crypto.randomUUID()
    sessions.set(id, { userId: url.searchParams.get('user') ?? 'demo', name: url.searchParams.get('name') ?? '' })
    res.writeHead(302, { 'Set-Cookie': `shop_session=${id}; Path=/; HttpOnly; SameSite=Lax`, Location: '/' })
    return res.end()
  }
  if (url.pathname === '/logout') {
    res.writeHead(302, { 'Set-Cookie': 'shop_session=; Path=/; Max-Age=0', Location: '/' })
    return res.end()
  }
  if (url.pathname === '/lingxi/assertion') {
    const user = sessionOf(req)
    // Only for the partner's own logged-in user, only to its own pages (same-origin, cookie-bound).
    if (!user) {
      res.writeHead(401, { 'Content-Type': 'application/json' })
      return res.end(JSON.stringify({ error: 'not logged in' }))
    }
    const assertion = signAssertion({ partnerId, secret, sub: user.userId, nickname: user.name || undefined })
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
    return res.end(JSON.stringify({ assertion }))
  }
  const user = sessionOf(req)
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
  res.end(page.replace('SHOP_USER', user ? `${user.name || user.userId}（本站账号）` : '未登录本站'))
})
server.listen(port, '127.0.0.1', () => console.log(`partner site on http://localhost:${port}`))
