// @vitest-environment node
import { describe, expect, it } from 'vitest'

describe('without a DOM (server rendering)', () => {
  it('imports, reads and acts without touching window, document or storage', async () => {
    expect(typeof window).toBe('undefined')
    const core = {
      ...(await import('../../src/core')),
      ...(await import('../../src/core/auth')),
      ...(await import('../../src/core/cookies')),
      ...(await import('../../src/core/events')),
      ...(await import('../../src/core/format'))
    }
    expect(core.$token.get()).toBeNull()
    expect(core.$user.get()).toBeNull()
    expect(core.$menu.get()).toEqual([])
    expect(core.getCookie('lingxi_token')).toBeNull()
    expect(core.hasPermission('AI_TOOLS_SD')).toBe(false)
    expect(core.deviceKind()).toBe('PC')
    expect(core.consumeRedirectLogin()).toBeNull()
    await expect(core.startSession()).resolves.toBeUndefined()
    await expect(core.confirm({ message: '?' })).resolves.toBe(false)
    await expect(core.copyText('x')).resolves.toBe(false)
    expect(() => core.toast('x')).not.toThrow()
    expect(() => core.installGlobalListeners()).not.toThrow()
    expect(() => core.notifyError(new Error('x'))).not.toThrow()
    expect(core.maskPhone('13800138000')).toBe('138****8000')
  })
})
