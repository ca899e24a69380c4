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

/**
 * The CSS custom properties every element reads (src/styles/lingxi.css @theme): a partner's
 * overrides of the theme's values, set on the element or any ancestor (`lingxi-chat { --lingxi-primary: #1677ff }`).
 */
const THEME_PROPERTIES = [
  ['--lingxi-primary', 'Accent colour: buttons, links, focus rings (dark #fbab00, light #864700).'],
  ['--lingxi-primary-ink', 'Text on the accent colour (dark #17181c, light #fff).'],
  [
    '--lingxi-bg',
    'Background of the element, painted over its whole box (dark #17181c, light #f4f5f7); `transparent` shows the page behind an inline element.'
  ],
  ['--lingxi-surface', 'Cards, panels and fields (dark #202228, light #fff).'],
  ['--lingxi-raised', 'Hovered and raised surfaces (dark #2a2c33, light #eef0f3).'],
  ['--lingxi-border', 'Borders and dividers (dark #33363f, light #d9dce2).'],
  ['--lingxi-text', 'Text colour (dark #e9e9ec, light #1c1d21).'],
  ['--lingxi-muted', 'Secondary text (dark #9a9ca6, light #60636d).'],
  ['--lingxi-danger', 'Errors and destructive actions (dark #f5595b, light #c4261b).'],
  ['--lingxi-success', 'Success states (dark #3fc487, light #096538).'],
  ['--lingxi-font', 'Font family (default the system UI font with PingFang SC / Microsoft YaHei).'],
  ['--lingxi-radius', 'Corner radius of cards (default 12px).']
].map(([name, description]) => ({ name, description }))

/** Every element's read-only `session` (src/ui/define.ts) and the page-wide events each one also hears (src/core/emit.ts `announce`). */
const SESSION = {
  kind: 'field',
  name: 'session',
  readonly: true,
  type: { text: '{ accountId: string; phone: string; nickName: string; avatarUrl: string } | null' },
  description: '当前登录的用户（手机号按服务端对本页面的规则显示，合作方页面为 138****5678），未登录为 null。刷新后恢复的登录也能读到。'
}
/** Every element's `identify(assertion)` (src/ui/define.ts, src/core/identify.ts): partner single sign-on. */
const IDENTIFY = {
  kind: 'method',
  name: 'identify',
  parameters: [{ name: 'assertion', type: { text: 'string' }, description: 'The JWT (HS256) the partner’s backend signed (README, 合作方单点登录).' }],
  return: { type: { text: 'Promise<{ accountId: string; phone: string; nickName: string; avatarUrl: string } | null>' } },
  description: '合作方单点登录：用合作方后端签发的身份断言登录本页面的所有灵犀组件（无需短信验证码），成功后触发 lingxi-login；断言无效时以服务端的原因拒绝。'
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
  // `@attr x - Property only: …` documents a property set from script (an object): no attribute of the tag.
  const propertyOnly = (a) => a.description?.startsWith('Property only') ?? false
  const fields = own.map((a) => ({
    kind: 'field',
    name: a.fieldName,
    ...(propertyOnly(a) ? {} : { attribute: a.name }),
    type: a.type,
    ...(a.description ? { description: a.description } : {})
  }))
  // `theme` is every element's, read by the shared stylesheet (:host([theme=…]), docs/decisions/0018-themes.md): an attribute, no property
  const attributes = [...own.filter((a) => !propertyOnly(a)), THEME]
  const methods = tagged('method').map((m) => ({ kind: 'method', name: m.name, description: m.description }))
  for (const m of methods)
    if (!new RegExp(`\\b${m.name}\\([^)]*\\)\\s*\\{`).test(registration)) throw new Error(`${entry}: @method ${m.name} is not registered`)
  const events = [...tagged('event').map((e) => ({ ...e, type: { text: 'CustomEvent' } })), ...PAGE_EVENTS]
  // An element's own @cssproperty lines come first and win over the shared description.
  const own_ = tagged('cssproperty')
  const cssProperties = [...own_, ...THEME_PROPERTIES.filter((p) => !own_.some((o) => o.name === p.name))]
  return { summary, events, cssParts: tagged('csspart'), cssProperties, attributes, members: [...fields, SESSION, IDENTIFY, ...methods] }
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
