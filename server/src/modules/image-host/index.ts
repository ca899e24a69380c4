import { defineModule } from '../module.js'
import { IMAGE_PERMISSION, registerImageRoutes } from './routes.js'

/**
 * The image host (图床): the account's uploaded pictures, in albums, listed, moved and deleted.
 * Uploading itself and `/files/*` are shared (storage/): avatars and painting references upload the same way.
 */
export const imageHost = defineModule({
  name: 'image-host',
  permissionCodes: [IMAGE_PERMISSION],
  allowanceKinds: [],
  create: () => ({ routes: registerImageRoutes })
})
