import Prism, { type PrismToken } from './vendor/prism/core.js'
import { grammarLoaders, grammarRequires } from './vendor/prism/languages'
import { adoptCss } from './styles'

// Code highlighting, loaded only when an answer has a finished code block. Prism's core (about
// 3 KB gzip, a third of highlight.js's) plus one chunk per grammar, imported the first time a
// block in that language appears. Prism's output is not taken as HTML: the spans are built from
// its token stream (text nodes and <span class="lx-t-…">), so the code's text never goes through
// an HTML parser. The theme is adopted with the first block.

// Token types of Prism's grammars (https://prismjs.com/tokens.html): each colour for the light and
// the dark theme, chosen by the code's `color-scheme` (the theme sets it); a browser without
// light-dark() keeps the dark one, as it keeps the code block dark (styles.ts).
const c = (light: string, dark: string) => `{color:${dark};color:light-dark(${light},${dark})`
const css = `.lx-md .lx-hl${c('#24292f', '#d4d6dd')}}
.lx-md :is(.lx-t-comment,.lx-t-prolog,.lx-t-doctype,.lx-t-cdata)${c('#656d76', '#7f848e')};font-style:italic}
.lx-md :is(.lx-t-keyword,.lx-t-atrule,.lx-t-important,.lx-t-rule)${c('#a626a4', '#c792ea')}}
.lx-md :is(.lx-t-string,.lx-t-char,.lx-t-regex,.lx-t-inserted,.lx-t-attr-value,.lx-t-template-string)${c('#116329', '#a5d6a7')}}
.lx-md :is(.lx-t-number,.lx-t-boolean,.lx-t-constant,.lx-t-symbol,.lx-t-entity)${c('#8a5a00', '#f8c555')}}
.lx-md :is(.lx-t-function,.lx-t-function-variable,.lx-t-selector,.lx-t-title)${c('#0550ae', '#82aaff')}}
.lx-md :is(.lx-t-class-name,.lx-t-builtin,.lx-t-namespace)${c('#953800', '#ffcb6b')}}
.lx-md :is(.lx-t-property,.lx-t-attr-name,.lx-t-variable,.lx-t-parameter,.lx-t-key)${c('#b3361f', '#f78c6c')}}
.lx-md :is(.lx-t-tag,.lx-t-deleted)${c('#cf222e', '#ff7b72')}}
.lx-md :is(.lx-t-url,.lx-t-interpolation-punctuation,.lx-t-shebang,.lx-t-directive)${c('#0a6e7a', '#89ddff')}}
.lx-md :is(.lx-t-punctuation,.lx-t-operator)${c('#57606a', '#aeb2bd')}}
.lx-md .lx-t-italic{font-style:italic}
.lx-md .lx-t-bold{font-weight:600}
.lx-md .lx-t-url{text-decoration:underline}`

/** One lazy import per grammar (an object, so tests can spy on an entry). */
export const languageLoaders = grammarLoaders

// Fence names people write → Prism's grammar names.
const aliases: Record<string, string> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  node: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  py: 'python',
  python3: 'python',
  py3: 'python',
  sh: 'bash',
  zsh: 'bash',
  shell: 'bash',
  console: 'shell-session',
  shellsession: 'shell-session',
  html: 'markup',
  htm: 'markup',
  xml: 'markup',
  xhtml: 'markup',
  svg: 'markup',
  vue: 'markup',
  wxml: 'markup',
  'c++': 'cpp',
  cc: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  h: 'c',
  'c#': 'csharp',
  cs: 'csharp',
  golang: 'go',
  rs: 'rust',
  rb: 'ruby',
  kt: 'kotlin',
  kts: 'kotlin',
  yml: 'yaml',
  md: 'markdown',
  dockerfile: 'docker',
  ps: 'powershell',
  ps1: 'powershell',
  pwsh: 'powershell',
  objc: 'objectivec',
  'objective-c': 'objectivec',
  conf: 'ini',
  cfg: 'ini',
  tex: 'latex',
  proto: 'protobuf',
  vb: 'visual-basic',
  vbnet: 'visual-basic',
  mysql: 'sql',
  postgresql: 'sql',
  psql: 'sql',
  plsql: 'sql',
  jsonc: 'json',
  json5: 'json',
  gradle: 'groovy',
  mk: 'makefile',
  make: 'makefile',
  patch: 'diff'
}

/** A fence's language → the Prism grammar to load, or undefined (shown plain). */
export function resolveLanguage(lang: string): string | undefined {
  const name = lang.toLowerCase()
  const resolved = aliases[name] ?? name
  // Only the grammars meant for fences: helpers such as markup-templating are not languages.
  return Object.hasOwn(languageLoaders, resolved) && resolved !== 'markup-templating' && resolved !== 'clike' ? resolved : undefined
}

const loading = new Map<string, Promise<boolean>>()

/** Applies a grammar (after the ones it extends) once; false when a chunk failed to load. */
export function loadLanguage(name: string): Promise<boolean> {
  let p = loading.get(name)
  if (!p) {
    const loader = languageLoaders[name]
    p = loader
      ? Promise.all([loader(), ...(grammarRequires[name] ?? []).map(loadLanguage)])
          .then(([m, ...ok]) => {
            if (!ok.every(Boolean)) throw new Error(`${name}: a grammar it needs failed to load`)
            m.default(Prism)
            return true
          })
          .catch(() => {
            loading.delete(name)
            return false
          })
      : Promise.resolve(false)
    loading.set(name, p)
  }
  return p
}

/** The class names of a token: its type and aliases as `lx-t-*` (only letters, digits and -). */
export function tokenClass(token: PrismToken): string {
  const alias = token.alias === undefined ? [] : Array.isArray(token.alias) ? token.alias : [token.alias]
  return [token.type, ...alias].map((t) => `lx-t-${t.toLowerCase().replace(/[^a-z0-9-]/g, '')}`).join(' ')
}

/** Appends Prism's tokens to `parent` as text nodes and spans. */
function build(parent: Element, node: string | PrismToken | Array<string | PrismToken | unknown>): void {
  if (typeof node === 'string') {
    parent.append(node)
    return
  }
  if (Array.isArray(node)) {
    for (const child of node) build(parent, child as PrismToken)
    return
  }
  const span = parent.ownerDocument.createElement('span')
  span.className = tokenClass(node)
  parent.append(span)
  build(span, node.content as PrismToken)
}

/** Highlights a finished code element in place (its text stays the same; spans are added). */
export async function highlightCode(code: HTMLElement, lang: string): Promise<void> {
  const name = resolveLanguage(lang)
  if (!name) return
  const ok = await loadLanguage(name)
  if (!ok || code.hasAttribute('data-highlighted') || !code.isConnected) return
  const grammar = Prism.languages[name]
  if (!grammar) return
  const tokens = Prism.tokenize(code.textContent ?? '', grammar)
  adoptCss(code, 'highlight', css)
  code.replaceChildren()
  build(code, tokens)
  code.classList.add('lx-hl')
  code.setAttribute('data-highlighted', '')
}

/** The renderer's entry point: highlights the code of a finished code block (`.lx-code`). */
export const enhance = (box: Element, lang: string): Promise<void> => highlightCode(box.querySelector('code')!, lang)
