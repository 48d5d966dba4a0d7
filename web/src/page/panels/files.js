// The Files panel: the project a lesson lays out for its agent (looplab._course.project), read from
// Python's file system after each run — its tree, each file, the unified diff of what changed since
// the lesson laid it out — and Reset project, which lays it out again. Python answers between
// runs only (protocol.js `files`): while a run goes on, the panel shows what the last one left.
// Its tab shows in a lesson whose last run laid out a project.

import { el } from "../ui/dom.js";
import { drawDiff } from "./diffview.js";
import { plural } from "../ui/text.js";

/** The paths of the files a unified diff changes, in its order. */
export function changedFiles(diff) {
  return [...String(diff || "").matchAll(/^\+\+\+ (?:b\/(.+)|\/dev\/null)$|^--- a\/(.+)$/gm)]
    .map((m) => m[1] || m[2])
    .filter((path, i, all) => path && all.indexOf(path) === i);
}

/** {folder: {...}, file: path} from a list of paths: the tree the panel draws. */
export function fileTree(paths) {
  const root = { folders: new Map(), files: [] };
  for (const path of [...paths].sort()) {
    const parts = path.split("/");
    let at = root;
    for (const part of parts.slice(0, -1)) {
      if (!at.folders.has(part)) at.folders.set(part, { folders: new Map(), files: [] });
      at = at.folders.get(part);
    }
    at.files.push(path);
  }
  return root;
}

export class FilesPanel {
  /**
   * @param {HTMLElement} root  the panel (data-testid="files")
   * @param {object} hooks  tab (its tab button), ask(op) -> Promise<{project, error}> (runner.files),
   *   lesson() -> the slug on screen, busy() -> true while a run goes on
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.slug = null; // the lesson the project shown came from
    this.project = null;
    this.chosen = null; // the path of the file on view
    this.reset = el(
      "button",
      {
        type: "button",
        "data-testid": "files-reset",
        title: "Lay the project out again as the lesson did: your agent's changes are undone",
      },
      "Reset project",
    );
    this.note = el("p", { class: "files-note", role: "status" });
    this.diff = el("pre", {
      class: "diff",
      "data-testid": "files-diff",
      tabindex: "0",
      "aria-labelledby": "files-diff-title",
    });
    this.tree = el("div", { class: "files-tree" });
    this.view = el("pre", {
      class: "files-text",
      tabindex: "0",
      "data-role": "file-text",
      "aria-labelledby": "files-view-title",
    });
    this.viewTitle = el("h3", { id: "files-view-title" });
    this.reset.addEventListener("click", () => this.resetProject());
    this.clear(true);
  }

  /** A run starts or a lesson opens: a project of another lesson goes, and its tab with it. */
  clear(always = false) {
    if (!always && this.project && this.slug === this.hooks.lesson()) {
      this.root.dataset.stale = "true"; // the run may change it: read again when it ends
      return;
    }
    this.slug = this.project = this.chosen = null;
    this.showTab(false);
    this.root.replaceChildren(
      el("p", { class: "muted" }, "A lesson that lays out a project for its agent shows its files here after a run."),
    );
  }

  /** After a run: read the project from Python. */
  async refresh() {
    const slug = this.hooks.lesson();
    const { project, error } = await this.hooks.ask("read");
    if (slug !== this.hooks.lesson()) return;
    if (error) this.say(`The project could not be read: ${error}`);
    else this.show(project, slug);
  }

  async resetProject() {
    if (this.hooks.busy()) {
      this.say("Reset project works when the run has ended.");
      return;
    }
    const { project, error } = await this.hooks.ask("reset");
    if (error) this.say(`The project could not be laid out again: ${error}`);
    else {
      this.show(project, this.hooks.lesson());
      this.say("The project is laid out again as the lesson had it.");
    }
  }

  say(text) {
    this.note.textContent = text;
  }

  show(project, slug) {
    delete this.root.dataset.stale;
    if (!project) {
      this.clear(true);
      return;
    }
    this.project = project;
    this.slug = slug;
    const paths = Object.keys(project.files);
    const changed = changedFiles(project.diff);
    if (!paths.includes(this.chosen)) this.chosen = changed.find((p) => paths.includes(p)) || paths[0] || null;
    drawDiff(this.diff, project.diff, "No changes: the project is as the lesson laid it out.");
    this.say("");
    this.root.replaceChildren(
      el(
        "div",
        { class: "files-head" },
        el(
          "p",
          {},
          "Project ",
          el("code", {}, project.root),
          `: ${plural(paths.length, "file")}`,
          changed.length ? `, ${changed.length} changed by the last run` : ", none changed",
        ),
        this.reset,
      ),
      this.note,
      el("h3", { id: "files-diff-title" }, "What changed since the lesson laid it out"),
      this.diff,
      el(
        "div",
        { class: "files-body" },
        el("nav", { "aria-label": "Project files" }, this.tree),
        el("section", { class: "files-view" }, this.viewTitle, this.view),
      ),
    );
    this.drawTree(fileTree(paths), new Set(changed));
    this.choose(this.chosen);
    this.showTab(true);
  }

  drawTree(tree, changed) {
    const list = (node) =>
      el(
        "ul",
        {},
        ...[...node.folders].map(([name, inner]) =>
          el("li", { class: "files-folder" }, el("span", {}, `${name}/`), list(inner)),
        ),
        ...node.files.map((path) => {
          const button = el(
            "button",
            { type: "button", class: "files-file", "data-path": path, "aria-pressed": "false" },
            path.split("/").pop(),
          );
          if (changed.has(path)) button.append(el("span", { class: "files-changed" }, " (changed)"));
          button.addEventListener("click", () => this.choose(path));
          return el("li", {}, button);
        }),
      );
    this.tree.replaceChildren(list(tree));
  }

  /** Show one file's text. */
  choose(path) {
    this.chosen = path;
    for (const button of this.tree.querySelectorAll("button[data-path]"))
      button.setAttribute("aria-pressed", String(button.dataset.path === path));
    this.viewTitle.textContent = path || "No file";
    this.view.textContent = path ? this.project.files[path] : "";
  }

  showTab(on) {
    const { tab } = this.hooks;
    if (!on && tab.getAttribute("aria-selected") === "true")
      tab.parentElement.querySelector("[role=tab]:not([hidden])").click(); // back to the first tab
    tab.hidden = !on;
  }
}
