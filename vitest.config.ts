import { defineConfig } from 'vitest/config'
import { menuDefine } from './scripts/tools.mjs'

// Unit and component tests of the SDK (src/**, tests/unit/**). Widgets run twice: under real React
// (as npm users get them) and under preact/compat (as the CDN build ships them). The server has
// its own config (server/vitest.config.ts); the browser suite is Playwright (tests/e2e).
const shared = {
  environment: 'happy-dom',
  globals: true,
  testTimeout: 20_000,
  // Console output goes straight to the worker's stdout instead of over the worker RPC: happy-dom logs
  // the fetches it aborts when a file's window closes, and a log still queued on a closing RPC failed
  // a whole CI run with EnvironmentTeardownError ("Closing rpc while onUserConsoleLog was pending").
  disableConsoleIntercept: true,
  // Every shadow root gets the full Lingxi sheet, as in the npm package; waits allow a loaded machine.
  setupFiles: ['tests/unit/setup-styles.ts', 'tests/unit/setup-wait.ts']
}

export default defineConfig({
  esbuild: { jsx: 'automatic' },
  // What the tools' manifests tell the shared menu (src/core/permissions.ts), as the builds compile it in.
  define: { __LINGXI_MENU__: menuDefine },
  test: {
    projects: [
      {
        extends: true,
        test: { ...shared, name: 'react', include: ['src/**/*.test.{ts,tsx}', 'tests/unit/**/*.test.{ts,tsx}'] },
        // examples/ import the npm package by name (tests/unit/next-app.test.tsx): its source here
        resolve: { alias: [{ find: /^lingxi$/, replacement: new URL('./src/npm/index.ts', import.meta.url).pathname }] }
      },
      {
        extends: true,
        test: {
          ...shared,
          name: 'preact',
          include: ['src/widgets/**/*.test.tsx', 'src/host/**/*.test.tsx', 'src/ui/**/*.test.tsx'],
          // let the aliases reach the libraries that import react themselves
          server: { deps: { inline: ['@nanostores/react'] } }
        },
        resolve: {
          alias: [
            { find: /^react\/jsx-(dev-)?runtime$/, replacement: 'preact/jsx-runtime' },
            { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
            { find: /^react-dom$/, replacement: 'preact/compat' },
            { find: /^react$/, replacement: 'preact/compat' }
          ]
        }
      }
    ]
  }
})
