// Regenerates this branch's newest migration from the whole schema: removes every migration after
// the last one on record in KEEP (and its snapshot and journal entry), then runs drizzle-kit
// generate once. While several people change the schema in one working tree, this keeps a single
// pending migration that always matches schema*.ts, instead of a pile of partial ones.
//   node scripts/db-regen.mjs <name>      e.g. node scripts/db-regen.mjs depth
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'

const KEEP = 8 // 0000…0007 are released; never regenerated
const name = process.argv[2] ?? 'depth'
const dir = new URL('../drizzle/', import.meta.url)
const journalFile = new URL('meta/_journal.json', dir)
const journal = JSON.parse(readFileSync(journalFile, 'utf8'))
for (const entry of journal.entries.slice(KEEP)) {
  rmSync(new URL(`${entry.tag}.sql`, dir), { force: true })
  rmSync(new URL(`meta/${String(entry.idx).padStart(4, '0')}_snapshot.json`, dir), { force: true })
}
journal.entries = journal.entries.slice(0, KEEP)
writeFileSync(journalFile, `${JSON.stringify(journal, null, 2)}\n`)
for (const file of readdirSync(dir)) {
  if (/^\d{4}_/.test(file) && Number(file.slice(0, 4)) >= KEEP) rmSync(new URL(file, dir))
}
const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit', cwd: new URL('..', import.meta.url) })
run('npx', ['drizzle-kit', 'generate', '--name', name])
run('node', ['scripts/strip-public-schema.mjs'])
