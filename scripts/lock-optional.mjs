// Keeps package-lock.json valid for `npm ci` when the registry mirror lacks some platform builds.
//
// Packages such as rollup, esbuild and tailwind's oxide list one optional dependency per platform.
// When the mirror has no tarball for a platform we never run on (darwin, win32, …), `npm install`
// skips it silently and leaves it out of the lock, and `npm ci` then refuses the lock as "out of
// sync". This adds each missing optional dependency back as an optional entry restricted to its
// platform, so npm ci skips it on Linux exactly as it would skip any other foreign binary.
// Run after `npm install`: `node scripts/lock-optional.mjs`.
import { readFileSync, writeFileSync } from 'node:fs'

const file = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(file, 'utf8'))
const packages = lock.packages

function platformOf(name) {
  const os =
    ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'].find((o) =>
      new RegExp(`[-/]${o}[-.]|[-/]${o}$`).test(name)
    ) ?? (/[-/]win[-.]|windows/.test(name) ? 'win32' : /wasm32|wasi/.test(name) ? undefined : undefined)
  const cpu =
    ['x64', 'arm64', 'ia32', 'arm', 'ppc64', 'riscv64', 's390x', 'loong64', 'mips64el'].find((c) => new RegExp(`[-/]${c}(?:[-.]|$)`).test(name)) ??
    (/wasm32/.test(name) ? 'wasm32' : undefined)
  return { os, cpu }
}

let added = 0
for (const [path, meta] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(meta.optionalDependencies ?? {})) {
    // resolution as npm does it: nested first, then each ancestor node_modules
    const segments = path ? path.split('/node_modules/') : ['']
    let found = false
    for (let i = segments.length; i >= 0 && !found; i--) {
      const base = segments.slice(0, i).join('/node_modules/')
      found = `${base ? base + '/' : ''}node_modules/${dep}` in packages
    }
    if (found) continue
    const { os, cpu } = platformOf(dep)
    const entry = { version: String(range).replace(/^[\^~=]/, ''), optional: true }
    if (os) entry.os = [os]
    if (cpu) entry.cpu = [cpu]
    if (!os && !cpu) entry.cpu = ['wasm32'] // a WASM fallback build: never chosen on a native platform
    packages[`node_modules/${dep}`] = entry
    added++
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))))
lock.packages = sorted
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n')
console.log(`lock-optional: added ${added} platform entries the registry mirror does not carry`)
