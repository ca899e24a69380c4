import { moderatorFor } from '../../moderation/index.js'
import { defineModule } from '../module.js'
import { registerUserCenter } from './center.js'

/** The user center: balance and recharge logs, recharge cards, nickname and avatar. Any account, no tool code. */
export const userCenter = defineModule({
  name: 'user-center',
  permissionCodes: [],
  // Recharge cards credit whatever kinds they grant.
  allowanceKinds: 'all',
  create: (deps) => ({
    routes: (api) => registerUserCenter(api, { kv: deps.kv, allowances: deps.allowances, moderator: moderatorFor(deps), phoneView: deps.config })
  })
})
