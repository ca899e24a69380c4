import type { ScreenProps } from '../manifest'
import './orders.element'

/**
 * /orders and /miracleOrders (任务大厅, 我的订单 with `?view=mine`) and their detail routes
 * `…/ordersDetail/{activityId}/{activitySessionId}`: the orders element, quality on /miracleOrders.
 */
export default function OrdersScreen({ route, pathname, search }: ScreenProps) {
  const quality = route.path.startsWith('/miracleOrders')
  const base = quality ? '/miracleOrders' : '/orders'
  const detail = /\/ordersDetail\/([^/]+)\/([^/]+)\/?$/.exec(pathname)
  if (detail) {
    const [, activityId, sessionId] = detail
    return <lingxi-orders key={`${base}/detail`} quality={quality} base-path={base} view="detail" activity-id={activityId} session-id={sessionId} />
  }
  const view = new URLSearchParams(search).get('view') === 'mine' ? 'mine' : 'list'
  return <lingxi-orders key={`${base}/${view}`} quality={quality} base-path={base} view={view} />
}
