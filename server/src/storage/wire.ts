import { z } from 'zod'

/** `Image` of docs/tools-wire.md. */
export const imageSchema = z
  .object({
    imageId: z.string(),
    url: z.string(),
    thumbUrl: z.string(),
    name: z.string(),
    contentType: z.string(),
    size: z.number(),
    width: z.number(),
    height: z.number(),
    createTime: z.number(),
    /** Set in my lists while an operator has it taken down (已下架): the reason; its files are not served. */
    takedown: z.string().nullable().optional()
  })
  .meta({ id: 'Image' })
export type Image = z.infer<typeof imageSchema>

/**
 * `oss/upload/getOssSTS`: where and how to PUT one image. `local`: the server's signed
 * `PUT /api/v1/oss/upload/put/{key}`; `s3`: a presigned URL of the bucket. Either way the upload is
 * then finished with `oss/upload/complete` and `key`.
 */
export const uploadTicketSchema = z
  .object({
    provider: z.enum(['local', 's3']),
    uploadUrl: z.string(),
    method: z.literal('PUT'),
    /** Send exactly these headers with the PUT. */
    headers: z.record(z.string(), z.string()),
    expiresAt: z.number(),
    key: z.string(),
    fileUrl: z.string()
  })
  .meta({ id: 'UploadTicket' })

export { paged } from '../http/fields.js'
