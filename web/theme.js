// Before the first paint: the saved theme (if any), so a dark page never flashes white. A classic
// script in <head>, blocking on purpose (it is tiny); a file of its own, as the page's
// Content-Security-Policy runs no inline script.
try {
  const theme = JSON.parse(localStorage.getItem("looplab:v1:theme"));
  if (theme === "dark" || theme === "light") document.documentElement.dataset.theme = theme;
} catch {
  /* storage disabled: the system's theme */
}
