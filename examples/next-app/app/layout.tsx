import type { ReactNode } from 'react'

export const metadata = { title: '星图笔记 · Next.js + 灵犀' }

/** A server component: the page's frame. Lingxi's components render inside client components (assistant.tsx). */
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="zh-CN">
      <body style={{ margin: 0, fontFamily: 'system-ui, sans-serif', background: '#f6f7fb' }}>{children}</body>
    </html>
  )
}
