import { splitSnippet, when } from './search'

describe('search results', () => {
  it('splits a snippet around its match', () => {
    expect(splitSnippet({ snippet: '…今天聊聊量子纠缠', matchStart: 5, matchLength: 2 })).toEqual(['…今天聊聊', '量子', '纠缠'])
    expect(splitSnippet({ snippet: '无匹配', matchStart: 0, matchLength: 0 })).toEqual(['', '', '无匹配'])
  })

  it('shows a time today, a date this year, a full date before', () => {
    const now = new Date(2026, 10, 26, 15, 0).getTime()
    expect(when(new Date(2026, 10, 26, 9, 5).getTime(), now)).toBe('09:05')
    expect(when(new Date(2026, 2, 8, 9, 5).getTime(), now)).toBe('3月8日')
    expect(when(new Date(2024, 2, 8).getTime(), now)).toBe('2024/3/8')
  })
})
