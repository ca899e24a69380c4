import type { Socket } from 'node:net'
import { type ApiCode, envelope } from '../errors.js'

// Node's own answers to these, with the envelope; anything else is a 400.
const REFUSALS: Record<string, [status: number, reason: string, code: ApiCode, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 40000001, '请求头过大'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 40000003, '请求体分块扩展过大'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 40000001, '请求超时，请重试']
}

/**
 * Requests Node's HTTP parser refuses before the app sees them (a raw control character or space in
 * the path, a malformed header, headers over 16 KB) get the envelope like every other refusal; then
 * the connection closes, as nothing after the bad bytes can be parsed. Server `clientError` listener.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset, or a response already under way on this connection: nothing more can be said on it.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy()
    return
  }
  const [status, reason, code, message] = REFUSALS[error.code ?? ''] ?? [400, 'Bad Request', 40000001, '请求格式不正确（请求行或请求头无效）']
  const body = JSON.stringify(envelope(code, message, null))
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}
