// "Download as notebook": the lesson as the learner has it, as a Jupyter notebook (nbformat 4.5),
// so it opens in Jupyter, JupyterLite or VS Code. Prose, hints and predict questions become
// markdown cells; code and exercise cells hold the learner's code (their edits); check cells are
// code cells tagged "check"; solutions are left out (the learner's own work is what is shared).
// No DOM: Node runs this in the tests.

const ROLES = { markdown: "markdown", hint: "markdown", predict: "markdown", code: "code", exercise: "code", check: "code" };

/** Notebook source: a list of lines, each but the last ending in "\n" (as Jupyter writes them). */
function lines(text) {
  const parts = String(text).split("\n");
  return parts.map((line, i) => (i < parts.length - 1 ? line + "\n" : line)).filter((line, i, all) => line !== "" || i < all.length - 1);
}

/**
 * @param {object} lesson  lessons/<slug>.json: {slug, title, cells: [{kind, role, source, tags}]}
 * @param {Array<string|undefined>} sources  the learner's source of each cell (undefined: the lesson's)
 * @returns {object} the notebook, ready for JSON.stringify
 */
export function toNotebook(lesson, sources = []) {
  const cells = [{
    cell_type: "markdown", id: "looplab-about", metadata: {},
    source: lines(`*From Loop Lab, lesson ${lesson.slug}, with your edits. It imports \`looplab\`: put Loop Lab's \`py/\` folder on the path (or install the package) before running it.*`),
  }];
  lesson.cells.forEach((cell, index) => {
    const type = ROLES[cell.role];
    if (!type) return; // solutions stay out
    const source = sources[index] ?? cell.source;
    const tags = [...(cell.tags || [])];
    const base = { id: `cell-${index + 1}`, metadata: tags.length ? { tags } : {}, source: lines(source) };
    cells.push(type === "code" ? { cell_type: "code", ...base, execution_count: null, outputs: [] } : { cell_type: "markdown", ...base });
  });
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: "python3", display_name: "Python 3", language: "python" },
      language_info: { name: "python" },
      looplab: { lesson: lesson.slug, title: lesson.title || lesson.slug },
    },
    cells,
  };
}
