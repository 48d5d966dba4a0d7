// Keyboard shortcuts: Ctrl/Cmd+Enter runs, Esc or Ctrl+. stops, Alt+PageDown/PageUp (or n/p
// outside an editor) moves between lessons, ? opens the list of shortcuts.

function typing(target) {
  return (
    target &&
    (target.closest(".cm-editor") || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable)
  );
}

const dialogOpen = () => Boolean(document.querySelector("dialog[open]"));

/**
 * Listen for the page's shortcuts; `on` holds run(), stop(), stoppable() (whether Esc means
 * Stop now), go(delta) and help(). Returns the editors' keymap for the same keys.
 */
export function setupShortcuts(on) {
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented) return; // an editor handled it (see the keymap below)
    const mod = event.ctrlKey || event.metaKey;
    if (mod && event.key === "Enter") {
      event.preventDefault();
      on.run();
    } else if ((event.key === "Escape" && on.stoppable() && !dialogOpen()) || (event.ctrlKey && event.key === ".")) {
      event.preventDefault();
      on.stop();
    } else if (event.altKey && event.key === "PageDown") {
      event.preventDefault();
      on.go(1);
    } else if (event.altKey && event.key === "PageUp") {
      event.preventDefault();
      on.go(-1);
    } else if (!typing(event.target) && !mod && !event.altKey && !dialogOpen()) {
      if (event.key === "?") {
        event.preventDefault();
        on.help();
      } else if (event.key === "n") on.go(1);
      else if (event.key === "p") on.go(-1);
    }
  });
  // In an editor these come first: Mod-Enter would insert a line, and Esc during a run means Stop
  // (not CodeMirror's "Esc then Tab leaves the editor", which stays for when nothing runs). A key
  // an editor handled is not handled again above (its default is prevented).
  return [
    { key: "Mod-Enter", run: () => (on.run(), true) },
    { key: "Ctrl-.", run: () => (on.stop(), true) },
    { key: "Escape", run: () => on.stoppable() && (on.stop(), true) },
  ];
}
