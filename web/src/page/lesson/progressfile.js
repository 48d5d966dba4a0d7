// Export progress (a JSON file download) and Import progress (a file chosen by the learner):
// the learner's edits and check results, never the key or the settings. Import also takes a
// notebook downloaded from a lesson (.ipynb). What is imported is code from elsewhere (foreign.js).

import { exportAll, importAll } from "../ui/storage.js";

/**
 * Wire the sidebar's Export and Import buttons (`input` is the hidden file input);
 * `imported(count)` follows a good import, `notebook(data)` takes a notebook (a Promise; it may
 * throw), `failed(text)` says why a file was refused.
 */
export function setupProgressFile({ exportButton, importButton, input }, { imported, notebook, failed }) {
  exportButton.addEventListener("click", () => {
    const blob = new Blob([JSON.stringify(exportAll(), null, 1)], { type: "application/json" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `looplab-progress-${new Date().toISOString().slice(0, 10)}.json`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  });
  importButton.addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    const file = input.files[0];
    input.value = ""; // the same file can be imported again
    if (!file) return;
    let count;
    try {
      const data = JSON.parse(await file.text());
      if (data && typeof data === "object" && "nbformat" in data) return await notebook(data);
      count = importAll(data);
    } catch (error) {
      failed(`Could not import ${file.name}: ${error.message}`);
      return;
    }
    imported(count);
  });
}
