// @vitest-environment happy-dom
import { beforeAll, describe, expect, it } from 'vitest'

// The loader's own commands and its toaster, without any element chunk (the tag table is empty,
// so nothing is imported). The chunks themselves are exercised in Chromium (tests/e2e/embed-*).

type Lingxi = ((...args: unknown[]) => Promise<unknown>) & { q?: unknown[][]; ready?: Promise<void>; load?: (root: unknown) => Promise<unknown> }
const win = window as unknown as { lingxi: Lingxi }
const heard: unknown[] = []
const order: string[] = []
let snippetReady: Promise<void>

beforeAll(async () => {
  ;(globalThis as Record<string, unknown>).__LINGXI_ELEMENTS__ = []
  document.body.innerHTML = '<lingxi-chat mode="bubble"></lingxi-chat><lingxi-chat></lingxi-chat>'
  // the page's snippet, and calls made before the loader arrives
  win.lingxi = ((...args: unknown[]) => {
    win.lingxi.q = win.lingxi.q || []
    win.lingxi.q.push(args)
  }) as Lingxi
  snippetReady = new Promise<void>((r) => {
    ;(win.lingxi as Lingxi & { r?: () => void }).r = r
  })
  win.lingxi.ready = snippetReady
  win.lingxi('on', 'message', (detail: unknown) => heard.push(detail))
  win.lingxi('open')
  addEventListener('lingxi-command', (e) => order.push(`command:${(e as CustomEvent).detail.command}`))
  addEventListener('lingxi-ready', () => order.push('ready'))
  await import('../../src/loader/loader')
  await win.lingxi.ready
})

describe('the loader', () => {
  it('replaces the snippet with window.lingxi and runs the queued calls in order, then lingxi-ready', () => {
    expect(typeof win.lingxi.load).toBe('function')
    expect(win.lingxi.q).toBeUndefined()
    expect(order).toEqual(['command:open', 'ready'])
    expect(win.lingxi.ready).not.toBe(snippetReady)
    dispatchEvent(new CustomEvent('lingxi-message', { detail: { topicId: 't', messageId: 'm', content: 'c' } }))
    expect(heard).toEqual([{ topicId: 't', messageId: 'm', content: 'c' }])
  })

  it('resolves the ready promise the snippet made before it arrived', async () => {
    await expect(snippetReady).resolves.toBeUndefined()
  })

  it("lingxi('open') sets open on every bubble (not on inline chats); close removes it", async () => {
    const [bubble, inline] = [...document.querySelectorAll('lingxi-chat')]
    expect(bubble!.hasAttribute('open')).toBe(true)
    expect(inline!.hasAttribute('open')).toBe(false)
    await win.lingxi('close')
    expect(bubble!.hasAttribute('open')).toBe(false)
    expect(order.at(-1)).toBe('command:close')
  })

  it("lingxi('on') returns an unsubscribe", async () => {
    const got: unknown[] = []
    const off = (await win.lingxi('on', 'open', (d: unknown) => got.push(d))) as () => void
    dispatchEvent(new CustomEvent('lingxi-open', { detail: null }))
    off()
    dispatchEvent(new CustomEvent('lingxi-open', { detail: null }))
    expect(got).toEqual([null])
  })

  it('adds a toaster at the first toast when the page has none, and drops it when the page brings one', async () => {
    expect(document.querySelector('lingxi-toaster')).toBeNull()
    dispatchEvent(new CustomEvent('lingxi-toast', { detail: { message: 'x' } }))
    expect(document.querySelectorAll('lingxi-toaster')).toHaveLength(1)
    expect(document.body.lastElementChild!.localName).toBe('lingxi-toaster')
    dispatchEvent(new CustomEvent('lingxi-confirm', { detail: { message: 'y' } }))
    expect(document.querySelectorAll('lingxi-toaster')).toHaveLength(1)

    const own = document.createElement('lingxi-toaster')
    own.id = 'page-toaster'
    document.body.prepend(own)
    await win.lingxi.load!(document)
    expect([...document.querySelectorAll('lingxi-toaster')].map((t) => t.id)).toEqual(['page-toaster'])
  })
})
