import type { HLJSApi } from 'highlight.js'

/** highlight.js's core (see generate.mjs); the same API as `highlight.js/lib/core`. */
declare const hljs: HLJSApi
export default hljs
