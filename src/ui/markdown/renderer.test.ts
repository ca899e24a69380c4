// @vitest-environment happy-dom
import { lazy } from './lazy'
import { createRenderer } from './renderer'
import { markdownCss } from './styles'
import { mount, renderOnce, settle, stream } from './test-utils'

const copied = vi.hoisted(() => ({ calls: [] as string[] }))
vi.mock('../../core/format', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/format')>()
  return {
    ...original,
    copyText: vi.fn(async (text: string) => {
      copied.calls.push(text)
      return true
    })
  }
})

// happy-dom has no CSS Font Loading API; a browser's, reduced to what the renderer uses
const fontsAdded: { family: string; source: string; descriptors: FontFaceDescriptors }[] = []
class FakeFontFace {
  constructor(
    readonly family: string,
    readonly source: string,
    readonly descriptors: FontFaceDescriptors
  ) {
    fontsAdded.push({ family, source, descriptors })
  }
}
Object.defineProperty(window, 'FontFace', { value: FakeFontFace, configurable: true })
Object.defineProperty(document, 'fonts', { value: { add: vi.fn() }, configurable: true })

afterEach(() => {
  vi.restoreAllMocks()
  document.body.replaceChildren()
})

describe('markdown rendering', () => {
  it('renders headings, paragraphs, lists, quotes, inline code, rules and GFM tables', () => {
    const root = renderOnce(
      '# 一级\n\n## 二级\n\n段落，**粗体**、*斜体*、~~删除~~、`code`。\n第二行\n\n- 甲\n- 乙\n  1. 子项\n\n> 引用\n\n---\n\n| 左 | 中 | 右 |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n'
    )
    expect([...root.children].map((el) => el.localName)).toEqual(['h1', 'h2', 'p', 'ul', 'blockquote', 'hr', 'div'])
    expect(root.querySelector('p')!.innerHTML).toBe('段落，<strong>粗体</strong>、<em>斜体</em>、<del>删除</del>、<code>code</code>。<br>第二行')
    expect(root.querySelector('ul ol li')!.textContent).toBe('子项')
    const table = root.querySelector('.lx-table > table')!
    // alignment is a class of ours, never an attribute
    expect([...table.querySelectorAll('th')].map((th) => th.className)).toEqual(['lx-left', 'lx-center', 'lx-right'])
    expect([...table.querySelectorAll('td')].map((td) => td.className)).toEqual(['lx-left', 'lx-center', 'lx-right'])
    expect(table.querySelector('[align]')).toBeNull()
    expect(table.querySelectorAll('tbody td')).toHaveLength(3)
  })

  it('shows raw HTML as text (a bare <br> is a line break, as in model-written tables)', () => {
    const root = renderOnce('<div align="center">**居中**</div>\n\n| a | b |\n|---|---|\n| 一<br>二 | <b>x</b> |\n')
    expect(root.querySelector('div[align]')).toBeNull()
    expect(root.querySelector('.lx-raw')!.textContent).toBe('<div align="center">**居中**</div>')
    const cells = root.querySelectorAll('td')
    expect(cells[0]!.innerHTML).toBe('一<br>二')
    expect(cells[1]!.textContent).toBe('<b>x</b>')
  })

  it('adopts its stylesheet into the shadow root once', () => {
    const first = mount()
    const second = document.createElement('div')
    first.shadow.append(second)
    createRenderer(second)
    const sheets = first.shadow.adoptedStyleSheets.filter((s) => [...s.cssRules].some((r) => r.cssText.includes('.lx-md')))
    expect(sheets).toHaveLength(1)
    expect(markdownCss).toContain('--color-primary')
    expect(markdownCss).toContain('prefers-reduced-motion')
  })

  it('adopts it into the document when the container is not in a shadow root', () => {
    const container = document.createElement('div')
    document.body.append(container)
    createRenderer(container).update('你好', true)
    expect(document.adoptedStyleSheets.some((s) => [...s.cssRules].some((r) => r.cssText.includes('.lx-md')))).toBe(true)
  })

  it('removes everything on destroy', () => {
    const { container, renderer } = mount()
    renderer.update('# 标题', true)
    renderer.destroy()
    expect(container.innerHTML).toBe('')
    renderer.update('# 又来', true)
    expect(container.innerHTML).toBe('')
  })
})

