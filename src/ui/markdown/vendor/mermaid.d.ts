// mermaid's self-contained ES build (its dependencies bundled in, diagrams as lazy chunks). The
// package's main entry imports CommonJS dependencies (dayjs …) the CDN build cannot bundle.
declare module 'mermaid/dist/mermaid.esm.min.mjs' {
  import mermaid from 'mermaid'
  export default mermaid
}
