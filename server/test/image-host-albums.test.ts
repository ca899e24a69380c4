import { existsSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeS3, startFakeS3 } from './fakes/s3.js'
import { useHarness } from './helpers/database-hooks.js'
import type { Harness } from './helpers/harness.js'

const IMAGES = '/api/v1/images'
const png = (width: number) =>
  sharp({ create: { width, height: 20, channels: 3, background: '#2a7' } })
    .png()
    .toBuffer()

/** Uploads through the real flow: ticket, PUT (local signed route or the bucket's presigned URL), complete. */
async function upload(h: Harness, token: string, name: string, width = 40) {
  const bytes = await png(width)
  const t = (await h.post<any>('/api/v1/oss/upload/getOssSTS', { fileName: name, contentType: 'image/png', size: bytes.byteLength }, { token })).body.data
  const init = { method: 'PUT', body: bytes as unknown as RequestInit['body'], headers: t.headers }
  const put = t.provider === 's3' ? await fetch(t.uploadUrl, init) : await h.app.request(t.uploadUrl, init)
  expect(put.status).toBe(200)
  const done = await h.post<any>('/api/v1/oss/upload/complete', { key: t.key }, { token })
  expect(done.body.code).toBe(2000)
  return { ...done.body.data, key: t.key as string, thumbKey: (t.key as string).replace(/\.png$/, '-thumb.webp') }
}

