import { readFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type { WechatSettings } from '../config.js'
import { field, fromXml, nonceStr, payV2Sign, toXml } from './sign.js'

/** WeChat's red-packet states (gethbinfo `status`). */
export const PACKET_STATES = ['SENDING', 'SENT', 'FAILED', 'RECEIVED', 'RFUND_ING', 'REFUND'] as const
export type PacketState = (typeof PACKET_STATES)[number]

export interface SendPacket {
  mchBillno: string
  openid: string
  amountFen: number
  /** 祝福语, 活动名称, 备注 (WeChat limits: 128, 32, 256 characters). */
  wishing: string
  actName: string
  remark: string
}

export type SendOutcome =
  /** WeChat accepted the packet (or had already, for this mch_billno). */
  | { kind: 'sent'; sendListid: string | null; raw: string }
  /** Not sent; safe to try again later with the same mch_billno (after `backoffMs` when given). */
  | { kind: 'retry'; errCode: string; message: string; backoffMs: number; raw: string }
  /** Not sent and never will be with this mch_billno. */
  | { kind: 'failed'; errCode: string; message: string; raw: string }

export type QueryOutcome =
  | { kind: 'found'; state: PacketState; sendTime: number | null; receiveTime: number | null; reason: string | null; raw: string }
  | { kind: 'not-found'; raw: string }
  | { kind: 'error'; errCode: string; message: string; raw: string }

/** Pays red packets: the WeChat Pay v2 API, or the offline demo payer. */
export interface RedPackPayer {
  readonly demo: boolean
  send(packet: SendPacket): Promise<SendOutcome>
  /** `sendTime` is what this server recorded when the packet was accepted (the demo payer needs it). */
  query(packet: { mchBillno: string; sendTime: number | null }): Promise<QueryOutcome>
}

type Kind = 'retry' | 'failed'
/**
 * sendredpack err_code → what to do and what to tell the user. "retry" keeps the mch_billno: a
 * packet WeChat did not accept can be sent later, and one it did accept is never sent twice.
 */
export const SEND_ERRORS: Record<string, { kind: Kind; message: string; backoffMs?: number }> = {
  SYSTEMERROR: { kind: 'retry', message: '微信支付系统繁忙，红包暂未确认发出，请稍后再试（同一订单不会重复发放）' },
  PROCESSING: { kind: 'retry', message: '红包正在发放中，请稍后查看' },
  NOTENOUGH: { kind: 'retry', message: '商户账户余额不足，红包暂未发出，请稍后再试或联系客服', backoffMs: 10 * 60_000 },
  FREQ_LIMIT: { kind: 'retry', message: '红包发放过于频繁，请 1 分钟后再试', backoffMs: 60_000 },
  SENDNUM_LIMIT: { kind: 'retry', message: '该微信用户今日领取红包的个数已达上限，请明天再试', backoffMs: 60 * 60_000 },
  NO_AUTH: { kind: 'retry', message: '商户暂无发放红包的权限，请联系客服', backoffMs: 10 * 60_000 },
  SIGN_ERROR: { kind: 'retry', message: '商户支付签名配置有误，请联系客服', backoffMs: 10 * 60_000 },
  CA_ERROR: { kind: 'retry', message: '商户支付证书配置有误，请联系客服', backoffMs: 10 * 60_000 },
  ILLEGAL_APPID: { kind: 'retry', message: '商户公众号配置有误，请联系客服', backoffMs: 10 * 60_000 },
  MSGAPPID_ERROR: { kind: 'retry', message: '商户公众号配置有误，请联系客服', backoffMs: 10 * 60_000 },
  API_METHOD_CLOSED: { kind: 'retry', message: '商户的红包功能已关闭，请联系客服', backoffMs: 10 * 60_000 },
  XML_ERROR: { kind: 'retry', message: '红包请求格式有误，请联系客服', backoffMs: 10 * 60_000 },
  ACCEPTMODE_ERROR: { kind: 'retry', message: '商户红包领取方式配置有误，请联系客服', backoffMs: 10 * 60_000 },
  OPENID_ERROR: { kind: 'failed', message: '微信身份与商户公众号不匹配，无法发放红包，请联系客服' },
  MONEY_LIMIT: { kind: 'failed', message: '红包金额超出微信的发放限额，请联系客服' },
  SENDAMOUNT_LIMIT: { kind: 'failed', message: '红包金额超出商户今日的发放限额，请联系客服' },
  RCVDAMOUNT_LIMIT: { kind: 'failed', message: '红包金额超出该微信用户今日的领取限额，请联系客服' },
  PARAM_ERROR: { kind: 'failed', message: '红包参数有误，请联系客服' },
  FATAL_ERROR: { kind: 'failed', message: '红包单号与已发放的红包不一致，请联系客服' },
  SEND_FAILED: { kind: 'failed', message: '红包发放失败，请联系客服' }
}

/** What an err_code (or a failed exchange) means for this packet. */
export function sendOutcomeFor(errCode: string, description: string, raw: string): SendOutcome {
  const known = SEND_ERRORS[errCode]
  if (!known) {
    // Unknown codes are treated as retryable: the same mch_billno can never pay twice.
    return { kind: 'retry', errCode, message: `红包暂未发出（${description || errCode}），请稍后再试`, backoffMs: 60_000, raw }
  }
  if (known.kind === 'failed') return { kind: 'failed', errCode, message: known.message, raw }
  return { kind: 'retry', errCode, message: known.message, backoffMs: known.backoffMs ?? 0, raw }
}

/** WeChat writes times as "2015-04-21 20:00:00" in China time. */
export function parseChinaTime(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text.trim())
  if (!m) return null
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]) - 8, Number(m[5]), Number(m[6]))
}

