import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { Chat, LingxiProvider, LoginDialog, logout, openLogin, Profile, Toaster, useMenu, useSession } from 'lingxi'
import './app.css'

const api = document.querySelector<HTMLMetaElement>('meta[name=lingxi-api]')?.content ?? 'http://127.0.0.1:8787'

/**
 * The app's own header: who is signed in from useSession() — also right after a reload, when the
 * session is restored without a new login — and Lingxi's profile button beside it. The phone is
 * masked (138****5678) unless the server lists this app's origin in TRUSTED_ORIGINS.
 */
function Header() {
  const user = useSession()
  return (
    <header className="app-header">
      <h1>星图笔记</h1>
      {user ? (
        <>
          <span className="who" data-testid="app-phone">
            {user.phone}
          </span>
          <button type="button" onClick={() => void logout()}>
            退出
          </button>
        </>
      ) : (
        <button type="button" onClick={() => openLogin()}>
          登录
        </button>
      )}
      <Profile />
    </header>
  )
}

/** The tools the person may use, from useMenu() (permissions from the server). */
function Menu() {
  const menu = useMenu()
  return (
    <ul className="menu" aria-label="灵犀工具">
      {menu
        .filter((item) => !item.hidden)
        .map((item) => (
          <li key={item.permissionCode}>{item.permissionName}</li>
        ))}
    </ul>
  )
}

export function App() {
  return (
    <LingxiProvider api={api}>
      <Header />
      <div className="layout">
        <Menu />
        <main>
          <Chat className="chat" onMessage={(reply) => console.info('[app] reply finished', reply.messageId)} />
        </main>
      </div>
      <LoginDialog />
      <Toaster />
    </LingxiProvider>
  )
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>
)
