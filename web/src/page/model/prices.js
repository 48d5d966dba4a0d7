// The prices per million tokens the learner may set in Settings, for the cost the inspector shows
// (none by default). Kept beside the live settings (storage.js), never with the key.

import { loadPrices, savePrices } from "../ui/storage.js";

/** The two price fields of the settings dialog: filled when it opens, saved with Save. */
export function setupPrices(dialog) {
  const form = dialog.querySelector("form");
  const field = (name) => form.elements.namedItem(name);
  const fill = () => {
    const { input, output } = loadPrices();
    field("priceInput").value = input ? String(input) : "";
    field("priceOutput").value = output ? String(output) : "";
  };
  fill();
  form.addEventListener("submit", () =>
    savePrices({ input: field("priceInput").value, output: field("priceOutput").value }),
  );
  dialog.addEventListener("close", fill); // Cancel leaves the saved prices as they were
  return loadPrices;
}
