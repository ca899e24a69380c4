// The part of madge's API (no types of its own) that architecture.test.ts uses.
declare module 'madge' {
  interface MadgeResult {
    /** Each file (relative to the base directory) → the files it imports. */
    obj(): Record<string, string[]>
    /** Every import cycle, as the files around it. */
    circular(): string[][]
    /** Imports that could not be resolved. */
    warnings(): { skipped: string[] }
  }
  interface MadgeConfig {
    fileExtensions?: string[]
    tsConfig?: string
    baseDir?: string
    excludeRegExp?: RegExp[]
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>
}
