/**
 * Loads a part of the profile that shows on demand (its menu, panel, theme control: `deferred` in
 * scripts/build-css.mjs) with the rules of its sheet that only those parts use (rest-css.ts).
 */
export function deferred<T>(part: Promise<T>): Promise<T> {
  return Promise.all([part, import('./rest-css')]).then(([m]) => m)
}
