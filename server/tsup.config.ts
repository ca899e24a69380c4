import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { main: 'src/main.ts', admin: 'src/admin.ts', server: 'src/server.ts', app: 'src/app.ts' },
  format: 'esm',
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  // Dependencies stay in node_modules (PGlite ships WASM files beside its code).
  skipNodeModulesBundle: true,
  // …except the workspace's shared source, which is not published: it is bundled in.
  noExternal: [/^@lingxi\/shared(\/|$)/],
  splitting: true,
  silent: true
})
