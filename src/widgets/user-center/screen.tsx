import type { ScreenProps } from '../manifest'
import './user-center.element'

/**
 * /usercenter?id=general|card|recharge|setting: the user center element. Its tabs ask for the address
 * with lingxi-navigate, which the host routes; the element follows the `tab` it is given.
 */
export default function UserCenterScreen({ search }: ScreenProps) {
  return <lingxi-user-center tab={new URLSearchParams(search).get('id') ?? 'general'} />
}
