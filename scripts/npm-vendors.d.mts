// Types of scripts/npm-vendors.mjs, for tsup.config.ts and the test that builds with it.
import type { Plugin } from 'esbuild'

export default function npmVendors(): Plugin
