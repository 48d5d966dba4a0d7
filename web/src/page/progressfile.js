// Export progress (a JSON file download) and Import progress (a file chosen by the learner):
// the learner's edits and check results, never the key or the settings.

import { exportAll, importAll } from "./storage.js";

/**
 * Wire the sidebar's Export and Import buttons (`input` is the hidden file input);
 * `imported(count)` follows a good import, `failed(text)` says why a file was refused.
 */
export function setupProgressFile({ exportButton, importButton, input }, { imported, failed }) {
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
      count = importAll(JSON.parse(await file.text()));
    } catch (error) {
      failed(`Could not import ${file.name}: ${error.message}`);
      return;
    }
    imported(count);
  });
}
