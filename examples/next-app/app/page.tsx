import { Assistant } from './assistant'

// A server component (no 'use client'): it renders on the server and passes only serialisable
// props. LINGXI_API is read on the server; the browser talks to that origin directly (list this
// app's origin in the Lingxi server's CORS_ORIGINS).
const api = process.env.LINGXI_API ?? 'http://127.0.0.1:8787'

// Read LINGXI_API on each request (`next start`), not once at `next build`.
export const dynamic = 'force-dynamic'

export default function Page() {
  return (
    <main style={{ maxWidth: 960, margin: '0 auto', padding: 24 }}>
      <h1>星图笔记</h1>
      <p>服务器渲染的页面；灵犀的组件在浏览器里接管，不会出现水合（hydration）警告。</p>
      <Assistant api={api} />
    </main>
  )
}
