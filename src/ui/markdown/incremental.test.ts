// @vitest-environment happy-dom
import fc from 'fast-check'
import { mount, renderOnce, stream } from './test-utils'

/** A long answer as models write them: headings, prose, lists, code, tables, quotes, maths. */
function answer(minLength: number): string {
  const parts: string[] = []
  let n = 0
  let len = 0
  const push = (s: string) => {
    parts.push(s)
    len += s.length
  }
  while (len < minLength) {
    n++
    push(`## 第 ${n} 部分：流式渲染\n\n`)
    push(
      `这是第 ${n} 段说明，包含 **加粗**、*斜体*、\`inline code\` 和一个[链接](https://example.com/${n})。价格从 $5 到 $10 不等，公式 $a_${n}^2$ 也会出现。\n\n`
    )
    push(`- 第一项 ${n}\n- 第二项，带有 ~~删除线~~\n- 第三项\n  - 嵌套 ${n}\n\n`)
    push('```ts\n' + Array.from({ length: 12 }, (_, i) => `const value${i} = compute(${n}, ${i}) // 第 ${i} 行`).join('\n') + '\n```\n\n')
    push(`| 名称 | 数值 |\n|---|---:|\n| 甲 | ${n} |\n| 乙 | ${n * 2} |\n| 丙 | ${n * 3} |\n\n`)
    push(`> 引用第 ${n} 段：增量渲染只处理最后一个未完成的块。\n\n`)
    push(`1. 步骤一\n2. 步骤二\n3. 步骤三\n\n`)
    if (n % 3 === 0) push('---\n\n')
  }
  return parts.join('')
}

function measure(text: string, step: number) {
  const { renderer } = mount({ onWork: (_kind, chars) => (current += chars) })
  let current = 0
  let total = 0
  let max = 0
  for (let i = step; i < text.length; i += step) {
    renderer.update(text.slice(0, i), false)
    total += current
    max = Math.max(max, current)
    current = 0
  }
  renderer.update(text, true)
  total += current
  return { total, max, final: current }
}

