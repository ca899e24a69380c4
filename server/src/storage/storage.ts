/**
 * Where files live: local disk under DATA_DIR by default, an S3-compatible bucket when configured.
 * Keys are relative paths like `images/2026/11/<uuid>.png`; never built from client input unchecked
 * (see `isValidKey`). A key's extension decides the content type it is served with.
 */
export interface Storage {
  kind: 'local' | 's3'
  put(key: string, body: Uint8Array, contentType: string): Promise<void>
  get(key: string): Promise<{ body: Uint8Array; contentType: string } | null>
  delete(key: string): Promise<void>
  /** The absolute URL a browser loads the file from (local: `${PUBLIC_URL}/files/${key}`). */
  publicUrl(key: string): string
  /** The key when `url` is one of this storage's URLs, else null (the "own storage only" check). */
  keyOf(url: string): string | null
  /**
   * S3 only: a presigned PUT for a browser upload, bound to the content type and exact size.
   * Local storage signs its own upload URLs (see storage/uploads.ts).
   */
  presignPut?(key: string, contentType: string, size: number, expiresInSeconds: number): Promise<{ url: string; headers: Record<string, string> }>
}
