/**
 * Writes a raw `document.cookie` line, as the page's other cookie writers do (the WeChat login
 * page, the server's Set-Cookie, an expiry): the code under test reads what they leave.
 */
export function writeCookie(line: string): void {
  // biome-ignore lint/suspicious/noDocumentCookie: the test plays another writer of the page's cookies
  document.cookie = line
}
