// A lesson as the learner has it, as a Jupyter notebook (nbformat 4.5), so it opens in Jupyter,
// JupyterLite or VS Code. The same cells as looplab/_course/notebook.py's starter notebook (`looplab
// notebook N`; tests/site holds the two to each other): prose, hints and predict questions become
// markdown cells; code, exercise and check cells code cells holding the learner's code (their
// edits); every cell keeps its role as a tag; hints are collapsed, and each solution is a collapsed
// markdown cell holding its code, so running the notebook runs the learner's work, not the answer.
// Wrong-answer cells never appear. Such a notebook can be imported again (fromNotebook): its code
// goes back into the lesson's cells. No DOM: Node runs this in the tests.

const ROLES = {
  markdown: "markdown",
  hint: "markdown",
  predict: "markdown",
  code: "code",
  exercise: "code",
  check: "code",
};

/** Notebook source: a list of lines, each but the last ending in "\n" (as Jupyter writes them). */
function lines(text) {
  const parts = String(text).split("\n");
  return parts
    .map((line, i) => (i < parts.length - 1 ? line + "\n" : line))
    .filter((line, i, all) => line !== "" || i < all.length - 1);
}

/** The notebook's first code cell: the checks that compare with the lesson's solution find it
 * (looplab/_course/notebook.py setup_source, the same text). */
function setupSource(slug) {
  return `from looplab import notebook_lesson\n\nnotebook_lesson("${slug}", globals())  # the checks compare your code with this lesson's solution`;
}

/** A solution shown, not run: its code in a fenced block. */
function solutionMarkdown(source) {
  return `**Solution** (run it in place of your exercise cell to see the checks pass):\n\n\`\`\`python\n${source}\n\`\`\``;
}

/**
 * @param {object} lesson  lessons/<slug>.json: {slug, title, cells: [{kind, role, source, tags}]}
 * @param {Array<string|undefined>} sources  the learner's source of each cell (undefined: the lesson's)
 * @returns {object} the notebook, ready for JSON.stringify
 */
export function toNotebook(lesson, sources = []) {
  const cells = [
    {
      cell_type: "markdown",
      id: "looplab-about",
      metadata: {},
      source: lines(
        `*From Loop Lab, lesson ${lesson.slug}, with your edits. It imports \`looplab\`: \`pip install looplab\` first. Here the model is the lesson's scripted one; approvals, \`input()\` and the local model need Loop Lab's page or a terminal. Hints and solutions are collapsed: click a cell's bar to open it.*`,
      ),
    },
    {
      cell_type: "code",
      id: "looplab-setup",
      metadata: { tags: ["setup"] },
      source: lines(setupSource(lesson.slug)),
      execution_count: null,
      outputs: [],
    },
  ];
  lesson.cells.forEach((cell, index) => {
    const tags = [...(cell.tags || [])];
    if (tags.includes("wrong")) return;
    const solution = cell.role === "solution";
    const type = solution ? "markdown" : ROLES[cell.role];
    if (!type) return;
    const source = solution ? solutionMarkdown(cell.source) : (sources[index] ?? cell.source);
    const metadata = tags.length ? { tags } : {};
    if (solution || cell.role === "hint") metadata.jupyter = { source_hidden: true };
    const base = { id: `cell-${index + 1}`, metadata, source: lines(source) };
    cells.push(
      type === "code"
        ? { cell_type: "code", ...base, execution_count: null, outputs: [] }
        : { cell_type: "markdown", ...base },
    );
  });
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: "python3", display_name: "Python 3", language: "python" },
      language_info: { name: "python" },
      looplab: { lesson: lesson.slug, title: lesson.title || lesson.slug, solution: false },
    },
    cells,
  };
}

/**
 * The code of a notebook made by toNotebook, as the lesson's changed cells: {index: source} for
 * the code and exercise cells whose source differs from the lesson's (cells are found by id).
 */
export function fromNotebook(notebook, lesson) {
  if (!notebook || !Array.isArray(notebook.cells)) throw new Error("the notebook has no cells");
  const cells = {};
  for (const cell of notebook.cells) {
    const found = /^cell-(\d+)$/.exec(cell && cell.id ? String(cell.id) : "");
    if (!found || cell.cell_type !== "code") continue;
    const index = Number(found[1]) - 1;
    const own = lesson.cells[index];
    if (!own || !own.editable) continue;
    const source = Array.isArray(cell.source) ? cell.source.join("") : String(cell.source ?? "");
    if (source !== own.source) cells[index] = source;
  }
  return cells;
}
