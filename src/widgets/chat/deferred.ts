/**
 * Loads a deferred part of the chat (settings, the dialogs, the login dialog: the
 * `deferred` list of scripts/build-css.mjs) together with the rules of the chat's sheet that only
 * those parts use, which rest-css.ts inserts before the part renders. A part loaded otherwise
 * would show without some of its styles in the CDN build.
 */
export function deferred<T>(part: Promise<T>): Promise<T> {
  return Promise.all([part, import('./rest-css')]).then(([m]) => m)
}
