import type { RouteInfo } from '../routes'

/** What the host passes to every widget screen: its route and the query string (e.g. `?id=card`). */
export interface ScreenProps {
  route: RouteInfo
  search: string
}
