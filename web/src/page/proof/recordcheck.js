// "Check a record" (#records): a record file chosen (data-testid "record-check") is replayed lesson
// by lesson in a keyless Python (replayer.js), each lesson's verdict drawn as it comes
// (data-testid "record-verdict", data-verdict holds|fails|results-differ|reference), under the
// foreign-code banner: a record's code is code from elsewhere and runs scripted only.

import { el } from "../ui/dom.js";
import { showForeign } from "../lesson/foreign.js";
import { PROVES } from "./coursemap.js";
import { VERDICT_SAYS, readRecord } from "./progress.js";

/**
 * Draw the view into `root`. `replay(record, verdict)` replays a record (replayer.js's
 * replayRecord with the page's build and lessons), calling `verdict(v)` for each lesson.
 */
export function renderCheck(root, { replay }) {
  const input = el("input", {
    type: "file",
    id: "record-file",
    accept: "application/json,.json",
    "data-testid": "record-check",
  });
  const status = el("p", { role: "status", class: "muted", "data-role": "record-status" });
  const result = el("div", { class: "record-result" });
  input.addEventListener("change", async () => {
    const file = input.files[0];
    input.value = "";
    if (!file) return;
    result.replaceChildren();
    let record;
    try {
      record = readRecord(JSON.parse(await file.text()));
    } catch (error) {
      status.textContent = `${file.name} cannot be checked: ${error.message}`;
      return;
    }
    const list = el("ol", { class: "record-verdicts", "aria-label": "Each lesson's verdict" });
    result.append(
      el(
        "p",
        {},
        el("strong", {}, record.name || "(no name)"),
        ` · ${record.scope || "course"} · made ${record.made || "(no date)"} · Loop Lab ${record.site || "?"}, lesson format ${record.lessonFormat ?? "?"}`,
      ),
      list,
    );
    showForeign(result, { from: "record" });
    root.dataset.checking = "true";
    status.textContent = `Checking ${record.lessons.length} lessons of ${file.name}: their checks run again on the record's code…`;
    let held = 0;
    try {
      const verdicts = await replay(record, (v) => {
        held += v.verdict === "holds";
        list.append(
          verdictItem(
            v,
            record.lessons.find((e) => e.slug === v.slug),
          ),
        );
        status.textContent = `Checked ${list.children.length} of ${record.lessons.length} lessons…`;
      });
      status.textContent = `${held} of ${verdicts.length} lessons hold.`;
    } catch (error) {
      status.textContent = `The record could not be checked: ${error.message}`;
    } finally {
      delete root.dataset.checking;
    }
  });
  root.replaceChildren(
    el("h1", { id: "records-title" }, "Check a record"),
    el("p", {}, PROVES),
    el("p", {}, el("label", { for: "record-file" }, "A record file (.json) "), input),
    status,
    result,
    el(
      "p",
      {},
      printButton(root),
      " ",
      el("a", { href: "#map" }, "Course map"),
      " · ",
      el("a", { href: "#teacher" }, "Teacher's view"),
    ),
  );
}

/** Print the record as checked, its code shown (a closed <details> prints nothing of its content). */
function printButton(root) {
  const button = el("button", { type: "button", "data-role": "record-print" }, "Print");
  button.addEventListener("click", () => {
    for (const details of root.querySelectorAll("details")) details.open = true;
    print();
  });
  return button;
}

/** One lesson's verdict, with the recorded code to read. */
function verdictItem(v, entry) {
  const code = Object.entries((entry && entry.cells) || {});
  return el(
    "li",
    { "data-testid": "record-verdict", "data-slug": v.slug, "data-verdict": v.verdict, class: `verdict-${v.verdict}` },
    el("strong", {}, `${v.slug}: ${VERDICT_SAYS[v.verdict] || v.verdict}`),
    v.verdict === "holds" ? null : el("p", { class: "verdict-detail" }, v.detail),
    code.length
      ? el(
          "details",
          {},
          el("summary", {}, "The recorded code"),
          ...code.map(([index, source]) => el("pre", { tabindex: "0", "aria-label": `cell ${index}` }, source)),
        )
      : null,
  );
}
