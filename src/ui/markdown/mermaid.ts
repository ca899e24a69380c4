import mermaid from 'mermaid/dist/mermaid.esm.min.mjs'
import { sanitizeSvg } from './sanitize'
import { adoptCss } from './styles'

// Mermaid diagrams, loaded only when an answer has a finished ```mermaid block. Strict security
// (no click callbacks, labels escaped), SVG-only labels (no foreignObject), and the SVG is
// sanitised again on the way into the page. A diagram's own directives may not loosen any of it.

// A diagram keeps the background of the theme it was drawn in (mermaid bakes its colours into the
// SVG), so one drawn before the person switched themes stays readable.
const css = `.lx-md .lx-mermaid{padding:12px;overflow-x:auto;text-align:center;background:#111215}
.lx-md .lx-mermaid[data-scheme=light]{background:#f6f7f9}
.lx-md .lx-mermaid svg{max-width:100%;height:auto}
.lx-md .lx-code-note{margin:0;padding:6px 12px;border-top:var(--l);color:var(--m);font-size:12px}`

/** The theme mermaid is set up for (it has one global configuration). */
let initialised: Scheme | null = null
let queue: Promise<unknown> = Promise.resolve()
let seq = 0

type Scheme = 'dark' | 'light'

function init(scheme: Scheme): void {
  if (initialised === scheme) return
  initialised = scheme
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: 'strict',
    theme: scheme === 'dark' ? 'dark' : 'default',
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    suppressErrorRendering: true,
    maxTextSize: 20_000,
    maxEdges: 300,
    fontFamily: 'system-ui, -apple-system, "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", sans-serif',
    themeVariables:
      scheme === 'dark'
        ? {
            darkMode: true,
            background: '#17181c',
            primaryColor: '#2a2c33',
            primaryTextColor: '#e9e9ec',
            primaryBorderColor: '#fbab00',
            lineColor: '#9a9ca6',
            secondaryColor: '#202228',
            tertiaryColor: '#202228'
          }
        : { background: '#f6f7f9', primaryBorderColor: '#864700', lineColor: '#60636d' },
    // settings a diagram's %%{init}%% or front matter may not change
    secure: [
      'secure',
      'securityLevel',
      'startOnLoad',
      'maxTextSize',
      'maxEdges',
      'suppressErrorRendering',
      'htmlLabels',
      'flowchart',
      'themeCSS',
      'fontFamily',
      'dompurifyConfig'
    ]
  })
}

/**
 * Renders a diagram to sanitised SVG nodes of `doc`, or null when the source is not valid mermaid.
 * Renders run one at a time (mermaid keeps global state while it lays out).
 */
export function renderMermaid(source: string, doc: Document, scheme: Scheme = 'dark'): Promise<DocumentFragment | null> {
  const job = queue.then(async () => {
    init(scheme)
    const id = `lx-mermaid-${++seq}`
    try {
      if (!(await mermaid.parse(source, { suppressErrors: true }))) return null
      const { svg } = await mermaid.render(id, source)
      const fragment = sanitizeSvg(svg, doc)
      return fragment.querySelector('svg') ? fragment : null
    } catch {
      return null
    } finally {
      // mermaid can leave its scratch element behind after a failed render
      document.getElementById(`d${id}`)?.remove()
    }
  })
  queue = job.catch(() => null)
  return job
}

/**
 * Draws the diagram of a finished ```` ```mermaid ```` block (an `.lx-code` box) under its header,
 * hiding the source; a diagram that does not parse keeps its source, with a note.
 */
export async function drawMermaid(box: Element): Promise<void> {
  const doc = box.ownerDocument
  const note = (text: string) => {
    if (!box.querySelector('.lx-code-note')) box.append(Object.assign(doc.createElement('p'), { className: 'lx-code-note', textContent: text }))
  }
  adoptCss(box, 'mermaid', css)
  // the theme's colour-scheme (the Lingxi sheet sets it on :host): light or dark
  const scheme: Scheme = /^light/.test(doc.defaultView?.getComputedStyle(box).colorScheme ?? '') ? 'light' : 'dark'
  let svg: DocumentFragment | null
  try {
    svg = await renderMermaid(box.querySelector('code')?.textContent ?? '', doc, scheme)
  } catch {
    return note('图表无法显示，已显示源码')
  }
  if (!svg) return note('图表语法有误，已显示源码')
  const holder = doc.createElement('div')
  holder.className = 'lx-mermaid'
  holder.dataset.scheme = scheme
  holder.setAttribute('role', 'img')
  holder.setAttribute('aria-label', '图表')
  holder.append(svg)
  const pre = box.querySelector('pre')
  if (pre) pre.hidden = true
  box.append(holder)
}

/** The renderer's entry point: draws a finished mermaid block (`.lx-code`). */
export const enhance = (box: Element): Promise<void> => drawMermaid(box)
