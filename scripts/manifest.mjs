// Writes custom-elements.json (the Custom Elements Manifest schema) from the elements list and
// each component's doc block, so editors and IDEs know Lingxi's tags.
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { elements } from './elements.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

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
  const summary = block.split('@summary')[1]?.split(/\n\s*\*?\s*@/)[0]?.replace(/\n\s*\*\s?/g, ' ').trim() ?? ''
  const attrs = /defineElement\([^,]+,\s*\w+,\s*\{([^}]*)\}/.exec(readFileSync(join(root, entry), 'utf8'))?.[1] ?? ''
  const attributes = [...attrs.matchAll(/(\w+):\s*'(\w+)'/g)].map(([, name, type]) => ({
    name: name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
    fieldName: name,
    type: { text: type === 'json' ? 'object' : type },
  }))
  return { summary, events: tagged('event'), cssParts: tagged('csspart'), cssProperties: tagged('cssproperty'), attributes }
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
      exports: [{ kind: 'custom-element-definition', name: e.tag, declaration: { name: e.tag, module: `dist/cdn/${e.file}.js` } }],
    }
  }),
}
writeFileSync(join(root, 'custom-elements.json'), JSON.stringify(manifest, null, 2) + '\n')
