import { HotSourceError } from './types.js'

export const MAX_BODY_BYTES = 4 * 1024 * 1024

/**
 * GETs a URL and returns its body as text; a non-2xx status, a timeout, a refused connection or
 * a body over `maxBytes` become a HotSourceError naming the source.
 */
export async function fetchText(
  url: string,
  options: { name: string; signal: AbortSignal; timeoutMs: number; accept: string; maxBytes?: number }
): Promise<{ status: number; text: string }> {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)])
  let res: Response
  try {
    res = await fetch(url, { signal, headers: { Accept: options.accept, 'User-Agent': 'Lingxi/1.0 (+hot news)' }, redirect: 'follow' })
  } catch (error) {
    if (signal.aborted && !options.signal.aborted) throw new HotSourceError(`「${options.name}」响应超时`)
    if (options.signal.aborted) throw new HotSourceError(`「${options.name}」的获取已取消`)
    throw new HotSourceError(`「${options.name}」连接失败：${(error as Error).message}`)
  }
  const declared = Number(res.headers.get('content-length') ?? '0')
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {})
    throw new HotSourceError(`「${options.name}」返回的内容过大`)
  }
  const reader = res.body?.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      if (!reader) break
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > maxBytes) {
        await reader.cancel().catch(() => {})
        throw new HotSourceError(`「${options.name}」返回的内容过大`)
      }
      chunks.push(value)
    }
  } catch (error) {
    if (error instanceof HotSourceError) throw error
    if (signal.aborted && !options.signal.aborted) throw new HotSourceError(`「${options.name}」响应超时`)
    throw new HotSourceError(`「${options.name}」读取失败：${(error as Error).message}`)
  }
  const text = new TextDecoder('utf-8').decode(Buffer.concat(chunks))
  return { status: res.status, text }
}
