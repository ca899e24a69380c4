// @vitest-environment happy-dom
import { beforeAll, describe, expect, it, vi } from 'vitest'

// lingxi.chat.* / lingxi('send', …) and the loader tag's data-chat (src/loader/commands.ts, issue
// 16) against a stand-in <lingxi-chat> that records what it is asked (the real element: tests/e2e/embed-control.spec.ts).

const asked: string[] = []
let run: (cmd: [string, ...unknown[]]) => unknown

beforeAll(async () => {
  vi.stubGlobal('fetch', () => Promise.reject(new TypeError('offline')))
  class StandIn extends HTMLElement {
    context?: unknown
    pageContext?: string
    get mode() {
      return this.getAttribute('mode')
    }
    send(text: string) {
      asked.push(`${this.id}:send:${text}`)
    }
    prefill(text: string) {
      asked.push(`${this.id}:prefill:${text}`)
    }
    toggle() {
      asked.push(`${this.id}:toggle`)
    }
    destroy() {
      this.remove()
    }
  }
  customElements.define('lingxi-chat', StandIn)
  ;({ run } = await import('../../src/loader/commands'))
})

describe("the page's chat commands", () => {
  it('send and prefill go to the first bubble (not to every chat); toggle and context to every one', async () => {
    document.body.innerHTML = '<lingxi-chat id="inline"></lingxi-chat><lingxi-chat id="bubble" mode="bubble"></lingxi-chat>'
    await run(['send', '你好'])
    await run(['prefill', '草稿'])
    await run(['toggle'])
    expect(asked.splice(0)).toEqual(['bubble:send:你好', 'bubble:prefill:草稿', 'inline:toggle', 'bubble:toggle'])
    const [inline, bubble] = [...document.querySelectorAll('lingxi-chat')] as unknown as { context?: unknown; pageContext?: string }[]
    await run(['context', { title: '标题', url: 'https://a.example/' }])
    expect([inline!.context, bubble!.context]).toEqual([
      { title: '标题', url: 'https://a.example/' },
      { title: '标题', url: 'https://a.example/' }
    ])
    await run(['context', false])
    expect([bubble!.pageContext, bubble!.context]).toEqual(['off', undefined])
    await run(['context', true])
    expect([bubble!.pageContext, bubble!.context]).toEqual([undefined, undefined])
  })

  it('without a bubble, a question goes to the first chat', async () => {
    document.body.innerHTML = '<lingxi-chat id="a"></lingxi-chat><lingxi-chat id="b"></lingxi-chat>'
    await run(['send', '问题'])
    expect(asked.splice(0)).toEqual(['a:send:问题'])
  })

  it('destroy removes every chat of the page', async () => {
    document.body.innerHTML = '<lingxi-chat id="a"></lingxi-chat><p>页面</p><lingxi-chat id="b" mode="bubble"></lingxi-chat>'
    await run(['destroy'])
    expect(document.querySelectorAll('lingxi-chat')).toHaveLength(0)
    expect(document.body.textContent).toBe('页面')
  })

  it("adds the chat the loader tag's data-chat asks for: its data-* as attributes, not the loader's own", async () => {
    document.body.innerHTML = ''
    await run([
      'add',
      { api: 'https://ai.example.com', site: 'https://ai.example.com', chat: 'bubble', position: 'left', pageContext: 'off', starters: '["a","b"]' }
    ])
    const el = document.querySelector('lingxi-chat')!
    expect(Object.fromEntries([...el.attributes].map((a) => [a.name, a.value]))).toEqual({
      mode: 'bubble',
      position: 'left',
      'page-context': 'off',
      starters: '["a","b"]'
    })
  })
})
