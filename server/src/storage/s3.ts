import { AwsClient, AwsV4Signer } from 'aws4fetch'
import type { StorageSettings } from '../config.js'
import type { Storage } from './storage.js'
import { checkKey, checkPut, contentTypeOfKey, isValidKey } from './keys.js'
import { keyOfUrl } from './local.js'

type S3 = NonNullable<StorageSettings['s3']>

/** An S3-compatible bucket (AWS, MinIO, R2, OSS/COS S3 endpoints), path-style, signed with SigV4. */
export function createS3Storage(s3: S3, options: { fetch?: typeof fetch } = {}): Storage {
  const client = new AwsClient({
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    region: s3.region,
    service: 's3',
    retries: 2
  })
  const doFetch = options.fetch ?? fetch
  const objectUrl = (key: string) => `${s3.endpoint}/${encodeURIComponent(s3.bucket)}/${checkKey(key)}`
  const send = async (key: string, init: RequestInit) => {
    const signed = await client.sign(objectUrl(key), init)
    return doFetch(signed)
  }
  const fail = async (what: string, key: string, res: Response) => {
    const text = await res.text().catch(() => '')
    return new Error(`S3 ${what} ${key} failed: HTTP ${res.status} ${text.slice(0, 300)}`)
  }
  return {
    kind: 's3',
    async put(key, body, contentType) {
      const type = checkPut(key, contentType)
      const res = await send(key, {
        method: 'PUT',
        body: body as unknown as RequestInit['body'],
        headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=31536000, immutable' }
      })
      if (!res.ok) throw await fail('PUT', key, res)
      await res.body?.cancel()
    },
    async get(key) {
      if (!isValidKey(key)) return null
      const res = await send(key, { method: 'GET' })
      if (res.status === 404) {
        await res.body?.cancel()
        return null
      }
      if (!res.ok) throw await fail('GET', key, res)
      return { body: new Uint8Array(await res.arrayBuffer()), contentType: contentTypeOfKey(key) ?? 'application/octet-stream' }
    },
    async delete(key) {
      if (!isValidKey(key)) return
      const res = await send(key, { method: 'DELETE' })
      if (!res.ok && res.status !== 404) throw await fail('DELETE', key, res)
      await res.body?.cancel()
    },
    publicUrl(key) {
      return `${s3.publicUrl}/${checkKey(key)}`
    },
    keyOf(url) {
      return keyOfUrl(url, [`${s3.publicUrl}/`])
    },
    async presignPut(key, contentType, size, expiresInSeconds) {
      const type = checkPut(key, contentType)
      const url = new URL(objectUrl(key))
      url.searchParams.set('X-Amz-Expires', String(expiresInSeconds))
      // Content-Type and Content-Length are signed: the store refuses another type or size.
      const signed = await new AwsV4Signer({
        method: 'PUT',
        url: url.toString(),
        headers: { 'Content-Type': type, 'Content-Length': String(size) },
        accessKeyId: s3.accessKeyId,
        secretAccessKey: s3.secretAccessKey,
        region: s3.region,
        service: 's3',
        signQuery: true,
        allHeaders: true
      }).sign()
      return { url: signed.url.toString(), headers: { 'Content-Type': type } }
    }
  }
}