describe('code blocks', () => {
  it('have a language header and a copy button that copies the code', async () => {
    const root = renderOnce('```python\nprint("你好")\n```\n')
    const block = root.querySelector('.lx-code')!
    expect(block.querySelector('.lx-code-lang')!.textContent).toBe('python')
    const button = block.querySelector<HTMLButtonElement>('button.lx-code-copy')!
    expect(button.textContent).toBe('复制')
    button.click()
    await vi.waitFor(() => expect(button.textContent).toBe('已复制'))
    expect(copied.calls.at(-1)).toBe('print("你好")')
  })

  it('stay plain while open and are highlighted once complete', async () => {
    const { root, renderer } = mount()
    renderer.update('```js\nconst a = 1\n', false)
    await settle()
    expect(root.querySelector('code span')).toBeNull()
    renderer.update('```js\nconst a = 1\n```\n\n好的', false)
    await vi.waitFor(() => expect(root.querySelector('code.lx-hl .lx-t-keyword')?.textContent).toBe('const'))
    expect(root.querySelector('code')!.textContent).toBe('const a = 1')
  })

  it('load the highlighter only for an answer with a finished code block, and only its language', async () => {
    const loadHighlight = vi.spyOn(lazy, 'highlight')
    const { root, renderer } = mount()
    stream(renderer, '# 没有代码\n\n只有 `行内代码` 和文字。\n', 4)
    await settle()
    expect(loadHighlight).not.toHaveBeenCalled()

    const highlight = await import('./highlight')
    const rust = vi.spyOn(highlight.languageLoaders, 'rust')
    const python = vi.spyOn(highlight.languageLoaders, 'python')
    stream(renderer, '# 没有代码\n\n只有 `行内代码` 和文字。\n\n```rs\nfn main() {}\n```\n', 4)
    await vi.waitFor(() => expect(root.querySelector('code.lx-hl')).not.toBeNull())
    expect(loadHighlight).toHaveBeenCalledTimes(1)
    expect(rust).toHaveBeenCalledTimes(1)
    expect(python).not.toHaveBeenCalled()
  })

  it('show an unknown language plain, and scroll long lines', async () => {
    const highlight = await import('./highlight')
    const loaders = Object.keys(highlight.languageLoaders).map((name) => vi.spyOn(highlight.languageLoaders, name))
    const root = renderOnce('```brainfuck\n++[>+<-]' + '.'.repeat(500) + '\n```\n')
    await settle()
    expect(root.querySelector('code')!.classList.contains('lx-hl')).toBe(false)
    for (const spy of loaders) expect(spy).not.toHaveBeenCalled()
    expect(markdownCss).toMatch(/\.lx-md pre\{[^}]*overflow-x:auto/)
  })
})

describe('maths', () => {
  it('loads KaTeX only for an answer with maths', async () => {
    const loadKatex = vi.spyOn(lazy, 'katex')
    renderOnce('价格 $5 到 $10，$100-$200，US$5。\n\n```\n$x$\n```\n')
    await settle()
    expect(loadKatex).not.toHaveBeenCalled()
    const root = renderOnce('质能方程 $E=mc^2$，以及\n\n$$\n\\int_0^1 x\\,dx = \\frac12\n$$\n')
    await vi.waitFor(() => expect(root.querySelectorAll('.lx-math[data-done] .katex')).toHaveLength(2))
    expect(loadKatex).toHaveBeenCalled()
    expect(root.querySelector('.lx-math-display .katex-display')).not.toBeNull()
  })

  it('renders \\(…\\) and \\[…\\] too, and leaves escaped dollars alone', async () => {
    const root = renderOnce('行内 \\(a^2+b^2\\)，块级：\n\n\\[\nc^2\n\\]\n\n转义 \\$5 和 \\$6$。\n')
    await vi.waitFor(() => expect(root.querySelectorAll('.lx-math[data-done]')).toHaveLength(2))
    expect(root.textContent).toContain('转义 $5 和 $6$。')
  })

  it('adopts the KaTeX stylesheet and registers its fonts from the CDN on the document', async () => {
    const { shadow, root, renderer } = mount()
    renderer.update('$x$', true)
    await vi.waitFor(() => expect(root.querySelector('.katex')).not.toBeNull())
    expect(shadow.adoptedStyleSheets.some((s) => [...s.cssRules].some((r) => r.cssText.includes('.katex')))).toBe(true)
    expect(fontsAdded.length).toBe(20)
    expect(fontsAdded.every((f) => /^url\(https?:\/\/[^/]+\/cdn\/fonts\/katex\/KaTeX_[\w-]+\.woff2\)/.test(f.source))).toBe(true)
    expect(fontsAdded.find((f) => f.source.includes('KaTeX_Main-Bold.woff2'))).toMatchObject({
      family: 'KaTeX_Main',
      descriptors: { weight: '700', style: 'normal' }
    })
    expect((document as unknown as { fonts: { add: ReturnType<typeof vi.fn> } }).fonts.add).toHaveBeenCalledTimes(20)
  })

  it('shows a KaTeX error in place, not an exception', async () => {
    const root = renderOnce('坏公式 $\\frac{1}{$ 之后\n')
    await settle()
    expect(root.textContent).toContain('之后')
  })
})

describe('mermaid', () => {
  it('loads mermaid only for a finished mermaid block', async () => {
    const loadMermaid = vi.spyOn(lazy, 'mermaid')
    const { root, renderer } = mount()
    renderer.update('```mermaid\ngraph TD\nA-->B\n', false)
    await settle()
    expect(loadMermaid).not.toHaveBeenCalled()
    expect(root.querySelector('.lx-code[data-lang="mermaid"] pre')).not.toBeNull()
    renderer.update('```mermaid\ngraph TD\nA-->B\n```\n', true)
    await vi.waitFor(() => expect(loadMermaid).toHaveBeenCalledTimes(1))
  })
})
