// Compiles src/styles/lingxi.css with Tailwind v4 into:
// - `base`: theme, preflight, :host rules and the lx-* components, which every shadow root adopts
//   first (it ships once, in the chunk every element shares);
// - one sheet per element with only the utilities its own code uses (its module graph, lazy parts
//   included, found with esbuild), so a page embedding only the chat never downloads the
//   painting's classes; the CDN build registers it in the element's entry (rollup.config.mjs).
//   An element may defer lazily loaded parts (`deferred` below): its sheet then leaves out the rules
//   only they use, and `<name>.rest.ts` holds those rules with where they go (see splitSheet), for
//   the element to insert when such a part loads (ui/extend-css.ts);
// - `full`: base plus every utility of src/, for the npm package and the tests.
// Output: src/styles/generated/<name>.ts string modules (git-ignored).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, extname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compile, optimize } from '@tailwindcss/node'
import { Scanner } from '@tailwindcss/oxide'
import { build } from 'esbuild'
import ts from 'typescript'
import { fixShadowProperties } from './css-fix.mjs'
import { elements } from './elements.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const stylesDir = join(root, 'src/styles')
const outDir = join(stylesDir, 'generated')
const source = readFileSync(join(stylesDir, 'lingxi.css'), 'utf8')
const isSource = (file) => /\.(tsx?|jsx?)$/.test(file) && !/\.test\.tsx?$/.test(file)

/**
 * Parts of an element that load on demand and bring the rules only they use (`<name>.rest.ts`),
 * so the sheet in the element's entry carries what showing it and its main view needs. The chat:
 * settings, the narrow inline dialogs and the login dialog (the chat loads each through
 * src/widgets/chat/deferred.ts, which brings rest-css.ts along); not the topic list, which the
 * host page shows at once (its rules in the entry cost less than a second request).
 */
const deferred = {
  chat: [
    'src/widgets/chat/settings.tsx',
    'src/ui/dialog.tsx',
    'src/ui/login/login-dialog.tsx',
    'src/widgets/chat/share/dialog.tsx',
    // Attachments (issue 20): the composer's tray and the history's thumbnails, on first use.
    'src/widgets/chat/attach/tray.tsx',
    'src/widgets/chat/attach/history.tsx',
    // The search results, the message editor and version switcher, the prompt menu, the exports.
    'src/widgets/chat/search/panel.tsx',
    'src/widgets/chat/edit/',
    'src/widgets/chat/prompts/',
    'src/widgets/chat/export/',
    'src/ui/report-dialog.tsx'
  ],
  // The host's entry page (/): no other route needs its rules (src/host/rest-css.ts brings them).
  // Every lazily loaded screen of the host and its notices (each imports src/host/rest-css.ts).
  app: [
    'src/host/screens/entry.tsx',
    'src/host/screens/share.tsx',
    'src/host/screens/tool.tsx',
    'src/host/screens/not-found.tsx',
    'src/host/notice-views.tsx',
    'src/host/announce.tsx'
  ],
  // The header button shows alone; its menu, panel and theme control load when first used
  // (src/widgets/profile/profile.tsx, through deferred.ts).
  profile: ['src/widgets/profile/account-menu.tsx', 'src/widgets/profile/panel.tsx', 'src/widgets/profile/theme-picker.tsx']
}

/** The files of src/ that an entry's module graph reaches (static and dynamic imports), not through `skip`. */
async function graph(entry, skip = []) {
  const skipped = new Set(skip.filter((file) => !file.endsWith('/')).map((file) => join(root, file).replace(/\.tsx?$/, '')))
  // A folder (`…/attach/`): every import into it from outside it is deferred.
  const folders = skip.filter((file) => file.endsWith('/')).map((folder) => join(root, folder))
  const deferredImport = (from, path) => skipped.has(path) || folders.some((folder) => `${path}/`.startsWith(folder) && !from.startsWith(folder))
  const result = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    write: false,
    metafile: true,
    splitting: true,
    format: 'esm',
    outdir: join(root, '.css-graph'),
    platform: 'browser',
    packages: 'external',
    jsx: 'automatic',
    loader: { '.json': 'json' },
    logLevel: 'silent',
    // The sheets themselves (the npm entry imports one) are what this run writes.
    plugins: [
      {
        name: 'generated',
        setup(b) {
          b.onResolve({ filter: /styles\/generated\// }, (a) => ({ path: a.path, external: true }))
          b.onResolve({ filter: /^\./ }, (a) =>
            deferredImport(`${a.resolveDir}/`, join(a.resolveDir, a.path).replace(/\.tsx?$/, '')) ? { path: a.path, external: true } : undefined
          )
        }
      }
    ]
  })
  return Object.keys(result.metafile.inputs)
    .map((file) => join(root, file))
    .filter((file) => file.startsWith(join(root, 'src')) && isSource(file))
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name)
    if (d.isDirectory()) return path === outDir ? [] : walk(path)
    return isSource(path) ? [path] : []
  })
}

