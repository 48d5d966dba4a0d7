// The page's entry (bundled by esbuild with app.js, sharing its modules): Python's first worker
// starts now (early.js), before the page is parsed and the app bundle evaluated; the app (app.js, modulepreloaded:
// fetched and parsed meanwhile) is evaluated after the first frame, so the lesson the build wrote
// into index.html paints before any of the app runs (issue 23). A tab opened in the background
// draws no frame: then a timer starts it.
import { startEarly } from "./src/page/start/early.js";
import { thisVisit } from "./src/page/start/visit.js";

startEarly();
let started = false;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
const start = () => {
  if (started) return;
  started = true;
  // The lesson files and the app's chunks (CodeMirror's too, which the app imports once the lesson
  // is drawn): preloaded now, not with the page (scripts/build_site.py), so their responses and
  // compiles come after the first paint. CodeMirror's (data-later) only on a first visit, from the
  // network: where this site's service worker serves them from the origin's cache they are asked
  // for when the editors are made, after Python is ready (page/lesson/lazyeditor.js), and preloading them
  // only shared the two cores with Python's start (a warm start 387 -> 370 ms, medians of 7).
  const later = document.querySelector("template[data-role=later-preloads]");
  const cached = thisVisit().warm;
  if (later && cached) for (const link of later.content.querySelectorAll("[data-later]")) link.remove();
  if (later) document.head.append(later.content);
  // The lesson's renderer (markdown-it, DOMPurify) evaluated first, each in a task of its own: with
  // them, app.js's evaluation was one of the page's longest tasks (issue 23: none over 50 ms).
  import("markdown-it")
    .then(nextTask)
    .then(() => import("dompurify"))
    .then(nextTask)
    .then(() => import("./src/page/main.js"));
};
// An async module (index.html): it runs as soon as it is here, before the page is parsed; the app
// waits for the parsed page.
const parsed = () => {
  requestAnimationFrame(() => setTimeout(start, 0));
  setTimeout(start, 250);
};
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", parsed, { once: true });
else parsed();
