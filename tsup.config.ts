import { defineConfig } from 'tsup'
import npmVendors from './scripts/npm-vendors.mjs'
import { menuDefine } from './scripts/tools.mjs'

// npm build: ESM + .d.ts for React apps. React, react-dom and the runtime dependencies stay
// external (never aliased to preact here).
export default defineConfig({
  entry: { index: 'src/npm/index.ts', core: 'src/core/index.ts' },
  outDir: 'dist/npm',
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  treeshake: true,
  target: 'es2020',
  platform: 'browser',
  external: ['react', 'react-dom', 'react/jsx-runtime', 'nanostores', '@nanostores/react'],
  // peer dependencies are external by default: these two reach the npm-vendors plugin instead
  noExternal: ['katex', 'mermaid'],
  // KaTeX and mermaid load at run time (scripts/npm-vendors.mjs)
  esbuildPlugins: [npmVendors()],
  esbuildOptions(options) {
    options.jsx = 'automatic'
    // What the tools' manifests tell the shared menu (src/core/permissions.ts).
    options.define = { ...options.define, __LINGXI_MENU__: menuDefine }
  }
})
