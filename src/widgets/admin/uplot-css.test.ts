import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { UPLOT_CSS } from './uplot-css'

describe("the statistics tab's copy of uPlot's stylesheet", () => {
  it('is the installed package’s, byte for byte', () => {
    const file = createRequire(import.meta.url).resolve('uplot/dist/uPlot.min.css')
    expect(UPLOT_CSS).toBe(readFileSync(file, 'utf8').trim())
  })
})
