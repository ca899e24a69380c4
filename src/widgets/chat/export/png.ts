import { getBoot } from '../../../ui/boot'
import { formatTime } from '../../../core/time'
import type { ExportedTopic } from './markdown'

// A topic as one long PNG, drawn in the browser by modern-screenshot (loaded here, on first use).
//
// The picture is not taken of the chat on screen (paged, scrolled, clipped): the messages are laid
// out once more in an off-screen box inside the chat's own shadow root, so the chat's theme
// variables and the markdown, code and maths sheets adopted there apply; modern-screenshot copies
// each element's computed style into its clone, so the shadow root is no obstacle. KaTeX's fonts
// are registered on the document with the FontFace API, where modern-screenshot does not look:
// the faces the page has loaded are fetched from the CDN and embedded (an SVG drawn as an image
// loads nothing itself).
//
// Large topics do not freeze the tab: at most PNG_MAX_MESSAGES (the newest) are drawn, built ten
// at a time with a frame between, and the picture is at most MAX_HEIGHT pixels tall (Chromium's
// canvas limit is 32,767): the scale drops from 2 towards 1 to fit, and beyond that the oldest
// messages are left out, which the picture says at its top.

export const PNG_MAX_MESSAGES = 200
const WIDTH = 720
const MAX_HEIGHT = 32_000
const SETTLE_MS = 400
const SETTLE_MAX_MS = 8000

const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()))

function box(doc: Document, style: Partial<CSSStyleDeclaration>, text?: string): HTMLDivElement {
  const el = doc.createElement('div')
  Object.assign(el.style, style)
  if (text !== undefined) el.textContent = text
  return el
}

/** Resolves once nothing under `root` has changed for SETTLE_MS (highlighting, maths, diagrams done), or after SETTLE_MAX_MS. */
function settled(root: Node): Promise<void> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout>
    const done = () => {
      observer.disconnect()
      clearTimeout(limit)
      resolve()
    }
    const observer = new MutationObserver(() => {
      clearTimeout(timer)
      timer = setTimeout(done, SETTLE_MS)
    })
    observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true })
    timer = setTimeout(done, SETTLE_MS)
    const limit = setTimeout(done, SETTLE_MAX_MS)
  })
}

