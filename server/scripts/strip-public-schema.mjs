// drizzle-kit qualifies foreign-key targets with "public". Stripping it keeps the migrations
// schema-neutral, so they apply to whatever schema the connection's search_path names
// (the PostgreSQL test run gives each test file its own schema; operators may do the same).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'

const dir = new URL('../drizzle/', import.meta.url)
for (const name of readdirSync(dir)) {
  if (!name.endsWith('.sql')) continue
  const file = new URL(name, dir)
  const sql = readFileSync(file, 'utf8')
  const neutral = sql.replaceAll('"public".', '')
  if (neutral !== sql) {
    writeFileSync(file, neutral)
    console.log(`made ${name} schema-neutral`)
  }
}
