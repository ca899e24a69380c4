import { vi } from 'vitest'

// vi.waitFor gives up after 1 s by default. CI shares two cores with builds and other suites, and
// a lazy chunk, a debounce and a loopback fetch together have taken longer than that there (stop 25
// failed on such a wait): every wait here gets 5 s unless it names its own timeout. A test that
// expects a wait to fail passes its own.
const waitFor = vi.waitFor
vi.waitFor = ((callback: Parameters<typeof waitFor>[0], options?: Parameters<typeof waitFor>[1]) =>
  waitFor(callback, typeof options === 'number' ? options : { timeout: 5_000, ...options })) as typeof waitFor