export function formatChinaTime(ms: number): string {
  return new Date(ms + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ')
}

/** mch_billno: mch_id + yyyymmdd (China date) + 10 digits; at most 28 characters. */
export function newMchBillno(mchId: string, now: number): string {
  const day = new Date(now + 8 * 3600_000).toISOString().slice(0, 10).replaceAll('-', '')
  let digits = ''
  while (digits.length < 10) digits += String(Math.floor(Math.random() * 10))
  return `${mchId}${day}${digits}`.slice(-28)
}

export interface PayClientOptions {
  settings: NonNullable<WechatSettings['pay']>
  /** Replaces the certificate agent (tests). */
  agent?: http.Agent
}

/** The HTTPS agent presenting the merchant's client certificate (apiclient_cert.p12, or the PEM pair). */
export function certificateAgent(settings: NonNullable<WechatSettings['pay']>): https.Agent | undefined {
  const cert = settings.cert
  if (!cert) return undefined
  if ('pfxPath' in cert) return new https.Agent({ pfx: readFileSync(cert.pfxPath), passphrase: cert.passphrase, keepAlive: true })
  return new https.Agent({ cert: readFileSync(cert.certPath), key: readFileSync(cert.keyPath), keepAlive: true })
}

function postXml(url: string, body: string, agent: http.Agent | undefined, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const lib = target.protocol === 'https:' ? https : http
    const req = lib.request(
      target,
      {
        method: 'POST',
        headers: { 'Content-Type': 'text/xml; charset=utf-8', 'Content-Length': Buffer.byteLength(body) },
        ...(agent ? { agent } : {}),
        timeout: timeoutMs
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > 1024 * 1024) req.destroy(new Error('WeChat Pay answer too large'))
          else chunks.push(chunk)
        })
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 400) reject(new Error(`WeChat Pay HTTP ${res.statusCode}`))
          else resolve(Buffer.concat(chunks).toString('utf8'))
        })
        res.on('error', reject)
      }
    )
    req.on('timeout', () => req.destroy(new Error('WeChat Pay timed out')))
    req.on('error', reject)
    req.end(body)
  })
}

