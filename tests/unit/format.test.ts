// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { getCookie, removeCookie } from '../../src/core/cookies'
import { installGlobalListeners } from '../../src/core/events'
import { copyText, deviceKind, formatCount, maskPhone } from '../../src/core/format'
import { resetCore, spyCookieWrites, toastTexts } from './helpers/reset'
import { writeCookie } from './helpers/cookie'

describe('maskPhone', () => {
  it.each([
    ['13800138000', '138****8000'],
    [' 13800138000 ', '138****8000'],
    ['91234567', '912****4567'],
    ['1234567', '****567'],
    ['123456', '****456'],
    ['12', '****2'],
    ['1', '****'],
    ['', '']
  ])('%j → %j', (input, masked) => {
    expect(maskPhone(input)).toBe(masked)
  })
})

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [9999, '9999'],
    [10000, '1.0w+'],
    [12345, '1.2w+'],
    [19999, '1.9w+'],
    [123456, '12.3w+'],
    [123456789, '12345.6w+'],
    [-5, '-5'],
    [Number.NaN, '0']
  ])('%d → %s', (n, text) => {
    expect(formatCount(n)).toBe(text)
  })
})

describe('deviceKind', () => {
  it.each([
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 'H5'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36', 'H5'],
    ['Mozilla/5.0 (Linux; U; Android 12; zh-cn; MI 11) AppleWebKit/537.36 MicroMessenger/8.0.47', 'H5'],
    ['Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15', 'H5'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36', 'PC'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15', 'PC'],
    ['', 'PC']
  ])('%s → %s', (ua, kind) => {
    expect(deviceKind(ua)).toBe(kind)
  })

  it('reads navigator.userAgent by default', () => {
    expect(deviceKind()).toBe('PC') // happy-dom's desktop UA
  })
})

describe('copyText', () => {
  const original = Object.getOwnPropertyDescriptor(navigator, 'clipboard')
  let prompted: unknown[][]
  beforeEach(() => {
    resetCore()
    installGlobalListeners()
    prompted = []
    window.prompt = ((...args: unknown[]) => {
      prompted.push(args)
      return null
    }) as typeof window.prompt
  })
  afterEach(() => {
    if (original) Object.defineProperty(navigator, 'clipboard', original)
    else delete (navigator as { clipboard?: unknown }).clipboard
  })
  const clipboard = (value: unknown) => Object.defineProperty(navigator, 'clipboard', { value, configurable: true })

  it('writes to the clipboard and toasts 已复制到剪切板！', async () => {
    const written: string[] = []
    clipboard({ writeText: async (text: string) => void written.push(text) })
    expect(await copyText('分享内容')).toBe(true)
    expect(written).toEqual(['分享内容'])
    expect(prompted).toEqual([])
    expect(toastTexts()).toEqual(['success: 已复制到剪切板！'])
  })

  it('falls back to a prompt when the clipboard refuses', async () => {
    clipboard({ writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) })
    expect(await copyText('分享内容')).toBe(false)
    expect(prompted).toEqual([['复制以下内容', '分享内容']])
    expect(toastTexts()).toEqual([])
  })

  it('falls back to a prompt without a clipboard API', async () => {
    clipboard(undefined)
    expect(await copyText('x')).toBe(false)
    expect(prompted).toEqual([['复制以下内容', 'x']])
  })
})

describe('cookies (an older client’s, read and deleted)', () => {
  beforeEach(resetCore)

  it('reads values that needed encoding, and deletes them', () => {
    writeCookie(`lingxi_phone=${encodeURIComponent('+86 138;=')}; path=/`)
    expect(getCookie('lingxi_phone')).toBe('+86 138;=')
    removeCookie('lingxi_phone')
    expect(getCookie('lingxi_phone')).toBeNull()
  })

  it('does not confuse a name with the end of another', () => {
    writeCookie('xlingxi_token=other; path=/')
    expect(getCookie('lingxi_token')).toBeNull()
  })

  it('deletes on this host and on the parent domain they may have been written on', () => {
    const { writes, restore } = spyCookieWrites()
    try {
      removeCookie('lingxi_token', '.lingxi.test')
    } finally {
      restore()
    }
    expect(writes).toEqual([
      'lingxi_token=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT',
      'lingxi_token=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT; domain=.lingxi.test'
    ])
  })
})
