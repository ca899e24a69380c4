import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fake imsyy/DailyHotApi on loopback speaking its real JSON (upstreams.md):
 * `GET /{route}` → `{code: 200, name, title, type, description, link, total, updateTime, fromCache, data: ListItem[]}`,
 * errors as `{code, message}` with the HTTP status. Feeds: `GET /feeds/{file}` serves a fixture as XML.
 */
export interface ListItem {
  id: string | number
  title: string
  cover?: string
  author?: string
  desc?: string
  hot?: number | string
  timestamp?: number
  url: string
  mobileUrl: string
}

export type DailyHotBehaviour =
  | { kind: 'ok'; items?: ListItem[]; delayMs?: number }
  | { kind: 'error'; status: number; message?: string }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed' }
  /** 200, valid JSON, `data` not an array. */
  | { kind: 'bad-shape' }
  /** Accepts the request and never answers. */
  | { kind: 'silent' }

export interface FakeDailyHot {
  url: string
  /** Behaviour per route; routes without one answer `ok` with generated items. */
  set(route: string, behaviour: DailyHotBehaviour): void
  /** Requests per route so far. */
  hits(route: string): number
  /** Requests being answered right now, per route (concurrency checks). */
  open(route: string): number
  maxOpen(route: string): number
  close(): Promise<void>
}

const TITLES: Record<string, string> = { weibo: '微博', zhihu: '知乎', baidu: '百度', douyin: '抖音', bilibili: '哔哩哔哩', ithome: 'IT之家' }

export function sampleItems(route: string, n = 10): ListItem[] {
  return Array.from({ length: n }, (_, i) => ({
    id: route === 'weibo' ? `weibo-${i + 1}` : i + 1000,
    title: `${TITLES[route] ?? route} 第 ${i + 1} 条`,
    desc: i % 2 === 0 ? `<p>描述 ${i + 1}</p>` : undefined,
    cover: i === 0 ? `//img.example.com/${route}/${i}.jpg` : undefined,
    hot: route === 'zhihu' ? `${100 - i} 万热度` : 1_000_000 - i * 1000,
    timestamp: 1_700_000_000_000 + i * 1000,
    url: `https://${route}.example.com/item/${i + 1}`,
    mobileUrl: `https://m.${route}.example.com/item/${i + 1}`
  }))
}

export async function startFakeDailyHot(options: { feeds?: Record<string, string> } = {}): Promise<FakeDailyHot> {
  const behaviours = new Map<string, DailyHotBehaviour>()
  const hits = new Map<string, number>()
  const open = new Map<string, number>()
  const maxOpen = new Map<string, number>()
  const hanging = new Set<ServerResponse>()

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8' })
    res.end(JSON.stringify(body))
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (path.startsWith('/feeds/')) {
      const file = options.feeds?.[path.slice('/feeds/'.length)]
      if (!file) return json(res, 404, { code: 404, message: '请求路径不存在' })
      res.writeHead(200, { 'Content-Type': 'application/rss+xml; charset=utf-8' })
      return res.end(readFileSync(file))
    }
    const route = path.slice(1)
    if (req.method !== 'GET') return json(res, 405, { code: 405, message: 'Method Not Allowed' })
    hits.set(route, (hits.get(route) ?? 0) + 1)
    open.set(route, (open.get(route) ?? 0) + 1)
    maxOpen.set(route, Math.max(maxOpen.get(route) ?? 0, open.get(route)!))
    res.on('close', () => open.set(route, (open.get(route) ?? 1) - 1))
    const behaviour = behaviours.get(route) ?? { kind: 'ok' }
    switch (behaviour.kind) {
      case 'error':
        return json(res, behaviour.status, { code: behaviour.status, message: behaviour.message ?? '服务器内部错误' })
      case 'malformed':
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end('<html><body>502 Bad Gateway</body></html>')
      case 'bad-shape':
        return json(res, 200, { code: 200, name: route, title: route, data: 'not a list' })
      case 'silent':
        hanging.add(res)
        return
      case 'ok': {
        const data = behaviour.items ?? sampleItems(route)
        const answer = () =>
          json(res, 200, {
            code: 200,
            name: route,
            title: TITLES[route] ?? route,
            type: '热榜',
            description: `${TITLES[route] ?? route}热榜`,
            link: `https://${route}.example.com/`,
            total: data.length,
            updateTime: new Date().toISOString(),
            fromCache: false,
            data
          })
        if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs)
        else answer()
      }
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    set: (route, behaviour) => behaviours.set(route, behaviour),
    hits: (route) => hits.get(route) ?? 0,
    open: (route) => open.get(route) ?? 0,
    maxOpen: (route) => maxOpen.get(route) ?? 0,
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
