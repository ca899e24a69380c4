// The markdown renderer's public surface. Only the component is static: createRenderer and its
// dependencies stay behind `import('./renderer')` (see preloadMarkdown), so importing this module
// costs a chunk well under 1.5 KB.
export { Markdown, preloadMarkdown } from './markdown'
