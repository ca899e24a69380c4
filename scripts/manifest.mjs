// Writes custom-elements.json (the Custom Elements Manifest schema) from the elements list and
// each component's doc block, so editors and IDEs know Lingxi's tags: attributes (with `@attr`
// descriptions), methods (`@method`, registered through defineElement's `methods`), events, parts
// and CSS properties. A copy goes to dist/cdn/, which ships in the npm package and on the CDN.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { elements } from './elements.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The colour theme every element takes from its `theme` attribute (the shared base stylesheet). */
const THEME = {
  name: 'theme',
  type: { text: "'dark' | 'light' | 'auto'" },
  description: '配色：dark（默认）、light，或 auto 跟随系统（prefers-color-scheme）。不设时继承页面的配色变量，否则为深色。'
}

/** Every element's read-only `session` (src/ui/define.ts) and the page-wide events each one also hears (src/core/emit.ts `announce`). */
const SESSION = {
  kind: 'field',
  name: 'session',
  readonly: true,
  type: { text: '{ accountId: string; phone: string; nickName: string; avatarUrl: string } | null' },
  description: '当前登录的用户（手机号按服务端对本页面的规则显示，合作方页面为 138****5678），未登录为 null。刷新后恢复的登录也能读到。'
}
const PAGE_EVENTS = [
  { name: 'lingxi-ready', description: 'The loader ran the queued calls (also on document and window).' },
  {
    name: 'lingxi-login',
    description: 'A login completed: {accountId, phone} (also on document and window; not for a session restored after a reload: read `session`).'
  },
  { name: 'lingxi-logout', description: 'The page logged out, here or in another tab (also on document and window).' },
  { name: 'lingxi-error', description: 'A failure was shown to the person: {code, message} (also on document and window).' }
].map((e) => ({ ...e, type: { text: 'CustomEvent' } }))

function docOf(entry) {
  const component = readFileSync(join(root, entry.replace('.element.ts', '.tsx')), 'utf8')
  const block = /\/\*\*([\s\S]*?)\*\/\s*export function/.exec(component)?.[1] ?? ''
  const lines = block.split('\n').map((l) => l.replace(/^\s*\* ?/, ''))
  const tagged = (tag) =>
    lines
      .filter((l) => l.startsWith(`@${tag} `))
      .map((l) => /^@\w+\s+(\S+)\s*-\s*(.*)$/.exec(l))
      .filter(Boolean)
      .map(([, name, description]) => ({ name, description }))
  const summary =
    block
      .split('@summary')[1]
      ?.split(/\n\s*\*?\s*@/)[0]
      ?.replace(/\n\s*\*\s?/g, ' ')
      .trim() ?? ''
  const registration = readFileSync(join(root, entry), 'utf8')
  const attrs = /defineElement\(\s*[^,]+,\s*\w+,\s*\{([^}]*)\}/.exec(registration)?.[1] ?? ''
  const described = new Map(tagged('attr').map((a) => [a.name, a.description]))
  const own = [...attrs.matchAll(/(\w+):\s*'(\w+)'/g)].map(([, name, type]) => {
    const attr = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
    return {
      name: attr,
      fieldName: name,
      type: { text: type === 'json' ? 'object' : type },
      ...(described.has(attr) ? { description: described.get(attr) } : {})
    }
  })
  const fields = own.map((a) => ({
    kind: 'field',
    name: a.fieldName,
    attribute: a.name,
    type: a.type,
    ...(a.description ? { description: a.description } : {})
  }))
  // `theme` is every element's, read by the shared stylesheet (:host([theme=…]), docs/decisions/0018-themes.md): an attribute, no property
  const attributes = [...own, THEME]
  const methods = tagged('method').map((m) => ({ kind: 'method', name: m.name, description: m.description }))
  for (const m of methods) if (!new RegExp(`\\b${m.name}\\(\\)\\s*\\{`).test(registration)) throw new Error(`${entry}: @method ${m.name} is not registered`)
  const events = [...tagged('event').map((e) => ({ ...e, type: { text: 'CustomEvent' } })), ...PAGE_EVENTS]
  return { summary, events, cssParts: tagged('csspart'), cssProperties: tagged('cssproperty'), attributes, members: [...fields, SESSION, ...methods] }
}

const manifest = {
  schemaVersion: '2.0.0',
  readme: 'README.md',
  modules: elements.map((e) => {
    const doc = docOf(e.entry)
    return {
      kind: 'javascript-module',
      path: `dist/cdn/${e.file}.js`,
      declarations: [{ kind: 'class', customElement: true, name: e.tag, tagName: e.tag, description: doc.summary, ...doc }],
      exports: [{ kind: 'custom-element-definition', name: e.tag, declaration: { name: e.tag, module: `dist/cdn/${e.file}.js` } }]
    }
  })
}
const text = JSON.stringify(manifest, null, 2) + '\n'
writeFileSync(join(root, 'custom-elements.json'), text)
if (existsSync(join(root, 'dist/cdn'))) writeFileSync(join(root, 'dist/cdn/custom-elements.json'), text)
