import { describe, expect, it } from 'vitest'
import { loadCountries, searchCountries } from '../../src/core/countries'
import type { CountryEntry } from '../../src/core/types'

describe('loadCountries', () => {
  it('puts 中国 first, then 香港, 澳门, 台湾, then the rest by pinyin', async () => {
    const list = await loadCountries()
    expect(list.slice(0, 4).map((c) => [c.countryName, c.phoneCode, c.countryCode])).toEqual([
      ['中国', '86', 'CN'],
      ['中国香港', '852', 'HK'],
      ['中国澳门', '853', 'MO'],
      ['中国台湾', '886', 'TW']
    ])
    const rest = list.slice(4).map((c) => c.countryPinyin)
    expect(rest).toEqual([...rest].sort((a, b) => a.localeCompare(b)))
    expect(list.length).toBeGreaterThan(200)
  })

  it('entries have the contract shape: lowercase toneless pinyin without spaces, code without +', async () => {
    const list = await loadCountries()
    expect(list[0]).toEqual({ countryName: '中国', countryPinyin: 'zhongguo', phoneCode: '86', countryCode: 'CN', countryInitials: 'zg' })
    for (const c of list) {
      expect(c.countryPinyin).toMatch(/^[a-z]+$/)
      expect(c.phoneCode).toMatch(/^\d{1,4}$/)
      expect(c.countryCode).toMatch(/^[A-Z]{2}$/)
    }
    expect(new Set(list.map((c) => c.countryCode)).size).toBe(list.length)
    expect(list.find((c) => c.countryCode === 'US')).toMatchObject({ countryName: '美国', phoneCode: '1' })
    expect(list.find((c) => c.countryCode === 'PE')?.countryPinyin).toBe('bilu') // 秘鲁, not "milu"
  })

  it('is loaded once per page', async () => {
    expect(await loadCountries()).toBe(await loadCountries())
  })
})

describe('searchCountries', () => {
  const pick = async (q: string) => searchCountries(await loadCountries(), q).map((c: CountryEntry) => c.countryCode)

  it('an empty query keeps the list', async () => {
    expect(await pick('  ')).toHaveLength((await loadCountries()).length)
  })

  it('matches the Chinese name', async () => {
    expect(await pick('香港')).toEqual(['HK'])
    expect(await pick('几内亚')).toEqual(expect.arrayContaining(['GN', 'GW', 'GQ', 'PG']))
  })

  it('matches full pinyin and initials, any case', async () => {
    expect(await pick('meiguo')).toContain('US')
    expect(await pick('MeiGuo')).toContain('US')
    expect(await pick('rb')).toContain('JP')
    expect(await pick('riben')).toEqual(['JP'])
  })

  it('matches the calling code with or without +, exact code first', async () => {
    expect((await pick('+852'))[0]).toBe('HK')
    expect((await pick('852'))[0]).toBe('HK')
    const one = await pick('1')
    const nanp = (await loadCountries()).filter((c) => c.phoneCode === '1').map((c) => c.countryCode)
    expect(nanp).toEqual(expect.arrayContaining(['US', 'CA']))
    expect(one.slice(0, nanp.length)).toEqual(nanp)
    expect(await pick('+1')).toEqual(one)
    expect(await pick('86')).toEqual(['CN'])
  })

  it('matches the ISO code', async () => {
    expect((await pick('jp'))[0]).toBe('JP')
    expect((await pick('CN'))[0]).toBe('CN')
  })

  it('finds nothing for nonsense', async () => {
    expect(await pick('zzzzzz')).toEqual([])
  })
})
