// CDN build: the loader (a classic script, IIFE) and the widget/host elements (ES modules sharing
// chunks), with React aliased to preact/compat. The npm build (tsup.config.ts) keeps real React.
import alias from '@rollup/plugin-alias'
import resolve from '@rollup/plugin-node-resolve'
import replace from '@rollup/plugin-replace'
import esbuild from 'rollup-plugin-esbuild'
import { entries } from './scripts/elements.mjs'

const production = process.env.NODE_ENV !== 'development'

const plugins = (extra = {}) => [
  alias({
    entries: [
      { find: /^react\/jsx-(dev-)?runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react$/, replacement: 'preact/compat' },
    ],
  }),
  resolve({ browser: true, dedupe: ['preact'], extensions: ['.mjs', '.js', '.ts', '.tsx', '.json'] }),
  replace({
    preventAssignment: true,
    values: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development'), ...extra },
  }),
  esbuild({
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'react',
    minify: production,
    legalComments: 'none',
    loaders: { '.json': 'json' },
  }),
]

export default [
  {
    input: 'src/loader/loader.ts',
    output: { file: 'dist/cdn/loader.js', format: 'iife', sourcemap: false },
    plugins: plugins({ __LINGXI_ELEMENTS__: JSON.stringify(entries.map((e) => e.file)) }),
  },
  {
    input: Object.fromEntries(entries.map((e) => [e.file, e.entry])),
    output: {
      dir: 'dist/cdn',
      format: 'es',
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
      sourcemap: true,
    },
    plugins: plugins(),
    // src/core is side-effect free (stores are created on first use through shared()), so an
    // element only carries the core modules it really uses — login must not pay for chat.
    treeshake: { moduleSideEffects: (id) => !/[\\/]src[\\/]core[\\/]|[\\/]eventsource-parser[\\/]/.test(id) },
    onwarn(warning, warn) {
      if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return
      warn(warning)
    },
  },
]
