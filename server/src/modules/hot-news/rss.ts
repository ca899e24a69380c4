import { XMLParser } from 'fast-xml-parser'
import { fetchText } from './http.js'
import { httpUrl, normalizeItems, type RawItem } from './normalize.js'
import { type HotItem, type HotSource, HotSourceError } from './types.js'

const ARRAYS = new Set(['item', 'entry', 'link', 'enclosure', 'media:content', 'media:thumbnail'])

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  htmlEntities: true,
  processEntities: true,
  trimValues: true,
  isArray: (name) => ARRAYS.has(name)
})

type Node = Record<string, unknown>

function text(node: unknown): string {
  if (typeof node === 'string') return node
  if (typeof node === 'number' || typeof node === 'boolean') return String(node)
  if (Array.isArray(node)) return text(node[0])
  if (node && typeof node === 'object') return text((node as Node)['#text'])
  return ''
}

const list = (node: unknown): Node[] => (Array.isArray(node) ? node : node === undefined ? [] : [node]).filter((n): n is Node => !!n && typeof n === 'object')

const attr = (node: Node | undefined, name: string) => {
  const value = node?.[`@_${name}`]
  return typeof value === 'string' ? value : undefined
}

/** The first <img src> of an HTML fragment. */
function firstImage(html: string): string | undefined {
  return /<img\b[^>]*?\bsrc\s*=\s*["']([^"']+)["']/i.exec(html)?.[1]
}

function imageOf(entry: Node, html: string): string | undefined {
  const enclosure = list(entry.enclosure).find((e) => (attr(e, 'type') ?? '').startsWith('image/'))
  if (enclosure) return attr(enclosure, 'url')
  const thumb = list(entry['media:thumbnail'])[0]
  if (thumb) return attr(thumb, 'url')
  const media = list(entry['media:content']).find((m) => attr(m, 'medium') === 'image' || (attr(m, 'type') ?? '').startsWith('image/'))
  if (media) return attr(media, 'url')
  return firstImage(html)
}

function rssItem(item: Node): RawItem {
  const links = item.link
  const html = text(item['content:encoded']) || text(item.description)
  const guid = text(item.guid)
  const permalink = list(item.guid).every((g) => attr(g, 'isPermaLink') !== 'false')
  return {
    id: guid || text(links),
    title: text(item.title),
    url: text(links),
    fallbackUrl: permalink ? guid : undefined,
    desc: text(item.description) || html,
    cover: imageOf(item, html),
    time: text(item.pubDate) || text(item['dc:date'])
  }
}

function atomEntry(entry: Node): RawItem {
  const links = list(entry.link)
  const alternate = links.find((l) => (attr(l, 'rel') ?? 'alternate') === 'alternate') ?? links[0]
  const html = text(entry.content) || text(entry.summary)
  return {
    id: text(entry.id),
    title: text(entry.title),
    url: attr(alternate, 'href'),
    desc: text(entry.summary) || html,
    cover: imageOf(entry, html),
    time: text(entry.published) || text(entry.updated)
  }
}

/** Items of an RSS 2.0, RSS 1.0 (RDF) or Atom document; relative links resolve against `base`. */
export function parseFeed(xml: string, base?: string): { title: string; items: HotItem[] } {
  // Entity declarations are how XML bombs and external-entity reads start; feeds never need them.
  if (/<!ENTITY/i.test(xml)) throw new HotSourceError('订阅源包含不允许的实体声明')
  let doc: Node
  try {
    doc = parser.parse(xml) as Node
  } catch (error) {
    throw new HotSourceError(`订阅源不是合法的 XML：${(error as Error).message.slice(0, 120)}`)
  }
  const rss = doc.rss as Node | undefined
  if (rss && typeof rss === 'object') {
    const channel = list(rss.channel)[0] ?? {}
    return { title: text(channel.title), items: normalizeItems(list(channel.item).map(rssItem), base) }
  }
  const feed = doc.feed as Node | undefined
  if (feed && typeof feed === 'object') {
    return { title: text(feed.title), items: normalizeItems(list(feed.entry).map(atomEntry), base) }
  }
  const rdf = doc['rdf:RDF'] as Node | undefined
  if (rdf && typeof rdf === 'object') {
    const channel = list(rdf.channel)[0] ?? {}
    return { title: text(channel.title), items: normalizeItems(list(rdf.item).map(rssItem), base) }
  }
  throw new HotSourceError('订阅源不是 RSS 或 Atom 文档')
}

export interface FeedEntry {
  name: string
  url: string
}

/** A feed source; its id is `rss-` and a short hash of the URL, stable across restarts. */
export function createRssSource(options: { id: string; feed: FeedEntry; intervalMs: number; timeoutMs: number }): HotSource {
  const { feed } = options
  if (!httpUrl(feed.url)) throw new Error(`invalid feed URL "${feed.url}"`)
  return {
    id: options.id,
    name: feed.name,
    type: 'rss',
    demo: false,
    intervalMs: options.intervalMs,
    async fetch(signal) {
      const { status, text: body } = await fetchText(feed.url, {
        name: feed.name,
        signal,
        timeoutMs: options.timeoutMs,
        accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8'
      })
      if (status < 200 || status >= 300) throw new HotSourceError(`「${feed.name}」获取失败：HTTP ${status}`)
      const parsed = parseFeed(body, feed.url)
      return parsed.items
    }
  }
}
