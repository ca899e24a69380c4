import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // PGlite's first start is seconds of WASM work; hooks that open a database need headroom.
    hookTimeout: 60_000,
    testTimeout: 20_000
  }
})
