import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fromXml, type SignType, toXml, verifyPayV2Sign } from '../../src/wechat/sign.js'
import { formatChinaTime } from '../../src/wechat/redpack.js'

/**
 * A fake WeChat Pay v2 red-packet API on loopback speaking its real XML:
 * `POST /mmpaymkttransfers/sendredpack` and `POST /mmpaymkttransfers/gethbinfo`, bodies `<xml>…</xml>`
 * signed with the API key (MD5, or HMAC-SHA256 when `sign_type` says so). A wrong signature answers
 * SIGN_ERROR. A repeated mch_billno returns the packet already sent (WeChat's idempotency); scripted
 * failures (SYSTEMERROR, FREQ_LIMIT, …) answer the next sends; the merchant balance runs out (NOTENOUGH).
 */
export interface FakePacket {
  mchBillno: string
  openid: string
  amount: number
  sendListid: string
  status: 'SENDING' | 'SENT' | 'FAILED' | 'RECEIVED' | 'RFUND_ING' | 'REFUND'
  sendTime: number
  rcvTime: number | null
}

export interface FakeWechatPay {
  url: string
  mchId: string
  apiKey: string
  appId: string
  /** Merchant balance in 分; NOTENOUGH below the amount. */
  balance: number
  /** Packets actually created (one per mch_billno). */
  packets: Map<string, FakePacket>
  /** Every request seen: path, parsed fields, and whether the signature was right. */
  requests: { path: string; body: Record<string, string>; signOk: boolean }[]
  /** The next `times` sendredpack calls fail with `errCode` (before any packet is created). */
  failNext(errCode: string, times?: number): void
  /** Simulates SYSTEMERROR *after* creating the packet (the answer was lost). */
  failAfterCreateNext(times?: number): void
  setStatus(mchBillno: string, status: FakePacket['status'], rcvTime?: number): void
  /** Slows sendredpack answers (concurrency tests). */
  delayMs: number
  close(): Promise<void>
}

