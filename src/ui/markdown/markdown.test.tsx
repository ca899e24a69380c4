// @vitest-environment happy-dom
import './test-dom'
import { flushSync } from 'react-dom'
import { createRoot, type Root } from 'react-dom/client'
import { Markdown, preloadMarkdown } from './markdown'

// Runs under real React and under preact/compat (vitest projects 'react' and 'preact').

let root: Root | null = null
let shadow: ShadowRoot

function render(node: React.ReactNode) {
  flushSync(() => root!.render(node))
}

beforeEach(() => {
  const host = document.createElement('div')
  document.body.append(host)
  shadow = host.attachShadow({ mode: 'open' })
  const mountPoint = document.createElement('div')
  shadow.append(mountPoint)
  root = createRoot(mountPoint)
})

afterEach(() => {
  flushSync(() => root?.unmount())
  root = null
  document.body.replaceChildren()
})

describe('<Markdown>', () => {
  it('shows the raw text until the renderer has loaded, then the rendered markdown', async () => {
    render(<Markdown text={'# 标题\n\n**粗体**'} streaming className="answer" />)
    const outer = shadow.querySelector('.answer')!
    const fallback = [...outer.querySelectorAll('div')].find((d) => d.style.whiteSpace === 'pre-wrap')
    expect(fallback?.textContent).toContain('# 标题\n\n**粗体**')
    await vi.waitFor(() => expect(shadow.querySelector('.lx-md h1')?.textContent).toBe('标题'))
    expect(shadow.querySelector('.lx-md strong')?.textContent).toBe('粗体')
    expect(outer.textContent).not.toContain('**')
  })

  it('follows the text as it streams, with the cursor marker until it is done', async () => {
    render(<Markdown text="你好" streaming />)
    await vi.waitFor(() => expect(shadow.querySelector('.lx-md p')?.textContent).toBe('你好'))
    const md = shadow.querySelector('.lx-md')!
    expect(md.hasAttribute('data-streaming')).toBe(true)
    // (preact runs effects after the frame, React within flushSync: wait for either)
    render(<Markdown text={'你好，世界\n\n- 一'} streaming />)
    await vi.waitFor(() => expect(md.querySelector('li')?.textContent).toBe('一'))
    render(<Markdown text={'你好，世界\n\n- 一\n- 二'} streaming={false} />)
    await vi.waitFor(() => expect(md.querySelectorAll('li')).toHaveLength(2))
    expect(md.hasAttribute('data-streaming')).toBe(false)
    expect(shadow.querySelector('.lx-md')).toBe(md)
  })

  it('adopts the markdown stylesheet into its shadow root', async () => {
    render(<Markdown text="x" streaming={false} />)
    await vi.waitFor(() => expect(shadow.querySelector('.lx-md')).not.toBeNull())
    expect(shadow.adoptedStyleSheets.some((s) => [...s.cssRules].some((r) => r.cssText.includes('.lx-md')))).toBe(true)
  })

  it('removes the rendered answer when unmounted', async () => {
    render(<Markdown text="x" streaming={false} />)
    await vi.waitFor(() => expect(shadow.querySelector('.lx-md')).not.toBeNull())
    flushSync(() => root!.unmount())
    root = null
    expect(shadow.querySelector('.lx-md')).toBeNull()
  })

  it('preloads the renderer chunk on request', async () => {
    const mod = await preloadMarkdown()
    expect(typeof mod.createRenderer).toBe('function')
    expect(preloadMarkdown()).toBe(preloadMarkdown())
  })
})
