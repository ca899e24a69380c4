export { Orders, type OrdersProps } from './orders'