const LAYER_ORDER = '@layer properties,theme,base,components,utilities,lx-after;'

/** `css` without the top-level `@layer <name>{…}` blocks named (minified input). */
function dropLayers(css, names) {
  let out = ''
  let i = 0
  for (;;) {
    const starts = names.map((n) => css.indexOf(`@layer ${n}{`, i)).filter((at) => at >= 0)
    if (starts.length === 0) return out + css.slice(i)
    const at = Math.min(...starts)
    out += css.slice(i, at)
    let depth = 0
    let quote = ''
    let j = css.indexOf('{', at)
    for (; j < css.length; j++) {
      const c = css[j]
      if (quote) {
        if (c === '\\') j++
        else if (c === quote) quote = ''
      } else if (c === '"' || c === "'") quote = c
      else if (c === '{') depth++
      else if (c === '}' && --depth === 0) break
    }
    i = j + 1
  }
}

const literalCache = new Map()

/**
 * A file's string and template literals, one per line: all that can hold class names. Scanning
 * the whole text would also make utilities of identifiers, keywords and comments (`container`,
 * `static`, `visible`…), which no element uses and every sheet would carry.
 */
function literals(file) {
  let text = literalCache.get(file)
  if (text === undefined) {
    const kind = /x$/.test(file) ? ts.ScriptKind.TSX : /\.js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, kind)
    const found = []
    const visit = (node) => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) found.push(JSON.stringify(node.text))
      ts.forEachChild(node, visit)
    }
    visit(source)
    text = found.join('\n')
    literalCache.set(file, text)
  }
  return text
}

/**
 * `css` with every length in `rem` turned into `px` (16px a rem) in declaration values, at-rule
 * preludes (media queries) left alone: a partner page's `html { font-size: 62.5% }` must not
 * shrink the widgets, and Tailwind sizes its spacing, text and radii in rem. Selectors keep their
 * escaped arbitrary values (`.h-\\[calc\\(100\\%-3\\.5rem\\)\\]`): a value runs from a `:` to the
 * next `;` or `}` with no `{` between, which a selector never does (minified input).
 */
function remToPx(css) {
  const px = (n) => `${Number.parseFloat((Number.parseFloat(n) * 16).toFixed(4))}px`
  return css.replace(/:[^;{}]*(?=[;}])/g, (value) => value.replace(/(^|[^\w.\\-])(-?\d*\.?\d+)rem\b/g, (_, lead, n) => `${lead}${px(n)}`))
}

async function sheet(files, { base = true, utilities = true } = {}) {
  const candidates = new Scanner({ sources: [] }).scanFiles(files.map((file) => ({ content: literals(file), extension: extname(file).slice(1) })))
  const compiler = await compile(source, { base: stylesDir, onDependency: () => {} })
  let { code } = optimize(compiler.build(utilities ? candidates : []), { minify: true })
  code = remToPx(code)
  // The licence notice ships once, in the base sheet every page gets.
  if (!base) code = dropLayers(code, ['base', 'components', 'lx-after']).replace(/^\/\*![^*]*\*\/\s*/, '')
  // Split sheets must agree on the layer order, or a layer first met in the element's sheet
  // (`properties`, Tailwind's defaults for --tw-* variables) would rank above `utilities`
  // declared by the base sheet and reset every translate, shadow and ring.
  if (!base || !utilities) code = `${LAYER_ORDER}${code}`
  code = fixShadowProperties(code)
  return base ? code : dropBaseDeclarations(code, await baseDeclarations())
}

