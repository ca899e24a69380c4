// @vitest-environment happy-dom
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ok, startApi, type Api } from '../../../tests/unit/helpers/api-server'
import { resetCore } from '../../../tests/unit/helpers/reset'
import { configure } from '../../core/config'
import { $token } from '../../core/stores'
import { absoluteUrl, deleteImage, formatBytes, imageLink, listImages } from './state'

let server: Api
beforeAll(async () => {
  server = await startApi()
})
afterAll(() => server.close())
beforeEach(() => {
  resetCore()
  configure({ apiBase: server.url })
  $token.set('tok')
  server.calls.length = 0
})

describe('image host calls', () => {
  it('lists a page of my images and deletes one by id', async () => {
    server.routes['/api/v1/images/list'] = () => ok({ list: [{ imageId: 'i1' }], total: 1, pageNum: 2, pageSize: 24 })
    server.routes['/api/v1/images/del'] = () => ok(true)
    expect((await listImages(2)).list).toEqual([{ imageId: 'i1' }])
    await deleteImage('i1')
    expect(server.calls.map((c) => [c.path, c.body])).toEqual([
      ['/api/v1/images/list', { pageNum: 2, pageSize: 24 }],
      ['/api/v1/images/del', { imageId: 'i1' }]
    ])
  })
})

describe('imageLink', () => {
  const image = { url: '/files/images/a b.png', name: '猫.png' }
  it('makes an absolute URL, a Markdown image and an HTML img', () => {
    const base = 'https://lingxi.example/imgSee'
    expect(imageLink(image, 'url', base)).toBe('https://lingxi.example/files/images/a%20b.png')
    expect(imageLink(image, 'markdown', base)).toBe('![猫](https://lingxi.example/files/images/a%20b.png)')
    expect(imageLink(image, 'html', base)).toBe('<img src="https://lingxi.example/files/images/a%20b.png" alt="猫">')
  })
  it('keeps hostile names inside the format', () => {
    const evil = { url: 'https://cdn.example/x.png', name: 'a]("><script>.png' }
    expect(imageLink(evil, 'markdown')).toBe('![a\\]("><script>](https://cdn.example/x.png)')
    expect(imageLink(evil, 'html')).toBe('<img src="https://cdn.example/x.png" alt="a](&quot;&gt;&lt;script&gt;">')
  })
})

describe('formatBytes', () => {
  it('B, KB, MB with one decimal', () => {
    expect([0, 1023, 1536, 3_500_000, NaN].map(formatBytes)).toEqual(['0 B', '1023 B', '1.5 KB', '3.3 MB', '0 B'])
  })
})

describe('absoluteUrl', () => {
  it('resolves a relative file URL against the API server, not the partner page', () => {
    configure({ apiBase: 'https://ai.example.com' })
    expect(absoluteUrl('/files/a.png')).toBe('https://ai.example.com/files/a.png')
    expect(absoluteUrl('https://cdn.example/b.png')).toBe('https://cdn.example/b.png')
    configure({ apiBase: '' })
    expect(absoluteUrl('/files/a.png')).toBe(new URL('/files/a.png', location.href).href)
  })
})
