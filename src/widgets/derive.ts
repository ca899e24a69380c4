import type { MenuRules } from '../core/menu'
import type { Tool, ToolRoute } from './manifest'

// What the rest of Lingxi derives from the list of tools (tools.ts). Pure functions of the list:
// the host calls them at run time, the build scripts at build time (scripts/tools.mjs), and the
// tests with a list of their own.

export interface ToolElement {
  tag: string
  /** The folder under src/widgets/ and the name of the CDN chunk (`dist/cdn/<file>.js`). */
  file: string
  /** The module that registers the element (the CDN build's entry). */
  entry: string
}

/** Each tool's element, by the convention `lingxi-<folder>` → src/widgets/<folder>/<folder>.element.ts. */
export function elementsOf(tools: readonly Tool[]): ToolElement[] {
  return tools.map(({ tag }) => {
    const file = tag.slice('lingxi-'.length)
    return { tag, file, entry: `src/widgets/${file}/${file}.element.ts` }
  })
}

/** The loader's tag table: the chunk of each tag it imports on first sight (the host's own element added by the build). */
export function tagTable(tools: readonly Tool[]): string[] {
  return elementsOf(tools).map((e) => e.file)
}

/** Every route of every tool, with the tool it shows. */
export function routesOf(tools: readonly Tool[]): { route: ToolRoute; tool: Tool }[] {
  return tools.flatMap((tool) => (tool.routes ?? []).map((route) => ({ route, tool })))
}

/** What the shared menu needs to know of the tools' permission codes (compiled into src/core as `__LINGXI_MENU__`). */
export function menuRules(tools: readonly Tool[]): MenuRules {
  const rules: MenuRules = [[], [], []]
  const [hidden, signedIn, highlights] = rules
  for (const { route } of routesOf(tools)) {
    if (route.code && route.menu === 'hidden') hidden.push(route.code)
    if (route.code && route.menu) signedIn.push(route.code)
    if (route.highlights) highlights.push([route.path, route.highlights])
  }
  return rules
}

/** `LoginDialog` → `login-dialog`: the name a component's shadow host carries (`data-lingxi`). */
const kebab = (name: string) => name.replace(/[A-Z]/g, (c, i: number) => `${i ? '-' : ''}${c.toLowerCase()}`)

/** `hot-news` → `HotNews`: the name a tool's component is exported under. */
const pascal = (folder: string) => folder.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase())

/** The React components of the npm package: each tool's own (from its folder's index.ts) and its `npm` extras. */
export function npmComponents(tools: readonly Tool[]): { name: string; folder: string; shadow: string }[] {
  return elementsOf(tools).flatMap((e, i) => [pascal(e.file), ...(tools[i]!.npm ?? [])].map((name) => ({ name, folder: e.file, shadow: kebab(name) })))
}

/**
 * The source of src/npm/tools.ts: per tool, everything its index.ts exports, and each of its
 * components wrapped in a shadow root. `docs` gives a component's doc line (its element's summary).
 */
export function npmSource(tools: readonly Tool[], docs: Record<string, string> = {}): string {
  const lines = [
    '// Generated from src/widgets/tools.ts by scripts/tools.mjs (`node scripts/tools.mjs` writes it; the build',
    '// does too, and a unit test fails while it is stale). Do not edit.',
    "import { withShadow } from './shadow'"
  ]
  const components = npmComponents(tools)
  const folders = [...new Set(components.map((c) => c.folder))]
  const of = (folder: string) => components.filter((c) => c.folder === folder)
  for (const folder of folders)
    lines.push(
      `import { ${of(folder)
        .map((c) => `${c.name} as ${c.name}Component`)
        .join(', ')} } from '../widgets/${folder}'`
    )
  lines.push('')
  for (const folder of folders) lines.push(`export * from '../widgets/${folder}'`)
  for (const c of components) {
    lines.push('')
    if (docs[c.name]) lines.push(`/** ${docs[c.name]} */`)
    // Pure: a bundle that imports one component drops the others (issue 16).
    lines.push(`export const ${c.name} = /* @__PURE__ */ withShadow(${c.name}Component, '${c.shadow}')`)
  }
  return `${lines.join('\n')}\n`
}
