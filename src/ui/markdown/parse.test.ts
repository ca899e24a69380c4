// @vitest-environment happy-dom
import fc from 'fast-check'
import { inlineMathAt } from './math-syntax'
import { renderOnce } from './test-utils'

afterEach(() => document.body.replaceChildren())

const html = (markdown: string) => renderOnce(markdown).innerHTML
const A = (href: string, text = href) => `<a href="${href}" target="_blank" rel="noopener noreferrer nofollow">${text}</a>`

describe('markdown → DOM', () => {
  it.each([
    // headings: ATX only, closing #s dropped, `#tag` is text
    ['# 一\n## 二 ##\n###### 六\n#tag\n####### 七', '<h1>一</h1><h2>二</h2><h6>六</h6><p>#tag<br>####### 七</p>'],
    ['# C#', '<h1>C#</h1>'],
    // paragraphs: a single newline is a line break, a blank line a new paragraph
    ['一\n二  \n\n三', '<p>一<br>二</p><p>三</p>'],
    // emphasis, nested, and CJK around it (no spaces needed)
    ['**粗*斜*粗**、_斜_、~~删~~、***两者***', '<p><strong>粗<em>斜</em>粗</strong>、<em>斜</em>、<del>删</del>、<em><strong>两者</strong></em></p>'],
    ['这是**“重点”**内容，*foo**bar**baz*', '<p>这是<strong>“重点”</strong>内容，<em>foo<strong>bar</strong>baz</em></p>'],
    ['snake_case_name 与 2 * 3 * 4 与 ~单~ 与 ~~~三~~~', '<p>snake_case_name 与 2 * 3 * 4 与 ~单~ 与 ~~~三~~~</p>'],
    ['*[链接*](https://a.example)', `<p>*${A('https://a.example/', '链接*')}</p>`],
    // code spans: runs of any length, spaces and newlines as CommonMark
    ['`a` ``b`c`` ` d ` `` ` `` `x\ny` `open', '<p><code>a</code> <code>b`c</code> <code>d</code> <code>`</code> <code>x y</code> `open</p>'],
    ['`**not bold** <b>`', '<p><code>**not bold** &lt;b&gt;</code></p>'],
    // links, titles (parsed, not shown), angle destinations, parentheses, autolinks, bare URLs
    [
      '[文](https://a.example/x "标题") [b](<https://a.example/a b>) [c](https://en.wikipedia.org/wiki/C_(语言))',
      `<p>${A('https://a.example/x', '文')} ${A('https://a.example/a%20b', 'b')} ${A('https://en.wikipedia.org/wiki/C_(%E8%AF%AD%E8%A8%80)', 'c')}</p>`
    ],
    [
      '<https://a.example/?q=1> 见 https://a.example/p。以及 (https://a.example/q) 和 www.a.example.',
      `<p>${A('https://a.example/?q=1', 'https://a.example/?q=1')} 见 ${A('https://a.example/p', 'https://a.example/p')}。以及 (${A('https://a.example/q', 'https://a.example/q')}) 和 ${A('http://www.a.example/', 'www.a.example')}.</p>`
    ],
    [
      '**[粗链接](https://a.example)** [**粗**](https://a.example) [https://a.example](https://b.example)',
      `<p><strong>${A('https://a.example/', '粗链接')}</strong> ${A('https://a.example/', '<strong>粗</strong>')} ${A('https://b.example/', '<span>https://a.example</span>')}</p>`
    ],
    // no link in a link (the outer brackets stay text, the URL after them is a bare URL); references are text
    [
      '[外[内](https://a.example)](https://b.example) [不是链接] [也不是][ref]',
      `<p>[外${A('https://a.example/', '内')}](${A('https://b.example/', 'https://b.example')}) [不是链接] [也不是][ref]</p>`
    ],
    ['[ref]: https://a.example\n\n[ref]', `<p>[ref]: ${A('https://a.example/', 'https://a.example')}</p><p>[ref]</p>`],
    // escapes and entities
    ['\\*不斜\\* \\` \\{x\\} \\\\ \\a 1\\\n2', '<p>*不斜* ` {x} \\ \\a 1<br>2</p>'],
    ['&amp; &lt;b&gt; &quot; &nbsp; &#39; &#x4E2D; &#0; &copy; &bogus; AT&T', '<p>&amp; &lt;b&gt; " &nbsp; \' 中 \ufffd &amp;copy; &amp;bogus; AT&amp;T</p>'],
    // raw HTML is text; an inline <br> is a line break
    ['a <b>b</b> c<br/>d <!-- x -->', '<p>a &lt;b&gt;b&lt;/b&gt; c<br>d &lt;!-- x --&gt;</p>'],
    ['<details>\n<summary>x</summary>\n\n正文', '<p class="lx-raw">&lt;details&gt;\n&lt;summary&gt;x&lt;/summary&gt;</p><p>正文</p>'],
    // lists: nesting by indentation, ordered starts, tight and loose, task items
    ['- a\n- b\n  - c\n    1. d\n- e', '<ul><li>a</li><li>b<ul><li>c<ol><li>d</li></ol></li></ul></li><li>e</li></ul>'],
    ['3. 三\n4. 四\n\n1) x\n- y', '<ol start="3"><li>三</li><li>四</li></ol><ol><li>x</li></ol><ul><li>y</li></ul>'],
    ['- a\n\n- b', '<ul><li><p>a</p></li><li><p>b</p></li></ul>'],
    ['- a\n\n  more\n- b', '<ul><li><p>a</p><p>more</p></li><li><p>b</p></li></ul>'],
    ['- a\nlazy\n- b\n\nafter', '<ul><li>a<br>lazy</li><li>b</li></ul><p>after</p>'],
    [
      '- [x] 完成\n- [ ] 待办\n- [ ]\n- [x]not',
      '<ul><li><input type="checkbox" disabled="" checked="">完成</li><li><input type="checkbox" disabled="">待办</li><li>[ ]</li><li>[x]not</li></ul>'
    ],
    [
      '1. 步骤：\n   ```sh\n   npm i\n   ```\n2. 完成',
      '<ol><li>步骤：<div class="lx-code" data-lang="sh"><div class="lx-code-head"><span class="lx-code-lang">sh</span><button class="lx-code-copy" type="button">复制</button></div><pre tabindex="0" role="region" aria-label="代码 sh"><code class="language-sh">npm i</code></pre></div></li><li>完成</li></ol>'
    ],
    ['段落\n- 列表', '<p>段落</p><ul><li>列表</li></ul>'],
    // quotes, nested, lazy
    ['> a\nlazy\n> > b\n>\n> - c', '<blockquote><p>a<br>lazy</p><blockquote><p>b</p></blockquote><ul><li>c</li></ul></blockquote>'],
    // fences: ``` and ~~~, info strings, longer closers, unclosed
    [
      '````md\n```\n````\n~~~\nx\n~~~~\n\n```\n  keep\n',
      '<div class="lx-code" data-lang="md"><div class="lx-code-head"><span class="lx-code-lang">md</span><button class="lx-code-copy" type="button">复制</button></div><pre tabindex="0" role="region" aria-label="代码 md"><code class="language-md">```</code></pre></div><div class="lx-code" data-lang=""><div class="lx-code-head"><span class="lx-code-lang">text</span><button class="lx-code-copy" type="button">复制</button></div><pre tabindex="0" role="region" aria-label="代码 text"><code>x</code></pre></div><div class="lx-code" data-lang=""><div class="lx-code-head"><span class="lx-code-lang">text</span><button class="lx-code-copy" type="button">复制</button></div><pre tabindex="0" role="region" aria-label="代码 text"><code>  keep</code></pre></div>'
    ],
    ['``` not `a fence`', '<p>``` not <code>a fence</code></p>'],
    // thematic breaks (a `---` under text is a rule, not a heading)
    ['a\n---\n* * *\n___', '<p>a</p><hr><hr><hr>'],
    // tables: alignment, escaped pipes, inline markdown and <br> in cells, ragged rows, interrupting a paragraph
    [
      '说明：\n| a | b \\| c | d |\n|:-|:-:|-:|\n| **x** | `y\\|z` | 一<br>二 |\n| 1 |\n\n后',
      '<p>说明：</p><div class="lx-table" tabindex="0" role="region" aria-label="表格"><table><thead><tr><th class="lx-left">a</th><th class="lx-center">b | c</th><th class="lx-right">d</th></tr></thead><tbody><tr><td class="lx-left"><strong>x</strong></td><td class="lx-center"><code>y|z</code></td><td class="lx-right">一<br>二</td></tr><tr><td class="lx-left">1</td><td class="lx-center"></td><td class="lx-right"></td></tr></tbody></table></div><p>后</p>'
    ],
    ['| a | b |\n|---|\n| 1 | 2 |', '<p>| a | b |<br>|---|<br>| 1 | 2 |</p>'],
    // maths placeholders (typeset later by the KaTeX chunk)
    [
      '$a_1$ 与 $5 和 $10，\\(b\\)\n\n$$\nE = mc^2\n$$\n之后',
      '<p><span class="lx-math">a_1</span> 与 $5 和 $10，<span class="lx-math">b</span></p><p><span class="lx-math lx-math-display">E = mc^2</span>之后</p>'
    ],
    ['`$x$` 和 \\$5 与 \\[x\\]', '<p><code>$x$</code> 和 $5 与 <span class="lx-math lx-math-display">x</span></p>'],
    // \r\n line endings
    ['# a\r\n\r\n- b\r\n- c\r\n', '<h1>a</h1><ul><li>b</li><li>c</li></ul>']
  ])('%j', (markdown, expected) => {
    expect(html(markdown)).toBe(expected)
  })

  it('renders images: Lingxi’s files inline, other http(s) images as a link, the rest as a label', () => {
    expect(html(`![图](/files/a.png) ![远](https://a.example/b.png) ![](ftp://a.example/c.png) [![图](https://a.example/d.png)](https://a.example)`)).toBe(
      `<p><img alt="图" src="${location.origin}/files/a.png" loading="lazy"> <a href="https://a.example/b.png" target="_blank" rel="noopener noreferrer nofollow" class="lx-img">[图片：远]</a> <span class="lx-img">[图片]</span> ${A('https://a.example/', '<span class="lx-img">[图片：图]</span>')}</p>`
    )
  })

  it('stops nesting quotes, lists and inline elements at 16 levels', () => {
    const quotes = renderOnce(`${'>'.repeat(10_000)} 深`)
    expect(quotes.querySelectorAll('blockquote')).toHaveLength(16)
    expect(quotes.textContent).toBe(`${'>'.repeat(10_000 - 16)} 深`)
    const lists = renderOnce(Array.from({ length: 1000 }, (_, i) => `${'  '.repeat(i)}- ${i}`).join('\n'))
    expect(lists.querySelectorAll('ul')).toHaveLength(16)
    expect(lists.textContent).toContain('999')
    const inline = renderOnce('- '.repeat(5000) + 'x')
    expect(inline.querySelectorAll('ul')).toHaveLength(16)
    const emphasis = renderOnce(`${'*a '.repeat(1000)}b${' a*'.repeat(1000)}`)
    expect(emphasis.querySelectorAll('em')).toHaveLength(16)
    expect(emphasis.textContent).toBe(`${'a '.repeat(1000)}b${' a'.repeat(1000)}`)
  })
})

