// Types of scripts/katex-once.mjs, for the test that builds with it.
import type { Plugin } from 'rollup'

export default function katexOnce(): Plugin
