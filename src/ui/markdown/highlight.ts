import hljs from './vendor/highlight-core.js'
import type { LanguageFn } from 'highlight.js'
import { adoptCss } from './styles'

// Code highlighting, loaded only when an answer has a finished code block. Each language is its
// own chunk, imported the first time a block in that language appears. highlight.js's result is
// not taken as HTML: the spans are built from its token tree (text nodes and <span class>), so
// the code's text never goes through an HTML parser. The theme is adopted with the first block.

const css = `.lx-md .hljs{color:#d4d6dd}
.lx-md :is(.hljs-comment,.hljs-quote){color:#7f848e;font-style:italic}
.lx-md :is(.hljs-keyword,.hljs-selector-tag,.hljs-doctag,.hljs-formula){color:#c792ea}
.lx-md :is(.hljs-string,.hljs-regexp,.hljs-addition,.hljs-attribute,.hljs-meta .hljs-string){color:#a5d6a7}
.lx-md :is(.hljs-number,.hljs-literal,.hljs-symbol,.hljs-bullet,.hljs-variable.constant_){color:#f8c555}
.lx-md :is(.hljs-title,.hljs-title.function_,.hljs-section,.hljs-selector-id){color:#82aaff}
.lx-md :is(.hljs-title.class_,.hljs-type,.hljs-built_in,.hljs-class .hljs-title){color:#ffcb6b}
.lx-md :is(.hljs-attr,.hljs-variable,.hljs-template-variable,.hljs-selector-class,.hljs-selector-attr,.hljs-selector-pseudo,.hljs-property){color:#f78c6c}
.lx-md :is(.hljs-name,.hljs-tag){color:#ff7b72}
.lx-md :is(.hljs-meta,.hljs-meta .hljs-keyword){color:#89ddff}
.lx-md :is(.hljs-params,.hljs-subst,.hljs-operator,.hljs-punctuation){color:#d4d6dd}
.lx-md .hljs-deletion{color:#ff8a80}
.lx-md .hljs-emphasis{font-style:italic}
.lx-md .hljs-strong{font-weight:600}
.lx-md .hljs-link{text-decoration:underline}`

type Loader = () => Promise<{ default: LanguageFn }>

/** One lazy import per language (an object, so tests can spy on an entry). */
export const languageLoaders: Record<string, Loader> = {
  bash: () => import('highlight.js/lib/languages/bash'),
  c: () => import('highlight.js/lib/languages/c'),
  cpp: () => import('highlight.js/lib/languages/cpp'),
  csharp: () => import('highlight.js/lib/languages/csharp'),
  css: () => import('highlight.js/lib/languages/css'),
  dart: () => import('highlight.js/lib/languages/dart'),
  diff: () => import('highlight.js/lib/languages/diff'),
  dockerfile: () => import('highlight.js/lib/languages/dockerfile'),
  go: () => import('highlight.js/lib/languages/go'),
  graphql: () => import('highlight.js/lib/languages/graphql'),
  groovy: () => import('highlight.js/lib/languages/groovy'),
  haskell: () => import('highlight.js/lib/languages/haskell'),
  http: () => import('highlight.js/lib/languages/http'),
  ini: () => import('highlight.js/lib/languages/ini'),
  java: () => import('highlight.js/lib/languages/java'),
  javascript: () => import('highlight.js/lib/languages/javascript'),
  json: () => import('highlight.js/lib/languages/json'),
  kotlin: () => import('highlight.js/lib/languages/kotlin'),
  latex: () => import('highlight.js/lib/languages/latex'),
  less: () => import('highlight.js/lib/languages/less'),
  lua: () => import('highlight.js/lib/languages/lua'),
  makefile: () => import('highlight.js/lib/languages/makefile'),
  markdown: () => import('highlight.js/lib/languages/markdown'),
  matlab: () => import('highlight.js/lib/languages/matlab'),
  nginx: () => import('highlight.js/lib/languages/nginx'),
  objectivec: () => import('highlight.js/lib/languages/objectivec'),
  perl: () => import('highlight.js/lib/languages/perl'),
  php: () => import('highlight.js/lib/languages/php'),
  powershell: () => import('highlight.js/lib/languages/powershell'),
  protobuf: () => import('highlight.js/lib/languages/protobuf'),
  python: () => import('highlight.js/lib/languages/python'),
  r: () => import('highlight.js/lib/languages/r'),
  ruby: () => import('highlight.js/lib/languages/ruby'),
  rust: () => import('highlight.js/lib/languages/rust'),
  scala: () => import('highlight.js/lib/languages/scala'),
  scss: () => import('highlight.js/lib/languages/scss'),
  shell: () => import('highlight.js/lib/languages/shell'),
  sql: () => import('highlight.js/lib/languages/sql'),
  swift: () => import('highlight.js/lib/languages/swift'),
  typescript: () => import('highlight.js/lib/languages/typescript'),
  vbnet: () => import('highlight.js/lib/languages/vbnet'),
  xml: () => import('highlight.js/lib/languages/xml'),
  yaml: () => import('highlight.js/lib/languages/yaml'),
}