/** The base sheet's theme variables and --tw-* defaults, as `layer|selector|declaration`. */
let baseKnown
async function baseDeclarations() {
  baseKnown ??= new Set(declarations(await sheet([], { utilities: false })).map((d) => d.key))
  return baseKnown
}

/** The declarations of the style rules directly in the `theme` and `properties` layers of `css`. */
function declarations(css) {
  return rules(css)
    .filter((layer) => SHARED_LAYERS.includes(layerName(layer)) && layer.body !== null)
    .flatMap((layer) =>
      rules(layer.body)
        .filter((r) => r.body !== null && !r.prelude.startsWith('@'))
        .flatMap((r) => r.body.split(';').map((d) => ({ key: `${layerName(layer)}|${r.prelude}|${d}` })))
    )
}
const SHARED_LAYERS = ['@layer theme', '@layer properties']
/** A top-level rule's prelude without a comment before it (the base sheet's licence notice). */
const layerName = (rule) => rule.prelude.replace(/\/\*[\s\S]*?\*\//g, '').trim()

/**
 * An element's sheet without the theme variables and --tw-* defaults the base sheet already sets
 * on the same selectors with the same values: every shadow root adopts the base sheet first, so
 * they were repeated in every element's chunk (≈ 0.3 KB gzip each).
 */
function dropBaseDeclarations(css, known) {
  return rules(css)
    .map((layer) => {
      if (!SHARED_LAYERS.includes(layerName(layer)) || layer.body === null) return layer.text
      const body = rules(layer.body)
        .map((r) => {
          if (r.body === null || r.prelude.startsWith('@')) return r.text
          const kept = r.body.split(';').filter((d) => !known.has(`${layer.prelude}|${r.prelude}|${d}`))
          return kept.length ? `${r.prelude}{${kept.join(';')}}` : ''
        })
        .join('')
      return body ? `${layer.prelude}{${body}}` : ''
    })
    .join('')
}

/** The rules of a block's content (minified CSS): `{ text, prelude, body }`, body null for a statement. */
function rules(css) {
  const out = []
  let start = 0
  let depth = 0
  let open = -1
  let quote = ''
  for (let i = 0; i < css.length; i++) {
    const c = css[i]
    if (c === '\\') i++
    else if (quote) quote = c === quote ? '' : quote
    else if (c === '"' || c === "'") quote = c
    else if (c === '{' && depth++ === 0) open = i
    else if ((c === '}' && --depth === 0) || (c === ';' && depth === 0)) {
      const text = css.slice(start, i + 1)
      out.push(c === ';' ? { text, prelude: text, body: null } : { text, prelude: css.slice(start, open), body: css.slice(open + 1, i) })
      start = i + 1
    }
  }
  return out
}

/** A selector list's selectors (commas inside brackets and parentheses do not separate). */
function selectors(prelude) {
  const out = []
  let depth = 0
  let start = 0
  for (let i = 0; i < prelude.length; i++) {
    const c = prelude[i]
    if (c === '\\') i++
    else if (c === '(' || c === '[') depth++
    else if (c === ')' || c === ']') depth--
    else if (c === ',' && depth === 0) {
      out.push(prelude.slice(start, i))
      start = i + 1
    }
  }
  return [...out, prelude.slice(start)]
}

/** Every selector of the style rules in the utilities layer of `css`, at any depth. */
function utilitySelectors(css) {
  const found = new Set()
  const walk = (body) => {
    for (const r of rules(body)) {
      if (r.body === null) continue
      if (r.prelude.startsWith('@')) walk(r.body)
      else for (const s of selectors(r.prelude)) found.add(s)
    }
  }
  const layer = rules(css).find((r) => r.prelude === '@layer utilities')
  if (layer) walk(layer.body)
  return found
}

/**
 * Splits an element's full sheet in two: `css`, the full sheet less the utility rules no selector
 * of `main` (the sheet of the files that load up front) needs, and `rest`, those rules as
 * [offset in css, text] insertions, so that inserting them gives back exactly the full sheet.
 * Every rule stays where the full sheet has it: no utility of a lazily loaded part can end up
 * after (and override) one it should yield to, as it could in a sheet of its own added later.
 */
function splitSheet(full, main) {
  const wanted = utilitySelectors(main)
  const needed = (r) =>
    r.prelude.startsWith('@')
      ? /^@(keyframes|property|font-face)/.test(r.prelude) || rules(r.body).some(needed)
      : selectors(r.prelude).some((s) => wanted.has(s))
  let css = ''
  const rest = []
  const walk = (body) => {
    for (const r of rules(body)) {
      if (r.body !== null && !needed(r)) {
        const last = rest.at(-1)
        if (last && last[0] === css.length) last[1] += r.text
        else rest.push([css.length, r.text])
      } else if (r.body !== null && r.prelude.startsWith('@') && !/^@(keyframes|property|font-face)/.test(r.prelude)) {
        css += `${r.prelude}{`
        walk(r.body)
        css += '}'
      } else css += r.text
    }
  }
  for (const r of rules(full)) {
    if (r.prelude !== '@layer utilities') css += r.text
    else {
      css += '@layer utilities{'
      walk(r.body)
      css += '}'
    }
  }
  let joined = ''
  let at = 0
  for (const [offset, text] of rest) {
    joined += css.slice(at, offset) + text
    at = offset
  }
  if (joined + css.slice(at) !== full) throw new Error('build-css: a split sheet does not give back the full sheet')
  const kept = utilitySelectors(css)
  const missing = [...wanted].filter((s) => !kept.has(s))
  if (missing.length) throw new Error(`build-css: the split sheet lost ${missing.join(' ')}`)
  return { css, rest }
}

/**
 * What an element's sheet does not cover: the code of the other elements' folders (their entry
 * and everything beside it but the manifest and the screen, which the host renders). An element
 * that composes others (the host composes login, profile and every tool's element) leaves their
 * code to them: each brings its own sheet into its own shadow root.
 */
const othersOf = (e) =>
  elements
    .filter((o) => dirname(o.entry) !== dirname(e.entry))
    .flatMap((o) => {
      const folder = dirname(o.entry)
      const beside = readdirSync(join(root, folder)).filter((f) => isSource(f) && f !== 'screen.tsx' && f !== 'tool.ts')
      return [o.entry, ...beside.map((f) => `${folder}/${f}`)]
    })

const sheets = [
  { name: 'base', files: async () => [], options: { utilities: false } },
  ...elements.map((e) => ({
    name: e.file,
    files: () => graph(e.entry, othersOf(e)),
    options: { base: false },
    deferred: deferred[e.file] && (() => graph(e.entry, [...deferred[e.file], ...othersOf(e)]))
  })),
  { name: 'full', files: async () => walk(join(root, 'src')) }
]
rmSync(outDir, { recursive: true, force: true })
mkdirSync(outDir, { recursive: true })
const sizes = []
const header = '// Generated by scripts/build-css.mjs from src/styles/lingxi.css. Do not edit.'
for (const s of sheets) {
  const files = await s.files()
  let css = await sheet(files, s.options)
  if (s.deferred) {
    const main = await s.deferred()
    const split = splitSheet(css, await sheet(main, s.options))
    css = split.css
    const rest = split.rest.reduce((n, [, text]) => n + text.length, 0)
    writeFileSync(
      join(outDir, `${s.name}.rest.ts`),
      `${header}\n// The rules of ${s.name}'s full sheet that only its deferred parts use, as [offset in its css, text].\nexport const rest: [number, string][] = ${JSON.stringify(split.rest)}\n`
    )
    sizes.push(`${s.name} ${css.length} (+${rest} deferred, ${main.length} of ${files.length} files up front)`)
  } else sizes.push(`${s.name} ${css.length}`)
  writeFileSync(
    join(outDir, `${s.name}.ts`),
    `${header}\n// ${files.length} files of ${relative(root, 'src') || 'src'}.\nexport const css = ${JSON.stringify(css)}\n`
  )
}
console.log(`css: ${sizes.join(', ')} bytes`)
