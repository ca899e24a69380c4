export { UserCenter, USER_CENTER_TABS, type UserCenterTab } from './user-center'
