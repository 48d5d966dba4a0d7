// What the learner does with a lesson besides running it, wired to its buttons: Reset, Previous and
// Next, a share link, "Download as notebook", and their progress exported or imported (a lesson's
// notebook too, taken in as a link's code is: marked).

import { setupShare } from "./share.js";
import { sharePayload, downloadNotebook } from "./exports.js";
import { setupProgressFile } from "./progressfile.js";
import { notebookCells, takeForeign } from "./foreign.js";
import { fetchJSON } from "./address.js";

/**
 * @param {object} page  {$ (an element by selector), byTest (an element by data-testid), screen
 *   (screen.js), address (address.js), lessons () -> the lesson list, status, shownRun () -> the
 *   inspector's run on view, secret () -> the API key (kept out of what is shared)}
 */
export function setupLessonTools({ $, byTest, screen, address, lessons, status, shownRun, secret }) {
  const on = (element, listener) => element.addEventListener("click", listener);
  on(byTest("reset"), () => screen.reset());
  on($("[data-role=prev]"), () => address.go(-1));
  on($("[data-role=next]"), () => address.go(1));
  const payload = ({ withRun }) => sharePayload(screen.now, withRun ? shownRun() : null);
  setupShare({ button: byTest("share"), dialog: $("[data-role=share-dialog]") }, { payload, secret });
  on($("[data-role=notebook]"), () => downloadNotebook(screen.now, secret()));
  setupProgressFile(
    {
      exportButton: $("[data-role=export]"),
      importButton: $("[data-role=import-button]"),
      input: $("[data-role=import]"),
    },
    {
      imported(count) {
        status.toast(`Imported edits for ${count} lesson${count === 1 ? "" : "s"}.`);
        address.route();
      },
      async notebook(data) {
        const { slug, read } = notebookCells(data);
        history.replaceState(null, "", `#/${encodeURIComponent(slug)}`);
        const meta = lessons().find((l) => l.slug === slug);
        await takeForeign({
          meta,
          slug,
          from: "notebook",
          read,
          lessonOf: (name) => fetchJSON(`lessons/${name}.json`),
        });
        await address.route();
      },
      failed: (text) => status.toast(text),
    },
  );
}