describe('albums', () => {
  const ctx = useHarness()
  const post = <T = any>(path: string, body: unknown, token: string) => ctx.h.post<T>(`${IMAGES}/${path}`, body, { token })

  it('creates, renames, lists with counts and covers, moves images, filters the list, deletes (images stay)', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const a = await upload(ctx.h, token, 'a.png')
    const b = await upload(ctx.h, token, 'b.png')
    const c = await upload(ctx.h, token, 'c.png')
    const trip = (await post('album/add', { name: '旅行' }, token)).body.data
    expect(trip).toMatchObject({ name: '旅行', imageCount: 0, coverUrl: null })
    expect((await post('album/add', { name: '旅行' }, token)).body).toEqual({ code: 40000001, message: '已有名为「旅行」的相册', data: null })
    expect((await post('album/add', { name: ' ' }, token)).body).toMatchObject({ code: 40000001, message: '相册名称不能为空' })
    expect((await post('album/add', { name: '长'.repeat(41) }, token)).body).toMatchObject({ code: 40000001 })
    // Albums list oldest first: the second is made a moment later (same-millisecond ties have no order).
    ctx.h.clock.advance(1_000)
    const pets = (await post('album/add', { name: '宠物' }, token)).body.data
    expect((await post('album/rename', { albumId: pets.albumId, name: '猫' }, token)).body.data).toBe(true)
    expect((await post('album/rename', { albumId: pets.albumId, name: '旅行' }, token)).body.message).toBe('已有名为「旅行」的相册')

    expect((await post('move', { imageIds: [a.imageId, b.imageId], albumId: trip.albumId }, token)).body.data).toEqual({ moved: 2 })
    expect((await post('move', { imageIds: [c.imageId], albumId: pets.albumId }, token)).body.data).toEqual({ moved: 1 })
    // Moving again replaces the album (an image is in one album at most).
    expect((await post('move', { imageIds: [b.imageId], albumId: pets.albumId }, token)).body.data).toEqual({ moved: 1 })
    const albums = (await post<any[]>('album/list', {}, token)).body.data
    expect(albums.map((x) => [x.name, x.imageCount])).toEqual([
      ['旅行', 1],
      ['猫', 2]
    ])
    expect(albums[1].coverUrl).toBe(c.thumbUrl)
    const names = async (albumId?: string) =>
      (await post<any>('list', albumId === undefined ? {} : { albumId }, token)).body.data.list.map((i: any) => [i.name, i.albumId])
    expect(await names(pets.albumId)).toEqual([
      ['c.png', pets.albumId],
      ['b.png', pets.albumId]
    ])
    expect(await names(trip.albumId)).toEqual([['a.png', trip.albumId]])
    expect((await post('move', { imageIds: [a.imageId], albumId: null }, token)).body.data).toEqual({ moved: 1 })
    expect(await names('none')).toEqual([['a.png', null]])

    expect((await post('album/del', { albumId: pets.albumId }, token)).body.data).toBe(true)
    expect(await names()).toEqual([
      ['c.png', null],
      ['b.png', null],
      ['a.png', null]
    ])
    expect((await post<any[]>('album/list', {}, token)).body.data.map((x) => x.name)).toEqual(['旅行'])
    expect((await post('album/del', { albumId: pets.albumId }, token)).body).toEqual({ code: 40400001, message: '相册不存在或已删除', data: null })
  }, 30_000)

  it('keeps accounts apart: no one moves into, renames or deletes another account’s album, or moves its images', async () => {
    const { accessToken: owner } = await ctx.h.login('13800138000')
    const { accessToken: other } = await ctx.h.login('13900139000')
    const mine = await upload(ctx.h, owner, 'mine.png')
    const theirs = await upload(ctx.h, other, 'theirs.png')
    const album = (await post('album/add', { name: '私人' }, owner)).body.data
    const notFound = { code: 40400001, message: '相册不存在或已删除', data: null }
    expect((await post('album/rename', { albumId: album.albumId, name: 'x' }, other)).body).toEqual(notFound)
    expect((await post('album/del', { albumId: album.albumId }, other)).body).toEqual(notFound)
    expect((await post('move', { imageIds: [theirs.imageId], albumId: album.albumId }, other)).body).toEqual(notFound)
    // All or none: one image that is not mine refuses the whole move.
    expect((await post('move', { imageIds: [mine.imageId, theirs.imageId], albumId: album.albumId }, owner)).body).toEqual({
      code: 40400001,
      message: '图片不存在或已删除',
      data: null
    })
    expect((await post<any>('list', { albumId: album.albumId }, owner)).body.data.total).toBe(0)
    expect((await post('move', { imageIds: [], albumId: null }, owner)).body).toMatchObject({ code: 40000001, message: '请选择要移动的图片' })
    expect((await post<any>('list', { albumId: album.albumId }, other)).body.data.total).toBe(0)
  })

  it('deletes an image’s file and thumbnail from the disk, and its album entry', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const img = await upload(ctx.h, token, 'gone.png')
    const album = (await post('album/add', { name: '临时' }, token)).body.data
    await post('move', { imageIds: [img.imageId], albumId: album.albumId }, token)
    const onDisk = (key: string) => existsSync(join(ctx.h.config.dataDir, 'files', ...key.split('/')))
    expect(onDisk(img.key) && onDisk(img.thumbKey)).toBe(true)
    expect((await post('del', { imageId: img.imageId }, token)).body.data).toBe(true)
    expect(onDisk(img.key)).toBe(false)
    expect(onDisk(img.thumbKey)).toBe(false)
    expect((await ctx.h.app.request(`/files/${img.key}`)).status).toBe(404)
    expect((await post<any[]>('album/list', {}, token)).body.data[0].imageCount).toBe(0)
  })
})

describe('deletion from S3-compatible storage (fake S3)', () => {
  let s3: FakeS3
  beforeAll(async () => {
    s3 = await startFakeS3()
  })
  afterAll(async () => {
    await s3.close()
  })
  const ctx = useHarness(() => ({ env: s3.env() }))

  it('removes the object and its thumbnail from the bucket (signed DELETEs)', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const img = await upload(ctx.h, token, 'bucket.png')
    expect(s3.objects.has(img.key)).toBe(true)
    expect(s3.objects.has(img.thumbKey)).toBe(true)
    expect((await ctx.h.post('/api/v1/images/del', { imageId: img.imageId }, { token })).body).toMatchObject({ code: 2000, data: true })
    expect(s3.objects.has(img.key)).toBe(false)
    expect(s3.objects.has(img.thumbKey)).toBe(false)
    expect((await fetch(img.url)).status).toBe(404)
    expect(s3.requests.filter((r) => r.method === 'DELETE').map((r) => r.status)).toEqual([204, 204])
  })
})