/** @font-face rules, with the files inline, for the KaTeX faces this page has loaded. */
async function katexFontCss(doc: Document): Promise<string> {
  const faces = [...doc.fonts].filter((f) => f.status === 'loaded' && /^"?KaTeX_/.test(f.family))
  if (faces.length === 0) return ''
  const raw = getBoot().cdnBase || '/cdn/'
  const base = new URL(`${raw.endsWith('/') ? raw : `${raw}/`}fonts/katex/`, doc.baseURI).href
  const rules = await Promise.all(
    faces.map(async (f) => {
      const family = f.family.replace(/"/g, '')
      const bold = f.weight === '700' || f.weight === 'bold'
      const italic = f.style === 'italic'
      const variant = bold && italic ? 'BoldItalic' : bold ? 'Bold' : italic ? 'Italic' : 'Regular'
      try {
        const res = await fetch(`${base}${family}-${variant}.woff2`)
        if (!res.ok) return ''
        const bytes = new Uint8Array(await res.arrayBuffer())
        let binary = ''
        for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
        return `@font-face{font-family:${family};src:url(data:font/woff2;base64,${btoa(binary)}) format("woff2");font-weight:${f.weight};font-style:${f.style}}`
      } catch {
        return ''
      }
    })
  )
  return rules.join('\n')
}

export interface PngResult {
  blob: Blob
  /** Messages drawn, and those left out (the oldest). */
  drawn: number
  left: number
  width: number
  height: number
}

/**
 * Draws the topic as a PNG. `where` is an element inside the chat's shadow root (the export dialog):
 * the off-screen layout goes into that root.
 */
export async function topicPng(topic: ExportedTopic, where: Element, at = Date.now()): Promise<PngResult> {
  const [{ domToBlob }, { createRenderer }] = await Promise.all([import('modern-screenshot'), import('../../../ui/markdown/renderer')])
  const doc = where.ownerDocument
  const root = where.getRootNode() as ShadowRoot | Document
  const all = topic.messages.slice(-PNG_MAX_MESSAGES)
  const skipped = topic.left + topic.messages.length - all.length

  const page = box(doc, {
    position: 'fixed',
    left: '-100000px',
    top: '0',
    width: `${WIDTH}px`,
    padding: '32px',
    boxSizing: 'border-box',
    background: 'var(--color-bg, #17181c)',
    color: 'var(--color-ink, #e9e9ec)',
    fontSize: '14px',
    lineHeight: '1.6',
    pointerEvents: 'none'
  })
  page.setAttribute('aria-hidden', 'true')
  page.dataset.lxExport = ''
  const head = box(doc, { paddingBottom: '16px', marginBottom: '20px', borderBottom: '1px solid var(--color-line, #33363f)' })
  head.append(
    box(doc, { fontSize: '20px', fontWeight: '600', lineHeight: '1.4', overflowWrap: 'anywhere' }, topic.name),
    box(
      doc,
      { marginTop: '6px', fontSize: '12px', color: 'var(--color-muted, #9a9ca6)' },
      [`灵犀 AI · ${formatTime(at)}`, topic.model].filter(Boolean).join(' · ')
    )
  )
  const note = box(doc, { fontSize: '12px', color: 'var(--color-muted, #9a9ca6)', marginBottom: '16px' })
  page.append(head, note)
  root.append(page)

  const renderers: { destroy(): void }[] = []
  const items: HTMLElement[] = []
  try {
    for (let i = 0; i < all.length; i++) {
      const m = all[i]!
      const item = box(doc, { marginBottom: '20px', display: 'flex', flexDirection: 'column', alignItems: m.role === 'user' ? 'flex-end' : 'stretch' })
      const who = m.role === 'user' ? '我' : (topic.roleName ?? '灵犀')
      item.append(box(doc, { fontSize: '12px', color: 'var(--color-muted, #9a9ca6)', marginBottom: '4px' }, `${who} · ${formatTime(m.createTime)}`))
      if (m.role === 'user') {
        item.append(
          box(
            doc,
            {
              maxWidth: '85%',
              padding: '10px 16px',
              borderRadius: '16px',
              background: 'var(--color-raised, #2a2c33)',
              whiteSpace: 'pre-wrap',
              overflowWrap: 'anywhere'
            },
            m.content
          )
        )
      } else {
        const body = box(doc, { minWidth: '0' })
        item.append(body)
        const r = createRenderer(body)
        r.update(m.content, true)
        renderers.push(r)
      }
      page.append(item)
      items.push(item)
      if (i % 10 === 9) await frame()
    }
    // Copy buttons of code blocks are for the screen.
    for (const b of page.querySelectorAll<HTMLElement>('.lx-code-copy')) b.style.visibility = 'hidden'
    await settled(page)
    if ('fonts' in doc) await doc.fonts.ready

    // Too tall even at scale 1: leave out the oldest until it fits.
    let drawn = items.length
    let left = skipped
    while (page.offsetHeight > MAX_HEIGHT && drawn > 1) {
      items[items.length - drawn]!.remove()
      drawn--
      left++
    }
    note.textContent = left > 0 ? `图片仅包含最近的 ${drawn} 条消息（更早的 ${left} 条未包含），完整内容请导出 Markdown` : ''
    if (!left) note.remove()
    const height = page.offsetHeight
    const scale = Math.max(1, Math.min(2, MAX_HEIGHT / height))
    const cssText = await katexFontCss(doc)
    const blob = await domToBlob(page, {
      scale,
      width: WIDTH,
      height,
      backgroundColor: getComputedStyle(page).backgroundColor,
      style: { position: 'static', left: '0' },
      font: cssText ? { cssText } : false,
      filter: (node) => !(node instanceof Element && node.classList.contains('lx-code-copy'))
    })
    return { blob, drawn, left, width: Math.round(WIDTH * scale), height: Math.round(height * scale) }
  } finally {
    for (const r of renderers) r.destroy()
    page.remove()
  }
}
