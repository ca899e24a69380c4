import { fileURLToPath } from 'node:url'

// This module sits one level below the package root both as source (src/paths.ts) and once
// bundled (dist/*.js), so the same relative URL finds the package's own folders in both.
const packageRoot = new URL('../', import.meta.url)

export const paths = {
  packageRoot: fileURLToPath(packageRoot).replace(/\/$/, ''),
  /** Default config files (system.json, chatConfig.json, MJHelper.json, permission-tree.json). */
  defaultConfigDir: fileURLToPath(new URL('config', packageRoot)),
  migrations: fileURLToPath(new URL('drizzle', packageRoot)),
  /** The public role repository, seeded into the database at start. */
  rolesData: fileURLToPath(new URL('data/roles.json', packageRoot)),
  /** The frontend build of the repository this package lives in. */
  defaultStaticRoot: fileURLToPath(new URL('../dist', packageRoot))
}