const aliases: Record<string, string> = {
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript', node: 'javascript',
  ts: 'typescript', tsx: 'typescript', mts: 'typescript',
  py: 'python', python3: 'python', py3: 'python',
  sh: 'bash', zsh: 'bash', bash: 'bash', console: 'shell', shellsession: 'shell',
  html: 'xml', htm: 'xml', xhtml: 'xml', svg: 'xml', vue: 'xml', wxml: 'xml',
  'c++': 'cpp', cc: 'cpp', cxx: 'cpp', hpp: 'cpp', h: 'c',
  'c#': 'csharp', cs: 'csharp',
  golang: 'go', rs: 'rust', rb: 'ruby', kt: 'kotlin', kts: 'kotlin',
  yml: 'yaml', md: 'markdown', docker: 'dockerfile', ps: 'powershell', ps1: 'powershell', pwsh: 'powershell',
  objc: 'objectivec', 'objective-c': 'objectivec', toml: 'ini', conf: 'ini', cfg: 'ini',
  tex: 'latex', proto: 'protobuf', vb: 'vbnet', mysql: 'sql', postgresql: 'sql', psql: 'sql', plsql: 'sql',
  jsonc: 'json', json5: 'json', gradle: 'groovy', mk: 'makefile', make: 'makefile', patch: 'diff',
}

/** A fence's language → the highlight.js language to load, or undefined (shown plain). */
export function resolveLanguage(lang: string): string | undefined {
  const name = lang.toLowerCase()
  const resolved = aliases[name] ?? name
  return Object.hasOwn(languageLoaders, resolved) ? resolved : undefined
}

// languages whose grammar embeds another one
const needs: Record<string, string[]> = { shell: ['bash'], xml: ['css', 'javascript'], markdown: ['xml'] }

const loading = new Map<string, Promise<boolean>>()

/** Registers a language once; false when its chunk failed to load. */
export function loadLanguage(name: string): Promise<boolean> {
  let p = loading.get(name)
  if (!p) {
    const loader = languageLoaders[name]
    p = loader
      ? loader().then(
          (m) => (hljs.registerLanguage(name, m.default), true),
          () => (loading.delete(name), false),
        )
      : Promise.resolve(false)
    loading.set(name, p)
  }
  return p
}

/** A node of highlight.js's token tree: text, or a scope (`title.function`, `language:css`) holding nodes. */
type TokenNode = string | { scope?: string; children: TokenNode[] }

/** highlight.js's class names for a scope (as its HTML renderer writes them). */
export function scopeClass(scope: string): string {
  const names = scope.startsWith('language:')
    ? [`language-${scope.slice(9)}`]
    : scope.split('.').map((part, i) => (i ? `${part}${'_'.repeat(i)}` : `hljs-${part}`))
  return names.join(' ').replace(/[^\w -]/g, '')
}

/** Appends a token tree to `parent` as text nodes and spans. */
function build(parent: Element, node: TokenNode): void {
  if (typeof node === 'string') return parent.append(node)
  let into = parent
  if (node.scope) {
    into = parent.ownerDocument.createElement('span')
    into.className = scopeClass(node.scope)
    parent.append(into)
  }
  for (const child of node.children) build(into, child)
}

/** Highlights a finished code element in place (its text stays the same; spans are added). */
export async function highlightCode(code: HTMLElement, lang: string): Promise<void> {
  const name = resolveLanguage(lang)
  if (!name) return
  const [ok] = await Promise.all([loadLanguage(name), ...(needs[name] ?? []).map(loadLanguage)])
  if (!ok || code.hasAttribute('data-highlighted') || !code.isConnected) return
  const source = code.textContent ?? ''
  const result = hljs.highlight(source, { language: name, ignoreIllegals: true })
  const tree = (result._emitter as unknown as { root: TokenNode }).root
  adoptCss(code, 'hljs', css)
  code.replaceChildren()
  build(code, tree)
  code.classList.add('hljs')
  code.setAttribute('data-highlighted', '')
}

/** The renderer's entry point: highlights the code of a finished code block (`.lx-code`). */
export const enhance = (box: Element, lang: string): Promise<void> => highlightCode(box.querySelector('code')!, lang)
