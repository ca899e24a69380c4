'use client'

// The client part of the page. `lingxi`'s entry is marked 'use client' itself, so a server
// component may also render <Chat /> with plain props; callbacks such as onMessage need a client
// component like this one.
import { Chat, LingxiProvider, LoginDialog, Toaster, useSession } from 'lingxi'

/**
 * Who is signed in. The server renders 未登录 (it never sees the browser's session); the browser
 * hydrates that same text, then shows the restored session — useSession() takes care of it.
 */
function Who() {
  const session = useSession()
  return <p data-testid="who">{session ? `已登录：${session.phone}` : '未登录'}</p>
}

export function Assistant({ api }: { api: string }) {
  return (
    <LingxiProvider api={api}>
      <Who />
      <Chat className="chat" style={{ display: 'block', height: 560 }} onMessage={(reply) => console.info('[next] reply', reply.messageId)} />
      <Chat mode="bubble" greeting="有问题？问问我" position="left" />
      <LoginDialog />
      <Toaster />
    </LingxiProvider>
  )
}
