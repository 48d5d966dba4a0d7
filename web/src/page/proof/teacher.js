// The teacher's view (#teacher): many records or progress files dropped or chosen → a table of
// learners × lessons (data-testid "teacher-view", a row "teacher-row" a learner), each lesson first as
// recorded, then re-checked by replay in the background (replayer.js, one keyless Python a file)
// with a progress bar; sortable by any column; exportable as CSV. Nothing leaves the browser.

import { el } from "../ui/dom.js";
import { VERDICT_SAYS, progressAsRecord, readRecord, toCSV } from "./progress.js";

const MARK = { holds: "✓", fails: "✗", "results-differ": "≠", reference: "=" };

/**
 * Draw the view into `root`. `replay(record, verdict)` as recordcheck.js's; `download(name, text)`
 * saves a file.
 */
export function renderTeacher(root, { replay, download }) {
  const learners = []; // {name, file, record, verdicts: {slug: verdict}, error}
  let sortBy = { column: 0, ascending: true };
  let queue = Promise.resolve();
  let todo = 0;
  let done = 0;

  const input = el("input", {
    type: "file",
    id: "teacher-files",
    multiple: "",
    accept: "application/json,.json",
    "data-role": "teacher-files",
  });
  const progress = el("progress", {
    max: "1",
    value: "0",
    "aria-label": "Records re-checked",
    "data-role": "teacher-progress",
  });
  const status = el("p", { role: "status", class: "muted", "data-role": "teacher-status" }, "No files yet.");
  const table = el("table", { class: "teacher-table" });
  const csv = el("button", { type: "button", "data-role": "teacher-csv", disabled: "" }, "Export as CSV");
  const drop = el(
    "div",
    { class: "drop-zone" },
    el("p", {}, el("label", { for: "teacher-files" }, "Drop records or progress files here, or choose them: "), input),
    el("p", {}, progress, " ", status),
    el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Learners and lessons" }, table),
    el("p", {}, csv),
  );

  function lessonSlugs() {
    const slugs = [];
    for (const l of learners) for (const e of l.record?.lessons || []) if (!slugs.includes(e.slug)) slugs.push(e.slug);
    return slugs.sort();
  }

  function cellOf(learner, slug) {
    const entry = learner.record?.lessons.find((e) => e.slug === slug);
    if (!entry) return { text: "", value: "" };
    const verdict = learner.verdicts[slug];
    const passed = entry.checks.filter((c) => c.status === "passed").length;
    const counts = `${passed}/${entry.checks.length}`;
    if (!verdict) return { text: `${counts} …`, value: `…${counts}`, title: "recorded; not re-checked yet" };
    return {
      text: `${MARK[verdict.verdict]} ${counts}`,
      value: verdict.verdict,
      title: `${VERDICT_SAYS[verdict.verdict]}${verdict.verdict === "holds" ? "" : `: ${verdict.detail}`}`,
      verdict: verdict.verdict,
    };
  }

  function rows() {
    const slugs = lessonSlugs();
    const out = learners.map((l) => {
      const held = Object.values(l.verdicts).filter((v) => v.verdict === "holds").length;
      return { learner: l, values: [l.name, held, ...slugs.map((s) => cellOf(l, s).value)] };
    });
    const { column, ascending } = sortBy;
    out.sort((a, b) => {
      const x = a.values[column];
      const y = b.values[column];
      const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return ascending ? order : -order;
    });
    return { slugs, rows: out };
  }

  function draw() {
    const { slugs, rows: sorted } = rows();
    const headers = ["Learner", "Lessons that hold", ...slugs].map((label, column) => {
      const button = el("button", { type: "button", class: "sort" }, label);
      button.addEventListener("click", () => {
        sortBy = { column, ascending: sortBy.column === column ? !sortBy.ascending : true };
        draw();
      });
      const sorted_ = sortBy.column === column ? (sortBy.ascending ? "ascending" : "descending") : null;
      return el("th", { scope: "col", "aria-sort": sorted_ }, button);
    });
    const body = sorted.map(({ learner }) => {
      const held = Object.values(learner.verdicts).filter((v) => v.verdict === "holds").length;
      const tampered = Object.values(learner.verdicts).some((v) => v.verdict !== "holds");
      return el(
        "tr",
        { "data-testid": "teacher-row", "data-learner": learner.name, "data-flagged": String(tampered) },
        el(
          "th",
          { scope: "row" },
          learner.name,
          learner.error ? el("span", { class: "muted" }, ` (${learner.error})`) : null,
        ),
        el("td", {}, `${held} of ${learner.record?.lessons.length ?? 0}`),
        ...slugs.map((slug) => {
          const cell = cellOf(learner, slug);
          return el(
            "td",
            { title: cell.title || null, "data-slug": slug, "data-verdict": cell.verdict || null },
            cell.text,
          );
        }),
      );
    });
    table.replaceChildren(
      el(
        "caption",
        {},
        "Each lesson: ✓ holds, ✗ fails, ≠ results do not match the code, = the reference solution; checks ✓ of all.",
      ),
      el("thead", {}, el("tr", {}, ...headers)),
      el("tbody", {}, ...body),
    );
    csv.disabled = !learners.length;
  }

  async function add(files) {
    for (const file of files) {
      let record = null;
      let error = null;
      try {
        const data = JSON.parse(await file.text());
        record = progressAsRecord(data, file.name.replace(/\.json$/, "")) || readRecord(data);
        if (!record.lessons.length) error = "no lesson was run";
      } catch (problem) {
        error = problem.message;
      }
      const learner = { name: record?.name || file.name, file: file.name, record, verdicts: {}, error };
      learners.push(learner);
      if (!record || error) continue;
      todo += record.lessons.length;
      queue = queue.then(() =>
        replay(record, (v) => {
          learner.verdicts[v.slug] = v;
          done++;
          progress.value = done / todo;
          status.textContent = `Re-checked ${done} of ${todo} lessons.`;
          draw();
        }).catch((problem) => {
          learner.error = problem.message;
          draw();
        }),
      );
    }
    status.textContent = `Re-checking ${todo - done} lessons in the background…`;
    draw();
  }

  input.addEventListener("change", () => {
    add([...input.files]);
    input.value = "";
  });
  drop.addEventListener("dragover", (event) => event.preventDefault());
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    add([...event.dataTransfer.files]);
  });
  csv.addEventListener("click", () => {
    const { slugs, rows: sorted } = rows();
    const lines = [["learner", "file", "lessons that hold", ...slugs]];
    for (const { learner } of sorted)
      lines.push([
        learner.name,
        learner.file,
        Object.values(learner.verdicts).filter((v) => v.verdict === "holds").length,
        ...slugs.map((s) => learner.verdicts[s]?.verdict || (cellOf(learner, s).value ? "not re-checked" : "")),
      ]);
    download(`looplab-class-${new Date().toISOString().slice(0, 10)}.csv`, toCSV(lines));
  });
  root.setAttribute("data-testid", "teacher-view");
  root.replaceChildren(
    el("h1", { id: "teacher-title" }, "Teacher's view"),
    el(
      "p",
      {},
      "Every file stays in this browser: nothing is uploaded. Each lesson is re-checked by replay in a Python of its own, on the scripted model.",
    ),
    drop,
    el("p", {}, el("a", { href: "#map" }, "Course map"), " · ", el("a", { href: "#records" }, "Check a record")),
  );
  draw();
}