/** WeChat Pay v2 cash red packets: `mmpaymkttransfers/sendredpack` and `mmpaymkttransfers/gethbinfo`. */
export function createWechatPayer(options: PayClientOptions): RedPackPayer {
  const s = options.settings
  const agent = options.agent ?? certificateAgent(s)

  function signed(params: Record<string, string | number>): string {
    const all: Record<string, string | number> = { ...params, nonce_str: nonceStr() }
    if (s.signType === 'HMAC-SHA256') all.sign_type = 'HMAC-SHA256'
    all.sign = payV2Sign(all, s.apiKey, s.signType)
    return toXml(all)
  }

  return {
    demo: false,
    async send(packet) {
      const body = signed({
        mch_billno: packet.mchBillno,
        mch_id: s.mchId,
        wxappid: s.appId,
        send_name: s.sendName.slice(0, 32),
        re_openid: packet.openid,
        total_amount: packet.amountFen,
        total_num: 1,
        wishing: packet.wishing.slice(0, 128),
        client_ip: s.clientIp,
        act_name: packet.actName.slice(0, 32),
        remark: packet.remark.slice(0, 256),
        // Required by WeChat outside 1–200 元; 推广活动 fits paid content tasks.
        ...(packet.amountFen < 100 || packet.amountFen > 20_000 ? { scene_id: 'PRODUCT_1' } : {})
      })
      let raw: string
      try {
        raw = await postXml(`${s.baseUrl}/mmpaymkttransfers/sendredpack`, body, agent, s.timeoutMs)
      } catch (error) {
        // The packet may or may not have been accepted: the same mch_billno makes a retry safe.
        return {
          kind: 'retry',
          errCode: 'NETWORK',
          message: '连接微信支付失败，红包暂未确认发出，请稍后再试（同一订单不会重复发放）',
          backoffMs: 0,
          raw: String(error)
        }
      }
      let res: ReturnType<typeof fromXml>
      try {
        res = fromXml(raw)
      } catch {
        return { kind: 'retry', errCode: 'BAD_RESPONSE', message: '微信支付的应答无法识别，请稍后再试', backoffMs: 0, raw }
      }
      if (field(res, 'return_code') !== 'SUCCESS') {
        return sendOutcomeFor(field(res, 'err_code') || 'RETURN_FAIL', field(res, 'return_msg'), raw)
      }
      if (field(res, 'result_code') === 'SUCCESS') return { kind: 'sent', sendListid: field(res, 'send_listid') || null, raw }
      return sendOutcomeFor(field(res, 'err_code'), field(res, 'err_code_des'), raw)
    },
    async query(packet) {
      const body = signed({ mch_billno: packet.mchBillno, mch_id: s.mchId, appid: s.appId, bill_type: 'MCHT' })
      let raw: string
      try {
        raw = await postXml(`${s.baseUrl}/mmpaymkttransfers/gethbinfo`, body, agent, s.timeoutMs)
      } catch (error) {
        return { kind: 'error', errCode: 'NETWORK', message: '连接微信支付失败，请稍后再查询', raw: String(error) }
      }
      let res: ReturnType<typeof fromXml>
      try {
        res = fromXml(raw)
      } catch {
        return { kind: 'error', errCode: 'BAD_RESPONSE', message: '微信支付的应答无法识别，请稍后再查询', raw }
      }
      if (field(res, 'return_code') !== 'SUCCESS')
        return { kind: 'error', errCode: 'RETURN_FAIL', message: `查询红包失败：${field(res, 'return_msg') || '未知错误'}`, raw }
      if (field(res, 'result_code') !== 'SUCCESS') {
        const code = field(res, 'err_code')
        if (code === 'NOT_FOUND') return { kind: 'not-found', raw }
        return { kind: 'error', errCode: code, message: `查询红包失败：${field(res, 'err_code_des') || code}`, raw }
      }
      const status = field(res, 'status') as PacketState
      if (!PACKET_STATES.includes(status)) return { kind: 'error', errCode: 'BAD_STATUS', message: '微信支付返回了未知的红包状态', raw }
      const list = res.hblist
      const info = typeof list === 'object' && !Array.isArray(list) ? list.hbinfo : undefined
      const first = Array.isArray(info) ? info[0] : info
      const rcv = first && typeof first === 'object' && !Array.isArray(first) ? field(first, 'rcv_time') : ''
      return {
        kind: 'found',
        state: status,
        sendTime: parseChinaTime(field(res, 'send_time')),
        receiveTime: rcv ? parseChinaTime(rcv) : null,
        reason: field(res, 'reason') || null,
        raw
      }
    }
  }
}

/**
 * The offline demo payer: no money moves. A packet is SENDING for `delayMs` after it was sent,
 * SENT for another `delayMs`, then RECEIVED. Packets it pays are marked demo.
 */
export function createDemoPayer(options: { now: () => number; delayMs: number }): RedPackPayer {
  return {
    demo: true,
    async send(packet) {
      return { kind: 'sent', sendListid: `DEMO${packet.mchBillno.slice(-10)}`, raw: '<xml><demo>演示红包：未实际发放</demo></xml>' }
    },
    async query(packet) {
      if (packet.sendTime === null) return { kind: 'not-found', raw: '<xml><demo>演示红包</demo></xml>' }
      const age = options.now() - packet.sendTime
      const state: PacketState = age < options.delayMs ? 'SENDING' : age < 2 * options.delayMs ? 'SENT' : 'RECEIVED'
      return {
        kind: 'found',
        state,
        sendTime: packet.sendTime,
        receiveTime: state === 'RECEIVED' ? packet.sendTime + 2 * options.delayMs : null,
        reason: null,
        raw: `<xml><demo>演示红包</demo><status>${state}</status></xml>`
      }
    }
  }
}