/**
 * Work done while `run` runs, counted rather than timed: each regex execution (every string method
 * that takes a regex goes through `exec`) with the characters it matched; for a failed search the
 * characters it had left to examine; a failed sticky match fails where it stands, except the two
 * that scan ahead for a closer (maths after `$$`, `\(`, `\[`, and a code span's backticks): they
 * are charged the rest of the text. And each node inserted.
 */
function meter(run: () => void): number {
  const exec = RegExp.prototype.exec
  let work = 0
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    const from = this.global || this.sticky ? this.lastIndex : 0
    const m = exec.call(this, text)
    const far = this.source.startsWith('[^]*?') || (this === inlineMathAt && ['$$', '\\(', '\\['].includes(String(text).slice(from, from + 2)))
    work += 1 + (m ? m.index + m[0].length - from : !this.sticky || far ? String(text).length - from : 0)
    return m
  }
  const patched: [object, string, (...args: unknown[]) => unknown][] = []
  for (const [proto, name] of [
    [Node.prototype, 'appendChild'],
    [Node.prototype, 'insertBefore'],
    [Element.prototype, 'append'],
    [DocumentFragment.prototype, 'append']
  ] as const) {
    const original = (proto as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!
    patched.push([proto, name, original])
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        work++
        return original.apply(this, args)
      }
    })
  }
  try {
    run()
  } finally {
    RegExp.prototype.exec = exec
    for (const [proto, name, original] of patched) Object.defineProperty(proto, name, { configurable: true, writable: true, value: original })
  }
  return work
}

