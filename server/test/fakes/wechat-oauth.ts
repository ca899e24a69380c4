import { randomBytes } from 'node:crypto'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fake WeChat Open Platform (website app QR login) on loopback speaking its real wire:
 * `GET /connect/qrconnect?appid&redirect_uri&response_type=code&scope=snsapi_login&state` — a page
 * standing for the QR code, or (autoConfirm) a 302 straight back to `redirect_uri?code&state`, as
 * after a scan; `GET /sns/oauth2/access_token?appid&secret&code&grant_type=authorization_code` and
 * `GET /sns/userinfo?access_token&openid` answering JSON, `{errcode, errmsg}` on errors (40029
 * invalid code, 40163 code used, 40125 bad secret, 40013 bad appid, 40001 bad token).
 *
 * And an official account (公众号, `mpAppId`/`mpAppSecret`): `GET /connect/oauth2/authorize?appid&
 * redirect_uri&response_type=code&scope=snsapi_userinfo|snsapi_base&state` (the web authorization
 * inside WeChat) comes back at once with a code of that app. As in WeChat, one person has another
 * openid in each app (`mpOpenid`, default `<openid>-mp`) and the same unionid; a code is exchanged
 * only with the app that issued it.
 */
export interface FakeUser {
  openid: string
  /** The person's openid in the official account. */
  mpOpenid?: string
  unionid?: string
  nickname: string
}

export interface FakeWechatOAuth {
  url: string
  appId: string
  appSecret: string
  mpAppId: string
  mpAppSecret: string
  /** Who scans next. */
  user: FakeUser
  /** qrconnect redirects back at once (as if scanned and confirmed). */
  autoConfirm: boolean
  /** Issues a code for `user` as a scan would (tests call the callback with it). */
  issueCode(user?: FakeUser, appId?: string): string
  /** The next access_token exchange answers this errcode. */
  failNextExchange(errcode: number): void
  hits: Record<string, number>
  close(): Promise<void>
}

const ERRMSG: Record<number, string> = {
  40029: 'invalid code',
  40163: 'code been used',
  40125: 'invalid appsecret',
  40013: 'invalid appid',
  40001: 'invalid credential',
  [-1]: 'system error'
}

export async function startFakeWechatOAuth(options: { appId?: string; appSecret?: string } = {}): Promise<FakeWechatOAuth> {
  const codes = new Map<string, { user: FakeUser; appId: string; used: boolean }>()
  const tokens = new Map<string, { user: FakeUser; openid: string }>()
  let nextError: number | undefined
  const fake: FakeWechatOAuth = {
    url: '',
    appId: options.appId ?? 'wx807d86fb6b3d4fd2',
    appSecret: options.appSecret ?? 'a4c0f4b5c6d7e8f9a0b1c2d3e4f5a6b7',
    mpAppId: 'wx2421b1c4370ec43b',
    mpAppSecret: 'b5d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5',
    user: { openid: 'o6_bmjrPTlm6_2sgVt7hMZOPfL2M', unionid: 'o6_bmasdasdsad6_2sgVt7hMZOPfL', nickname: '微信用户甲' },
    autoConfirm: true,
    issueCode(user = fake.user, appId = fake.appId) {
      const code = randomBytes(16).toString('hex')
      codes.set(code, { user: { ...user }, appId, used: false })
      return code
    },
    failNextExchange(errcode) {
      nextError = errcode
    },
    hits: {},
    close: async () => {}
  }
  const json = (res: ServerResponse, body: unknown) => {
    // WeChat sends JSON as text/plain.
    res.writeHead(200, { 'Content-Type': 'text/plain' })
    res.end(JSON.stringify(body))
  }
  const error = (res: ServerResponse, errcode: number) => json(res, { errcode, errmsg: ERRMSG[errcode] ?? 'error' })

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake')
    const q = url.searchParams
    fake.hits[url.pathname] = (fake.hits[url.pathname] ?? 0) + 1
    if (url.pathname === '/connect/qrconnect') {
      if (q.get('appid') !== fake.appId || q.get('response_type') !== 'code' || q.get('scope') !== 'snsapi_login' || !q.get('redirect_uri')) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
        return res.end('<p>参数错误</p>')
      }
      const back = new URL(q.get('redirect_uri') ?? '')
      back.searchParams.set('code', fake.issueCode())
      back.searchParams.set('state', q.get('state') ?? '')
      if (fake.autoConfirm) {
        res.writeHead(302, { Location: back.toString() })
        return res.end()
      }
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      return res.end(
        `<!doctype html><title>微信登录</title><p>请使用微信扫描二维码登录（测试替身）</p><a id="confirm" href="${back.toString().replace(/&/g, '&amp;')}">模拟扫码确认</a>`
      )
    }
    if (url.pathname === '/connect/oauth2/authorize') {
      const scope = q.get('scope')
      if (
        q.get('appid') !== fake.mpAppId ||
        q.get('response_type') !== 'code' ||
        (scope !== 'snsapi_userinfo' && scope !== 'snsapi_base') ||
        !q.get('redirect_uri')
      ) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
        return res.end('<p>Oops! Something went wrong:(</p>')
      }
      const back = new URL(q.get('redirect_uri') ?? '')
      back.searchParams.set('code', fake.issueCode(fake.user, fake.mpAppId))
      back.searchParams.set('state', q.get('state') ?? '')
      res.writeHead(302, { Location: back.toString() })
      return res.end()
    }
    if (url.pathname === '/sns/oauth2/access_token') {
      const secret = { [fake.appId]: fake.appSecret, [fake.mpAppId]: fake.mpAppSecret }[q.get('appid') ?? '']
      if (secret === undefined) return error(res, 40013)
      if (q.get('secret') !== secret) return error(res, 40125)
      if (q.get('grant_type') !== 'authorization_code') return error(res, 40029)
      if (nextError !== undefined) {
        const e = nextError
        nextError = undefined
        return error(res, e)
      }
      const entry = codes.get(q.get('code') ?? '')
      if (!entry || entry.appId !== q.get('appid')) return error(res, 40029)
      if (entry.used) return error(res, 40163)
      entry.used = true
      const accessToken = randomBytes(24).toString('hex')
      const openid = entry.appId === fake.mpAppId ? (entry.user.mpOpenid ?? `${entry.user.openid}-mp`) : entry.user.openid
      tokens.set(accessToken, { user: entry.user, openid })
      return json(res, {
        access_token: accessToken,
        expires_in: 7200,
        refresh_token: randomBytes(24).toString('hex'),
        openid,
        scope: entry.appId === fake.mpAppId ? 'snsapi_userinfo' : 'snsapi_login',
        ...(entry.user.unionid ? { unionid: entry.user.unionid } : {})
      })
    }
    if (url.pathname === '/sns/userinfo') {
      const token = tokens.get(q.get('access_token') ?? '')
      if (!token) return error(res, 40001)
      const { user, openid } = token
      if (q.get('openid') !== openid) return error(res, 40003)
      return json(res, {
        openid,
        nickname: user.nickname,
        sex: 1,
        province: 'Guangdong',
        city: 'Shenzhen',
        country: 'CN',
        headimgurl: 'https://thirdwx.qlogo.cn/mmopen/fake/0',
        privilege: [],
        ...(user.unionid ? { unionid: user.unionid } : {})
      })
    }
    res.writeHead(404)
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  fake.close = () => new Promise((resolve) => server.close(() => resolve()))
  return fake
}
