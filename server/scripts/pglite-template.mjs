// Writes dist/pglite-template-<pglite version>.tar.gz: an empty initialised cluster, so the
// server's first start on a new DATA_DIR skips initdb (see src/db/pglite-template.ts).
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'

const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite')
const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8'))
const db = await PGlite.create()
const dump = await db.dumpDataDir('gzip')
await db.close()
const file = new URL(`../dist/pglite-template-${version}.tar.gz`, import.meta.url)
writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
console.log(`wrote dist/pglite-template-${version}.tar.gz (${Math.round(dump.size / 1024)} KB)`)
