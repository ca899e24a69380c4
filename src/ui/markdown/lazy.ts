// The renderer's heavy parts, each its own chunk, imported on first need. An object so tests can
// spy on a loader (and see that an answer without code never loads the highlighter).
export const lazy = {
  highlight: () => import('./highlight'),
  katex: () => import('./math'),
  mermaid: () => import('./mermaid')
}
