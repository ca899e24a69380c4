// A reply as plain text: rendered by the same renderer that shows it (so what is a heading, a list
// or code is decided once), into a detached box, then read back as text — markers, emphasis, link
// syntax gone; list bullets, code and TeX kept as written. The renderer's chunk is the one the
// chat has already loaded to show the reply (imported, not bundled here, so it stays one chunk).

const BLOCKS = new Set(['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'BLOCKQUOTE', 'UL', 'OL', 'PRE', 'TABLE', 'HR', 'DIV', 'DETAILS'])

function text(node: Node, out: string[], depth: number): void {
  if (node.nodeType === 3) {
    out.push(node.nodeValue ?? '')
    return
  }
  if (!(node instanceof Element)) {
    for (const child of node.childNodes) text(child, out, depth)
    return
  }
  const el = node
  const tag = el.tagName
  if (el.classList.contains('lx-code-head')) return
  if (tag === 'BR') return void out.push('\n')
  if (tag === 'HR') return void out.push('\n——————\n')
  if (tag === 'INPUT') return void out.push((el as HTMLInputElement).defaultChecked ? '☑ ' : '☐ ')
  if (tag === 'PRE') return void out.push(`\n${(el.textContent ?? '').replace(/\n$/, '')}\n`)
  if (tag === 'A' && el.getAttribute('href') && el.textContent !== el.getAttribute('href')) {
    for (const child of el.childNodes) text(child, out, depth)
    out.push(`（${el.getAttribute('href')}）`)
    return
  }
  if (tag === 'LI') {
    const ol = el.parentElement?.tagName === 'OL' ? (el.parentElement as HTMLOListElement) : null
    const n = ol ? (Number(ol.getAttribute('start')) || 1) + [...ol.children].indexOf(el) : 0
    out.push(`\n${'  '.repeat(depth)}${ol ? `${n}. ` : '• '}`)
    for (const child of el.childNodes) text(child, out, depth + 1)
    return
  }
  if (tag === 'TR') {
    out.push('\n')
    ;[...el.children].forEach((cell, i) => {
      if (i) out.push('\t')
      text(cell, out, depth)
    })
    return
  }
  const block = BLOCKS.has(tag)
  if (block) out.push('\n')
  for (const child of el.childNodes) text(child, out, depth)
  if (block) out.push('\n')
}

/** Markdown as the plain text a reader sees: blocks separated by a blank line. */
export async function toPlainText(markdown: string, doc: Document = document): Promise<string> {
  const { createRenderer } = await import('../../../ui/markdown/renderer')
  const box = doc.createElement('div')
  const renderer = createRenderer(box)
  try {
    renderer.update(markdown, true)
    // read before any lazy chunk typesets maths or highlights code: the TeX and code stay as written
    return [...(box.querySelector('.lx-md')?.children ?? [])]
      .map((block) => {
        const out: string[] = []
        text(block, out, 0)
        return out
          .join('')
          .replace(/[ \t]+\n/g, '\n')
          .replace(/\n{2,}/g, '\n')
          .trim()
      })
      .filter(Boolean)
      .join('\n\n')
  } finally {
    renderer.destroy()
  }
}
