// @vitest-environment happy-dom
import { mount, renderOnce, settle, stream } from './test-utils'
import { safeLinkUrl } from './sanitize'

// The renderer builds every element itself from a fixed list of tags: no model text ever reaches
// an HTML parser, and whatever the markdown, nothing outside the list appears.

/** Markdown that exercises every construct, with hostile content in each place it can go. */
const CORPUS = [
  '# 标题 <img src=x onerror=alert(1)> ##',
  '段落 **粗 _斜 ~~删~~_** `code <b>` [链接](https://example.com "t\\" onmouseover=\\"x") <https://example.org> www.example.net',
  '[a](javascript:alert(1)) [b](&#106;avascript:x) [c](<javascript:x>) <javascript:alert(1)> <vbscript:x> ![x](javascript:alert(1))',
  '![远程](https://evil.example/p.png "t") ![本地](/files/a.png) ![逃逸](/files/%2e%2e/x) ![](data:image/png;base64,AAAA)',
  '<div onclick="x()" style="background:url(//evil.example)">**raw**</div>',
  '',
  '<script>alert(1)</script> <style>@import url(//evil.example)</style> <iframe srcdoc="<script>x</script>"></iframe> <a href="javascript:x">a</a>',
  '',
  '- [x] 任务 <b onmouseover=x>',
  '- [ ] 待办',
  '  1. 嵌套 &lt;script&gt; &#x3C;img&#x3E; &amp;',
  '',
  '3. 从三开始',
  '4. next',
  '',
  '> 引用 <svg onload=alert(1)>',
  '> > 嵌套 [x](https://a.example/\\"onclick=\\")',
  '',
  '| 左 | 中 | 右 |',
  '|:--|:-:|--:|',
  '| <img src=x onerror=alert(1)> | a \\| b | `c | d` |',
  '',
  '```js" onclick="alert(1)',
  'const a = "<script>alert(1)</script>"',
  '```',
  '',
  '~~~html',
  '<img src=x onerror=alert(1)>',
  '~~~',
  '',
  '---'
].join('\n')

const TAGS = new Set([
  'div',
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'pre',
  'code',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'a',
  'strong',
  'em',
  'del',
  'hr',
  'br',
  'span',
  'input',
  'button',
  'img'
])

/** Every element and attribute the renderer made, checked against what it may make. */
function offAllowlist(root: HTMLElement): string[] {
  const found: string[] = []
  const allowed: Record<string, (el: Element, value: string) => boolean> = {
    class: (_, v) => v.split(' ').every((c) => /^(lx-[a-z0-9-]+|language-[\w+#.-]+)$/.test(c)),
    href: (el, v) => el.localName === 'a' && safeLinkUrl(v) === v,
    target: (el, v) => el.localName === 'a' && v === '_blank',
    rel: (el, v) => el.localName === 'a' && v === 'noopener noreferrer nofollow',
    src: (el, v) => el.localName === 'img' && v.startsWith(`${location.origin}/files/`),
    alt: (el) => el.localName === 'img',
    loading: (el, v) => el.localName === 'img' && v === 'lazy',
    type: (el, v) => (el.localName === 'input' && v === 'checkbox') || (el.localName === 'button' && v === 'button'),
    disabled: (el) => el.localName === 'input',
    checked: (el) => el.localName === 'input',
    start: (el, v) => el.localName === 'ol' && /^\d+$/.test(v),
    'data-lang': (el, v) => el.matches('div.lx-code') && /^[\w+#.-]*$/.test(v),
    'data-streaming': (el) => el === root,
    'data-highlighted': (el) => el.localName === 'code',
    // a scrolling code block or table: reachable by keyboard, and named
    tabindex: (el, v) => el.matches('pre, div.lx-table') && v === '0',
    role: (el, v) => el.matches('pre, div.lx-table') && v === 'region',
    'aria-label': (el, v) => el.matches('pre, div.lx-table') && /^(表格|代码 [\w+#.-]+)$/.test(v)
  }
  for (const el of [root, ...root.querySelectorAll('*')]) {
    if (!TAGS.has(el.localName)) found.push(`<${el.localName}>`)
    for (const { name, value } of el.attributes) if (!allowed[name]?.(el, value)) found.push(`${el.localName}[${name}=${value}]`)
  }
  return found
}

describe('built, not parsed', () => {
  afterEach(() => {
    vi.restoreAllMocks()
    document.body.replaceChildren()
  })

  it('never hands text to an HTML parser: no innerHTML, outerHTML, insertAdjacentHTML, DOMParser, createContextualFragment, document.write', async () => {
    const parsers = [
      vi.spyOn(Element.prototype, 'innerHTML', 'set'),
      vi.spyOn(Element.prototype, 'outerHTML', 'set'),
      vi.spyOn(Element.prototype, 'insertAdjacentHTML'),
      vi.spyOn(Range.prototype, 'createContextualFragment'),
      vi.spyOn(DOMParser.prototype, 'parseFromString'),
      vi.spyOn(Document.prototype, 'write')
    ]
    // every line of the corpus carries a marker: no parser may ever see it (other tests' KaTeX
    // and mermaid output, sanitised by DOMPurify, may still be parsed meanwhile)
    const marker = 'lx-7f3a'
    const text = CORPUS.split('\n')
      .map((line) => (!line.trim() || /^(```|~~~|---|\|[-:|]+\|$)/.test(line) ? line : `${line} ${marker}`))
      .join('\n')
    const seen = () => parsers.flatMap((spy) => spy.mock.calls.flat()).filter((arg) => String(arg).includes(marker))
    // the spies see those entry points (happy-dom implements them on these prototypes)
    document.createElement('div').innerHTML = `<b>${marker}</b>`
    new DOMParser().parseFromString(`<b>${marker}</b>`, 'text/html')
    expect(seen()).toHaveLength(2)
    for (const spy of parsers) spy.mockClear()
    const once = renderOnce(text)
    const { root, renderer } = mount()
    stream(renderer, text, 3)
    // highlighting included: its spans are built from Prism's token stream
    await vi.waitFor(() => expect(root.querySelector('code.lx-hl span')).not.toBeNull())
    expect(root.textContent).toContain(marker)
    expect(seen()).toEqual([])
    expect(root.innerHTML).toBe(once.innerHTML.replace(/ data-streaming=""/, ''))
  })

  it('makes only allowlisted elements, with allowlisted attributes and values', async () => {
    const once = renderOnce(CORPUS)
    await settle()
    expect(offAllowlist(once)).toEqual([])
    const { root, renderer } = mount()
    stream(renderer, CORPUS, 5, () => expect(offAllowlist(root)).toEqual([]))
    // and the text is all there, as text
    expect(once.textContent).toContain('<script>alert(1)</script>')
    expect(once.textContent).toContain('<img src=x onerror=alert(1)>')
    expect(once.querySelectorAll('a[href]')).toHaveLength(5)
    expect([...once.querySelectorAll('a:not([href])')].map((a) => a.textContent)).toEqual(expect.arrayContaining(['a', 'b', 'c', 'javascript:alert(1)']))
  })
})
