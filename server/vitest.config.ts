import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // The shared workspace package's tests run here too: the server is its consumer in CI's `npm test`.
    include: ['test/**/*.test.ts', '../packages/shared/src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // PGlite's first start is seconds of WASM work; hooks that open a database need headroom.
    hookTimeout: 60_000,
    testTimeout: 20_000
  }
})
