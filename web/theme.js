// Before the first paint: the saved theme (if any), so a dark page never flashes white; and the
// lesson written into the page by the build (<html data-prerendered>) hidden when the address asks
// for another one (or a shared link), so the wrong lesson never shows. A classic script in <head>,
// blocking on purpose (it is tiny); the build writes it into index.html, and the page's
// Content-Security-Policy allows exactly this script by its hash (scripts/build_site.py).
try {
  const theme = JSON.parse(localStorage.getItem("looplab:v1:theme"));
  if (theme === "dark" || theme === "light") document.documentElement.dataset.theme = theme;
} catch {
  /* storage disabled: the system's theme */
}
{
  const root = document.documentElement;
  const asked = location.hash.replace(/^#\/?/, ""); // as share.js readHash: #/<slug> or #/<slug>?share=...
  if (root.dataset.prerendered && asked && asked !== root.dataset.prerendered) root.dataset.otherLesson = "";
}
