// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest'
import { $handoffs, handOff, takeHandoff } from '../../src/core/handoff'
import { $token } from '../../src/core/stores'
import { resetCore } from './helpers/reset'

describe('handoffs between tools', () => {
  beforeEach(() => {
    resetCore()
    $handoffs.set({})
    $token.set('tok')
  })

  it('gives what was left to the tool named, once', () => {
    handOff('chat', { topicId: 't1' })
    expect(takeHandoff('other')).toBeUndefined()
    expect(takeHandoff('chat')).toEqual({ topicId: 't1' })
    expect(takeHandoff('chat')).toBeUndefined()
  })

  it('keeps only the last thing left, and a receiver on the page hears it at once', () => {
    const heard: unknown[] = []
    const off = $handoffs.listen(() => {
      const value = takeHandoff('chat')
      if (value !== undefined) heard.push(value)
    })
    handOff('chat', 1)
    handOff('chat', 2)
    off()
    expect(heard).toEqual([1, 2])
    handOff('chat', 3)
    handOff('chat', 4)
    expect(takeHandoff('chat')).toBe(4)
  })

  it('never gives another session what was left in this one', () => {
    handOff('chat', { topicId: 't1' })
    $token.set('someone-else')
    expect(takeHandoff('chat')).toBeUndefined()
    $token.set('tok')
    expect(takeHandoff('chat')).toBeUndefined()
  })
})