const DESCRIPTIONS: Record<string, string> = {
  SYSTEMERROR: '系统繁忙，请再试。',
  FREQ_LIMIT: '超过频率限制,请稍后再试。',
  NOTENOUGH: '帐号余额不足，请到商户平台充值后再重试',
  SENDNUM_LIMIT: '该用户今日领取红包个数超过限制',
  SIGN_ERROR: '签名错误',
  OPENID_ERROR: 'openid和appid不匹配'
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

export async function startFakeWechatPay(options: { mchId?: string; apiKey?: string; appId?: string; balance?: number } = {}): Promise<FakeWechatPay> {
  const fake: FakeWechatPay = {
    url: '',
    mchId: options.mchId ?? '1900000109',
    apiKey: options.apiKey ?? '192006250b4c09247ec02edce69f6a2d',
    appId: options.appId ?? 'wxbe8e5ea2c4f2d7a1',
    balance: options.balance ?? 1_000_000,
    packets: new Map(),
    requests: [],
    failNext(errCode, times = 1) {
      for (let i = 0; i < times; i++) queue.push(errCode)
    },
    failAfterCreateNext(times = 1) {
      lostAnswers += times
    },
    setStatus(mchBillno, status, rcvTime) {
      const p = fake.packets.get(mchBillno)
      if (p) {
        p.status = status
        if (rcvTime !== undefined) p.rcvTime = rcvTime
      }
    },
    delayMs: 0,
    close: async () => {}
  }
  const queue: string[] = []
  let lostAnswers = 0
  let seq = 0

  const answer = (res: ServerResponse, body: Record<string, unknown>) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' })
    res.end(toXml(body))
  }
  const fail = (res: ServerResponse, errCode: string, extra: Record<string, unknown> = {}) =>
    answer(res, {
      return_code: 'SUCCESS',
      return_msg: DESCRIPTIONS[errCode] ?? errCode,
      result_code: 'FAIL',
      err_code: errCode,
      err_code_des: DESCRIPTIONS[errCode] ?? errCode,
      ...extra
    })

  const server = createServer(async (req, res) => {
    const text = await read(req)
    let body: Record<string, string>
    try {
      body = Object.fromEntries(Object.entries(fromXml(text)).map(([k, v]) => [k, typeof v === 'string' ? v : '']))
    } catch {
      return answer(res, { return_code: 'FAIL', return_msg: 'XML格式错误' })
    }
    const signType: SignType = body.sign_type === 'HMAC-SHA256' ? 'HMAC-SHA256' : 'MD5'
    const signOk = verifyPayV2Sign(body, fake.apiKey, signType) && (body.nonce_str ?? '').length > 0 && (body.nonce_str ?? '').length <= 32
    fake.requests.push({ path: req.url ?? '', body, signOk })
    if (!signOk) return fail(res, 'SIGN_ERROR')
    if (body.mch_id !== fake.mchId) return fail(res, 'PARAM_ERROR')

    if (req.method === 'POST' && req.url === '/mmpaymkttransfers/sendredpack') {
      if (fake.delayMs > 0) await new Promise((r) => setTimeout(r, fake.delayMs))
      if (body.wxappid !== fake.appId) return fail(res, 'ILLEGAL_APPID')
      const billno = body.mch_billno ?? ''
      const amount = Number(body.total_amount)
      const base = { mch_billno: billno, mch_id: fake.mchId, wxappid: fake.appId, re_openid: body.re_openid, total_amount: body.total_amount }
      if (!/^[0-9A-Za-z]{1,28}$/.test(billno) || !Number.isInteger(amount) || body.total_num !== '1' || !body.re_openid) return fail(res, 'PARAM_ERROR', base)
      const existing = fake.packets.get(billno)
      if (existing) {
        // The same mch_billno: the packet already sent, never a second one.
        if (existing.amount !== amount || existing.openid !== body.re_openid) return fail(res, 'FATAL_ERROR', base)
        return answer(res, { return_code: 'SUCCESS', return_msg: '发放成功', result_code: 'SUCCESS', ...base, send_listid: existing.sendListid })
      }
      const scripted = queue.shift()
      if (scripted) return fail(res, scripted, base)
      if (amount < 100 && !body.scene_id) return fail(res, 'MONEY_LIMIT', base)
      if (fake.balance < amount) return fail(res, 'NOTENOUGH', base)
      fake.balance -= amount
      const packet: FakePacket = {
        mchBillno: billno,
        openid: body.re_openid ?? '',
        amount,
        sendListid: `100000000020150520314766${String(++seq).padStart(4, '0')}`,
        status: 'SENT',
        sendTime: Date.now(),
        rcvTime: null
      }
      fake.packets.set(billno, packet)
      if (lostAnswers > 0) {
        lostAnswers--
        return fail(res, 'SYSTEMERROR', base)
      }
      return answer(res, { return_code: 'SUCCESS', return_msg: '发放成功', result_code: 'SUCCESS', ...base, send_listid: packet.sendListid })
    }

    if (req.method === 'POST' && req.url === '/mmpaymkttransfers/gethbinfo') {
      if (body.appid !== fake.appId || body.bill_type !== 'MCHT') return fail(res, 'PARAM_ERROR')
      const p = fake.packets.get(body.mch_billno ?? '')
      if (!p) return fail(res, 'NOT_FOUND', { mch_billno: body.mch_billno })
      const hbinfo =
        p.rcvTime === null
          ? ''
          : `<hblist><hbinfo><openid><![CDATA[${p.openid}]]></openid><amount>${p.amount}</amount><rcv_time><![CDATA[${formatChinaTime(p.rcvTime)}]]></rcv_time></hbinfo></hblist>`
      const xml = toXml({
        return_code: 'SUCCESS',
        return_msg: 'OK',
        result_code: 'SUCCESS',
        err_code: 'SUCCESS',
        err_code_des: 'OK',
        mch_billno: p.mchBillno,
        mch_id: fake.mchId,
        detail_id: p.sendListid,
        status: p.status,
        send_type: 'API',
        hb_type: 'NORMAL',
        total_num: 1,
        total_amount: p.amount,
        send_time: formatChinaTime(p.sendTime)
      }).replace('</xml>', `${hbinfo}</xml>`)
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      return res.end(xml)
    }
    res.writeHead(404)
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  fake.close = () => new Promise((resolve) => server.close(() => resolve()))
  return fake
}
