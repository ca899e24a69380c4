// @vitest-environment node
import { describe, expect, it } from 'vitest'

describe('chat core without a DOM (server rendering)', () => {
  it('imports, reads and starts without touching window, document or the network', async () => {
    expect(typeof window).toBe('undefined')
    const chat = {
      ...(await import('../../src/widgets/chat/state')),
      ...(await import('../../src/widgets/chat/topics')),
      ...(await import('../../src/widgets/chat/groups'))
    }
    const roles = await import('../../src/widgets/roles/state')
    expect(chat.$topics.get()).toBeNull()
    expect(chat.$activeTopicId.get()).toBeNull()
    expect(chat.$messages.get()).toEqual({})
    expect(chat.$streaming.get()).toEqual({})
    expect(roles.$roleTags.get()).toBeNull()
    await expect(chat.startChat()).resolves.toBeUndefined()
    expect(() => chat.resetChat()).not.toThrow()
    expect(chat.groupTopics([], 0)).toEqual([])
    expect(chat.activeRequest({}, null)).toBeNull()
    expect(chat.uuid()).toMatch(/^[0-9a-f-]{36}$/)
  })
})
