import type { ScreenProps } from '../manifest'
import './admin.element'

/** /admin?tab=users|cards|packages|orders|audit: the operator console element. */
export default function AdminScreen({ search }: ScreenProps) {
  return <lingxi-admin tab={new URLSearchParams(search).get('tab') ?? 'users'} />
}
