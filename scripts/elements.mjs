// Lingxi's custom elements: the host's own (`lingxi-app`) and each tool's, from the list of tools
// (src/widgets/tools.ts, through scripts/tools.mjs). The CDN build's entries, the loader's tag
// table, the CSS build and the custom-elements manifest all derive from it.
import { elementsOf, tools } from './tools.mjs'

export const elements = [{ tag: 'lingxi-app', file: 'app', entry: 'src/host/app.element.ts' }, ...elementsOf(tools)]

/** Every ES module entry of the CDN build: the elements plus the loader's command runner. */
export const entries = [...elements, { tag: 'lingxi-commands', file: 'commands', entry: 'src/loader/commands.ts' }]