describe('incremental rendering', () => {
  it('does work linear in the answer: a 20,000-character answer in 2-character deltas', () => {
    const text = answer(20_000)
    const n = text.length
    const { total, max, final } = measure(text, 2)
    // every update lexes and renders only the open block (a few hundred characters at most here)
    expect(total).toBeLessThan(50 * n)
    expect(max).toBeLessThan(2_000)
    // finishing lexes the whole answer once and renders only what was still open
    expect(final).toBeLessThan(n + 2_000)

    // half the answer costs half the work (quadratic work would cost a quarter)
    const half = measure(answer(10_000), 2)
    expect(total / half.total).toBeGreaterThan(1.7)
    expect(total / half.total).toBeLessThan(2.3)
    expect(half.max).toBe(max)
  })

  it('never rebuilds a finished block: its nodes keep their identity until the end', () => {
    const text = answer(6_000)
    const { root, renderer } = mount()
    const seen = new Map<Element, string>()
    stream(renderer, text, 7, () => {
      // everything but the last two children is complete by now
      const children = [...root.children].slice(0, -2)
      for (const el of children) if (!seen.has(el)) seen.set(el, el.outerHTML)
      for (const [el] of seen) expect(el.isConnected).toBe(true)
    })
    expect(seen.size).toBeGreaterThan(40)
    for (const [el] of seen) expect(el.parentNode).toBe(root)
  })

  it('appends to an open code fence without lexing, showing what a full render shows', () => {
    const code = '```python\n' + Array.from({ length: 200 }, (_, i) => `print(${i})  # 行 ${i}`).join('\n') + '\n```\n\n结束。'
    let lexed = 0
    const { root, renderer } = mount({
      onWork: (kind, chars) => {
        if (kind === 'lex') lexed += chars
      }
    })
    const fresh = mount()
    stream(renderer, code, 3, (prefix) => {
      if (prefix.length % 300 !== 0) return
      fresh.renderer.update(prefix, false)
      expect(root.innerHTML).toBe(fresh.root.innerHTML)
    })
    // lexing the whole 4,000-character fence on every 3-character delta would be ~2.7 million
    expect(lexed).toBeLessThan(20 * code.length)
    expect(root.innerHTML).toBe(renderOnce(code).innerHTML)
  })

  it('ends exactly like a one-shot render of the full text', () => {
    const text = answer(3_000)
    for (const step of [1, 2, 5, 13, 64]) {
      const { root, renderer } = mount()
      stream(renderer, text, step)
      expect(root.innerHTML).toBe(renderOnce(text).innerHTML)
    }
  })

  it('shows at every step what a single render of the text so far shows, and ends as a one-shot render (property)', () => {
    const line = fc.constantFrom(
      '# 标题',
      '## h2',
      'plain text',
      'text with *em* and **strong**',
      '- item',
      '  - nested',
      '1. one',
      '2) two',
      '* star',
      '> quote',
      '>',
      '```',
      '```js',
      '~~~',
      '    indented code',
      '---',
      '***',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      'Setext',
      '===',
      '$$',
      'x^2',
      '$a$ and $5 or $10',
      '\\[x\\]',
      '<div>',
      '</div>',
      '<br>',
      '- [ ] task',
      '#hashtag',
      '[link](https://a.com)',
      '  continued',
      '',
      '',
      ''
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.integer({ min: 1, max: 9 }), (lines, step) => {
        const text = lines.join('\n')
        const { root, renderer } = mount()
        stream(renderer, text, step, (prefix) => {
          const fresh = mount()
          fresh.renderer.update(prefix, false)
          expect(root.innerHTML).toBe(fresh.root.innerHTML)
        })
        expect(root.innerHTML).toBe(renderOnce(text).innerHTML)
        document.body.replaceChildren()
      }),
      { numRuns: 120 }
    )
  })

  it('shows reference-style links as text, streamed or not (only inline links are links)', () => {
    const text = '见[文档][doc]。\n\n更多内容。\n\n[doc]: https://example.com/doc\n'
    const { root, renderer } = mount()
    stream(renderer, text, 3)
    expect(root.innerHTML).toBe(renderOnce(text).innerHTML)
    expect(root.querySelector('p')!.textContent).toBe('见[文档][doc]。')
    expect(root.querySelector('p')!.querySelector('a')).toBeNull()
  })

  it('starts over when the text is replaced (a regenerated answer), and reopens after done', () => {
    const { root, renderer } = mount()
    stream(renderer, '# 第一版\n\n内容一\n\n- a\n- b\n', 4)
    renderer.update('# 第二版\n\n', false)
    expect(root.innerHTML).toBe(renderOnce('# 第二版\n\n').innerHTML)
    renderer.update('# 第二版\n\n内容二', true)
    const heading = root.querySelector('h1')
    renderer.update('# 第二版\n\n内容二，继续', false)
    renderer.update('# 第二版\n\n内容二，继续写。', true)
    expect(root.querySelector('h1')).toBe(heading)
    expect(root.innerHTML).toBe(renderOnce('# 第二版\n\n内容二，继续写。').innerHTML)
  })

  it('handles \\r\\n line endings', () => {
    const text = '# 标题\r\n\r\n段落一\r\n\r\n```js\r\nlet a = 1\r\n```\r\n\r\n- x\r\n- y\r\n'
    const { root, renderer } = mount()
    stream(renderer, text, 2)
    expect(root.innerHTML).toBe(renderOnce(text).innerHTML)
    expect(root.querySelector('code')?.textContent).toBe('let a = 1')
  })

  it('marks the root while streaming (the cursor) and not once done', () => {
    const { root, renderer } = mount()
    renderer.update('', false)
    expect(root.hasAttribute('data-streaming')).toBe(true)
    renderer.update('你好', false)
    expect(root.hasAttribute('data-streaming')).toBe(true)
    renderer.update('你好', true)
    expect(root.hasAttribute('data-streaming')).toBe(false)
  })
})
