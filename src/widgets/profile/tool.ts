import type { Tool } from '../manifest'

/** The signed-in person's header button, menu and profile panel. */
export const profile: Tool = {
  tag: 'lingxi-profile',
  allowances: ['tokens', 'mj', 'suno']
}
