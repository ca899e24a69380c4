// Tables of the image host (图床): albums and which album an uploaded image is in (see schema.ts).
import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'
import { files } from './schema-storage.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** An account's album of uploaded images. Deleting it leaves its images, outside any album. */
export const imageAlbums = pgTable(
  'image_albums',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: at('created_at').notNull()
  },
  (t) => [index('image_albums_account_idx').on(t.accountId, t.createdAt)]
)

/** The album of an image (at most one): a row per image that is in an album; gone with the file or the album. */
export const imageAlbumItems = pgTable(
  'image_album_items',
  {
    fileId: text('file_id')
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    albumId: text('album_id')
      .notNull()
      .references(() => imageAlbums.id, { onDelete: 'cascade' })
  },
  (t) => [primaryKey({ columns: [t.fileId] }), index('image_album_items_album_idx').on(t.albumId)]
)

export type ImageAlbum = typeof imageAlbums.$inferSelect
