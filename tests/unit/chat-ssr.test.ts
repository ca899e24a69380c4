// @vitest-environment node
import { describe, expect, it } from 'vitest'

describe('chat core without a DOM (server rendering)', () => {
  it('imports, reads and starts without touching window, document or the network', async () => {
    expect(typeof window).toBe('undefined')
    const core = await import('../../src/core')
    expect(core.$topics.get()).toBeNull()
    expect(core.$activeTopicId.get()).toBeNull()
    expect(core.$messages.get()).toEqual({})
    expect(core.$streaming.get()).toEqual({})
    expect(core.$roleTags.get()).toBeNull()
    await expect(core.startChat()).resolves.toBeUndefined()
    expect(() => core.resetChat()).not.toThrow()
    expect(core.groupTopics([], 0)).toEqual([])
    expect(core.activeRequest({}, null)).toBeNull()
    expect(core.uuid()).toMatch(/^[0-9a-f-]{36}$/)
  })
})
