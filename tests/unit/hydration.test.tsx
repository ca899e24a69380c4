// @vitest-environment happy-dom
import { act } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { renderToString } from 'react-dom/server'
import { afterEach, describe, expect, it } from 'vitest'
import { $token, $user } from '../../src/core/stores'
import { useMenu, useSession, useUser } from '../../src/npm/hooks'
import { user } from './helpers/fixtures'
import { resetCore } from './helpers/reset'

// Issue 16, item 6: a server renders nobody logged in (it never sees the browser's storage); the
// browser hydrates that HTML while its stores already know the session. The hooks render the
// server's value while hydrating, then the browser's: no React error #418.

function Who() {
  const session = useSession()
  const person = useUser()
  const menu = useMenu()
  return (
    <p>
      {session ? session.phone : '未登录'} · {person ? person.nickName : '—'} · {menu.length}
    </p>
  )
}

afterEach(resetCore)

describe('the npm hooks while hydrating', () => {
  it('match the server HTML, then show the restored session', async () => {
    $token.set(null)
    $user.set(null)
    const html = renderToString(<Who />)
    expect(html).toContain('未登录')
    // the browser: a session restored from storage
    $token.set('session:restored')
    $user.set({ ...user, phone: '138****8000' })
    const container = document.createElement('div')
    container.innerHTML = html
    document.body.append(container)
    const errors: unknown[] = []
    ;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true
    let root: ReturnType<typeof hydrateRoot> | undefined
    await act(async () => {
      root = hydrateRoot(container, <Who />, { onRecoverableError: (error) => errors.push(error) })
    })
    expect(errors).toEqual([])
    expect(container.textContent).toContain('138****8000')
    expect(container.textContent).toContain(user.nickName)
    await act(async () => {
      $token.set(null)
      $user.set(null)
    })
    expect(container.textContent).toContain('未登录')
    root?.unmount()
    container.remove()
  })
})
