// The one list of Lingxi's custom elements: the CDN build's entries, the loader's tag table and
// the custom-elements manifest all derive from it.
export const elements = [
  { tag: 'lingxi-app', file: 'app', entry: 'src/host/app.element.ts' },
  { tag: 'lingxi-login', file: 'login', entry: 'src/widgets/login/login.element.ts' },
  { tag: 'lingxi-profile', file: 'profile', entry: 'src/widgets/profile/profile.element.ts' },
  { tag: 'lingxi-toaster', file: 'toaster', entry: 'src/widgets/toaster/toaster.element.ts' },
  { tag: 'lingxi-chat', file: 'chat', entry: 'src/widgets/chat/chat.element.ts' },
  { tag: 'lingxi-roles', file: 'roles', entry: 'src/widgets/roles/roles.element.ts' },
  { tag: 'lingxi-painting', file: 'painting', entry: 'src/widgets/painting/painting.element.ts' },
  { tag: 'lingxi-image-host', file: 'image-host', entry: 'src/widgets/image-host/image-host.element.ts' },
  { tag: 'lingxi-user-center', file: 'user-center', entry: 'src/widgets/user-center/user-center.element.ts' },
  { tag: 'lingxi-music', file: 'music', entry: 'src/widgets/music/music.element.ts' },
  { tag: 'lingxi-hot-news', file: 'hot-news', entry: 'src/widgets/hot-news/hot-news.element.ts' },
  { tag: 'lingxi-orders', file: 'orders', entry: 'src/widgets/orders/orders.element.ts' },
]

/** Every ES module entry of the CDN build: the elements plus the loader's command runner. */
export const entries = [...elements, { tag: 'lingxi-commands', file: 'commands', entry: 'src/loader/commands.ts' }]
