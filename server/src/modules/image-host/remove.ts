import type { Db } from '../../db/database.js'
import type { StoredFile } from '../../db/schema.js'
import { deleteStoredFile } from '../../storage/images.js'
import type { Storage } from '../../storage/storage.js'

/**
 * Removes an image for good: its `files` row (its album entry goes with it) and both stored objects,
 * the original and its thumbnail, on local disk or in the bucket. The one delete path of the image
 * host: the owner's `images/del` and an operator's takedown both call it.
 */
export async function removeImage(deps: { db: Db; storage: Storage }, row: StoredFile): Promise<void> {
  await deleteStoredFile(deps, row)
}
