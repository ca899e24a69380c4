// Before the first paint: the theme chosen in the profile panel (docs/decisions/0018-themes.md).
try {
  const stored = localStorage.getItem('lingxi-theme')
  document.documentElement.dataset.theme = stored === 'light' || stored === 'auto' ? stored : 'dark'
} catch {
  document.documentElement.dataset.theme = 'dark'
}
// <meta name="theme-color"> (the browser's bar on phones) takes the page's background, again whenever
// <html data-theme> changes (the profile panel) or, for auto, the system's colour scheme does.
{
  const meta = document.querySelector('meta[name="theme-color"]')
  const apply = () => {
    const colour = getComputedStyle(document.documentElement).backgroundColor
    if (meta && colour && colour !== 'rgba(0, 0, 0, 0)') meta.content = colour
  }
  // site.css comes after this script: the first reading is once the page has loaded
  addEventListener('load', apply)
  new MutationObserver(apply).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
  matchMedia('(prefers-color-scheme: light)').addEventListener('change', apply)
}
