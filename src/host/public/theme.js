// Before the first paint: the theme chosen in the profile panel (docs/decisions/0018-themes.md).
try {
  const stored = localStorage.getItem('lingxi-theme')
  document.documentElement.dataset.theme = stored === 'light' || stored === 'auto' ? stored : 'dark'
} catch {
  document.documentElement.dataset.theme = 'dark'
}
