import mermaid from 'mermaid/dist/mermaid.esm.min.mjs'
import { sanitizeSvg } from './sanitize'

// Mermaid diagrams, loaded only when an answer has a finished ```mermaid block. Strict security
// (no click callbacks, labels escaped), SVG-only labels (no foreignObject), and the SVG is
// sanitised again on the way into the page. A diagram's own directives may not loosen any of it.

let initialised = false
let queue: Promise<unknown> = Promise.resolve()
let seq = 0

function init(): void {
  if (initialised) return
  initialised = true
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: 'strict',
    theme: 'dark',
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    suppressErrorRendering: true,
    maxTextSize: 20_000,
    maxEdges: 300,
    fontFamily: 'system-ui, -apple-system, "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", sans-serif',
    themeVariables: {
      darkMode: true,
      background: '#17181c',
      primaryColor: '#2a2c33',
      primaryTextColor: '#e9e9ec',
      primaryBorderColor: '#fbab00',
      lineColor: '#9a9ca6',
      secondaryColor: '#202228',
      tertiaryColor: '#202228',
    },
    // settings a diagram's %%{init}%% or front matter may not change
    secure: ['secure', 'securityLevel', 'startOnLoad', 'maxTextSize', 'maxEdges', 'suppressErrorRendering', 'htmlLabels', 'flowchart', 'themeCSS', 'fontFamily', 'dompurifyConfig'],
  })
}

/**
 * Renders a diagram to sanitised SVG nodes of `doc`, or null when the source is not valid mermaid.
 * Renders run one at a time (mermaid keeps global state while it lays out).
 */
export function renderMermaid(source: string, doc: Document): Promise<DocumentFragment | null> {
  const job = queue.then(async () => {
    init()
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