describe('hostile input costs linear work (counted, not timed)', () => {
  const bombs: Record<string, (n: number) => string> = {
    stars: (n) => '*'.repeat(n),
    underscores: (n) => '_'.repeat(n),
    tildes: (n) => '~'.repeat(n),
    'alternating *a': (n) => '*a'.repeat(n / 2),
    'openers then closers': (n) => `${'*a '.repeat(n / 6)}b${' a*'.repeat(n / 6)}`,
    'rule of 3': (n) => `${'*a '.repeat(n / 8)}${'a**a '.repeat(n / 10)}`,
    'unmatched **': (n) => 'a** '.repeat(n / 4),
    mixed: (n) => '*_~~_*'.repeat(n / 6),
    brackets: (n) => '['.repeat(n),
    'closing brackets': (n) => ']'.repeat(n),
    'link openers': (n) => '[a]('.repeat(n / 4),
    'links in links': (n) => `${'[a'.repeat(n / 4)}${'](b)'.repeat(n / 8)}`,
    'images in brackets': (n) => '![['.repeat(n / 3),
    'unclosed titles': (n) => '[a](b "'.repeat(n / 7),
    'spaces in a destination': (n) => `[a](${' '.repeat(n)}x`,
    backticks: (n) => '`'.repeat(n),
    'backtick runs': (n) => Array.from({ length: n / 50 }, (_, i) => '`'.repeat((i % 40) + 1) + 'x').join(''),
    dollars: (n) => '$a '.repeat(n / 3),
    'display openers': (n) => '$$x '.repeat(n / 4),
    'paren maths': (n) => '\\(a'.repeat(n / 3),
    'bracket maths': (n) => '\\[a'.repeat(n / 3),
    'angle brackets': (n) => '<a:'.repeat(n / 3),
    'bare URL starts': (n) => ' http://'.repeat(n / 8),
    'URL then punctuation': (n) => `https://a.example/${')'.repeat(n)}`,
    entities: (n) => '&#'.repeat(n / 2),
    backslashes: (n) => '\\'.repeat(n),
    'long line': (n) => 'a'.repeat(n),
    'heading of #s': (n) => `# ${'#'.repeat(n)} x`,
    'heading of spaces': (n) => `# a${' '.repeat(n)}b`,
    'table row of pipes': (n) => `${'|'.repeat(n)}\n${'|-'.repeat(n / 2)}|\n`,
    'quote markers': (n) => '>'.repeat(n),
    'list markers': (n) => '- '.repeat(n / 2) + 'x',
    'empty items': (n) => '-\n'.repeat(n / 2),
    'fence lines': (n) => '```\n'.repeat(n / 4),
    'blank lines': (n) => '\n'.repeat(n),
    'rules of spaces': (n) => `-${' '.repeat(n)}-x`
  }

  it.each(Object.entries(bombs))('%s', (_, bomb) => {
    const n = 10_000
    const once = meter(() => renderOnce(bomb(n)))
    const twice = meter(() => renderOnce(bomb(2 * n)))
    expect(once).toBeLessThan(40 * n)
    // linear: twice the input, about twice the work (quadratic would be four times)
    expect(twice / once).toBeLessThan(2.6)
  })

  // (streamed, an update costs the size of the open block: a soup without blank lines is one block)
  it('random markdown-ish soup', () => {
    const chunk = fc
      .array(
        fc.constantFrom('*', '_', '~', '`', '[', ']', '(', ')', '!', '<', '>', '$', '\\', '&', '#', '-', '|', ':', ' ', '\n', 'a', '中', 'http://', '1.'),
        { minLength: 200, maxLength: 200 }
      )
      .map((units) => units.join(''))
    fc.assert(
      fc.property(chunk, (piece) => {
        const text = piece.repeat(20)
        expect(meter(() => renderOnce(text))).toBeLessThan(60 * text.length)
        document.body.replaceChildren()
      }),
      { numRuns: 30 }
    )
  })
})
