import { hasMath, maskMath } from './math-syntax'

describe('hasMath', () => {
  it.each([
    ['$x$', true],
    ['面积 $\\pi r^2$ 平方米', true],
    ['$E=mc^2$。', true],
    ['$5$', true],
    ['$$\\int_0^1 f(x)\\,dx$$', true],
    ['$$\n\\frac{a}{b}\n$$', true],
    ['\\[ a^2 + b^2 = c^2 \\]', true],
    ['\\(x_1\\)', true],
    ['$a$ and $b$', true]
  ])('finds maths in %j', (text, expected) => {
    expect(hasMath(text)).toBe(expected)
  })

  it.each([
    ['$5 and $10', false],
    ['价格从 $5 到 $10 不等', false],
    ['$100-$200', false],
    ['US$5 and US$10', false],
    ['costs $ 5 or $ 10', false],
    ['$x $', false],
    ['$ x$', false],
    ['$x$5', false],
    ['\\$5 and \\$6', false],
    ['$$', false],
    ['$\n$', false],
    ['$$a\n\nb$$', false],
    ['no dollars at all', false],
    ['', false]
  ])('finds no maths in %j', (text, expected) => {
    expect(hasMath(text)).toBe(expected)
  })

  it('masks maths for emphasis matching without moving anything', () => {
    const src = '*a $x*y$ b* and $5 or $10'
    const masked = maskMath(src)
    expect(masked).toHaveLength(src.length)
    expect(masked).toBe('*a aaaaa b* and $5 or $10')
  })
})
