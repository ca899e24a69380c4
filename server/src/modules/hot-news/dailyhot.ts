import { fetchText } from './http.js'
import { normalizeItems, type RawItem } from './normalize.js'
import { type HotSource, HotSourceError } from './types.js'

/** Chinese names of the DailyHotApi routes Lingxi offers by default (and a few more). */
export const DAILYHOT_NAMES: Record<string, string> = {
  weibo: '微博',
  zhihu: '知乎',
  baidu: '百度',
  douyin: '抖音',
  bilibili: 'B站',
  toutiao: '头条',
  '36kr': '36氪',
  ithome: 'IT之家',
  kuaishou: '快手',
  tieba: '百度贴吧',
  thepaper: '澎湃新闻',
  sspai: '少数派',
  juejin: '稀土掘金',
  'zhihu-daily': '知乎日报',
  'douban-movie': '豆瓣电影',
  'qq-news': '腾讯新闻',
  'netease-news': '网易新闻',
  'sina-news': '新浪新闻',
  huxiu: '虎嗅',
  ifanr: '爱范儿',
  csdn: 'CSDN',
  v2ex: 'V2EX',
  hupu: '虎扑',
  github: 'GitHub',
  hackernews: 'Hacker News'
}

/** DailyHotApi route names are lowercase words with digits and dashes; nothing else reaches the URL. */
export const DAILYHOT_ROUTE = /^[a-z0-9][a-z0-9-]{0,39}$/

/** Realtime lists change faster than daily digests. */
const DEFAULT_INTERVAL_MS: Record<string, number> = { weibo: 5 * 60_000, baidu: 5 * 60_000, douyin: 5 * 60_000, toutiao: 5 * 60_000 }

/**
 * A list of a DailyHotApi-compatible server: `GET {base}/{route}` →
 * `{code: 200, name, title, type, updateTime, fromCache, data: ListItem[]}`.
 */
export function createDailyHotSource(options: { baseUrl: string; route: string; intervalMs?: number | undefined; timeoutMs: number }): HotSource {
  const { route } = options
  if (!DAILYHOT_ROUTE.test(route)) throw new Error(`invalid DailyHotApi route "${route}"`)
  const name = DAILYHOT_NAMES[route] ?? route
  const base = options.baseUrl.replace(/\/+$/, '')
  return {
    id: route,
    name,
    type: 'dailyhot',
    demo: false,
    intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS[route] ?? 10 * 60_000,
    async fetch(signal) {
      const { status, text } = await fetchText(`${base}/${route}`, { name, signal, timeoutMs: options.timeoutMs, accept: 'application/json' })
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        throw new HotSourceError(`「${name}」返回的不是合法的 JSON（HTTP ${status}）`)
      }
      const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {}
      if (status < 200 || status >= 300 || record.code !== 200) {
        const message = typeof record.message === 'string' ? record.message.slice(0, 200) : `HTTP ${status}`
        throw new HotSourceError(`「${name}」获取失败：${message}`)
      }
      if (!Array.isArray(record.data)) throw new HotSourceError(`「${name}」返回的数据格式不正确`)
      const raw: RawItem[] = record.data.map((entry: unknown) => {
        const e = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {}
        return { id: e.id, title: e.title, url: e.url, fallbackUrl: e.mobileUrl, hot: e.hot, desc: e.desc, cover: e.cover, time: e.timestamp }
      })
      return normalizeItems(raw)
    }
  }
}
