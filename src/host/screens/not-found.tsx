import '../rest-css'

/** /404: the address leads nowhere; offer the way back. */
export default function NotFoundScreen() {
  return (
    <section className="max-w-md mx-auto mt-20 text-center">
      <p className="text-7xl font-black text-primary">404</p>
      <h1 className="mt-4 text-xl font-semibold">页面不存在</h1>
      <p className="mt-2 text-muted">你访问的页面可能已被移动或删除。</p>
      <a href="/" className="mt-8 inline-grid place-items-center h-11 px-6 rounded-xl bg-primary text-primary-ink font-semibold">
        返回首页
      </a>
    </section>
  )
}
