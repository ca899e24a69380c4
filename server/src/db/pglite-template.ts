import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { paths } from '../paths.js'

/** The installed PGlite's version; a template only fits the version that made it. */
export function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite')
  const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }
  return pkg.version
}

export function pgliteTemplateFile(version = pgliteVersion()): string {
  return join(paths.packageRoot, 'dist', `pglite-template-${version}.tar.gz`)
}

/**
 * An empty, freshly initialised cluster made at build time (scripts/pglite-template.mjs).
 * Starting a new data directory from it skips initdb: about 1.3 s and 390 MB RSS instead of
 * about 4 s and 800 MB on the first start. Absent (e.g. running from source), initdb runs.
 */
export function readPgliteTemplate(): Blob | undefined {
  const file = pgliteTemplateFile()
  return existsSync(file) ? new Blob([readFileSync(file)]) : undefined
}
