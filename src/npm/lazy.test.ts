import { configure } from '../core/config'

// The npm build's markdown loaders (issue 16): KaTeX and mermaid from the Lingxi server's stable
// URLs, or from the app's own copy when it hands one over. Each test takes a fresh module (the
// loaders keep what they loaded for the page's lifetime).

const KEY = Symbol.for('lingxi.v1')
const fresh = async () => {
  vi.resetModules()
  return import('./lazy')
}

afterEach(() => {
  configure({ apiBase: '' })
  const anchor = (globalThis as unknown as Record<symbol, { boot?: unknown } | undefined>)[KEY]
  if (anchor) delete anchor.boot
})

describe('vendorUrl', () => {
  it('is the API origin’s /cdn/vendor/<name>.js, or this origin’s without an API origin', async () => {
    const { vendorUrl } = await fresh()
    expect(vendorUrl('katex')).toBe(`${location.origin}/cdn/vendor/katex.js`)
    configure({ apiBase: 'https://ai.example.com/' })
    expect(vendorUrl('katex')).toBe('https://ai.example.com/cdn/vendor/katex.js')
    expect(vendorUrl('mermaid')).toBe('https://ai.example.com/cdn/vendor/mermaid.js')
  })

  it('follows the loader’s CDN folder when a script tag set one', async () => {
    const { vendorUrl } = await fresh()
    configure({ apiBase: 'https://ai.example.com' })
    const anchor = globalThis as unknown as Record<symbol, { v: 1; registry: object; boot?: object }>
    anchor[KEY] ??= { v: 1, registry: {} }
    anchor[KEY].boot = { cdnBase: 'https://static.example.com/lingxi' }
    expect(vendorUrl('mermaid')).toBe('https://static.example.com/lingxi/vendor/mermaid.js')
  })
})

describe('lazy (npm build)', () => {
  it('loads the app’s own KaTeX once when handed a loader, before the maths renderer', async () => {
    const { lazy, markdownVendors, vendors } = await fresh()
    const katex = await import('katex')
    const loader = vi.fn(async () => katex)
    markdownVendors({ katex: loader })
    const [math] = await Promise.all([lazy.katex(), lazy.katex()])
    expect(loader).toHaveBeenCalledTimes(1)
    expect(vendors.katex).toBe(katex.default)
    expect(typeof math.enhance).toBe('function')
    // a later loader does not replace the copy in use
    const other = vi.fn(async () => ({ default: {} }))
    markdownVendors({ katex: other })
    await lazy.katex()
    expect(other).not.toHaveBeenCalled()
  })

  it('a failed load (network, a module without a default export) rejects and is tried again next time', async () => {
    const { lazy, markdownVendors, vendors } = await fresh()
    const loader = vi
      .fn<() => Promise<{ default: unknown }>>()
      .mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module'))
      .mockResolvedValueOnce({ default: undefined })
      .mockImplementation(() => import('katex'))
    markdownVendors({ katex: loader })
    await expect(lazy.katex()).rejects.toThrow('Failed to fetch')
    await expect(lazy.katex()).rejects.toThrow('katex: no default export')
    expect(vendors.katex).toBeUndefined()
    await lazy.katex()
    expect(loader).toHaveBeenCalledTimes(3)
    expect(vendors.katex).toBeDefined()
  })

  it('without a loader, imports the server’s URL (which the test page cannot reach)', async () => {
    const { lazy, vendors } = await fresh()
    configure({ apiBase: 'http://127.0.0.1:9' })
    await expect(lazy.mermaid()).rejects.toThrow()
    expect(vendors.mermaid).toBeUndefined()
  })
})
