// The model the learner chooses, set up: the toggle (modes.js), the live model's settings and their
// dialog (settings.js), the local model and its part of the dialog (localmodel.js, localsettings.js)
// and the prices. main.js hands in what they need of the page.

import { modes } from "./modes.js";
import { Settings, setupDialog } from "./settings.js";
import { LocalModel } from "./localmodel.js";
import { setupLocalSettings } from "./localsettings.js";
import { setupPrices } from "./prices.js";
import { setupCatalog } from "./catalogview.js";

/**
 * @param {object} page  {$ (an element by selector), toggle (the select), button (Settings), status,
 *   visit (start/visit.js), foreign () -> where the lesson's code came from (or null), everReady ()
 *   -> whether Python was ever ready, renew () -> whether saving started a new worker, changed () the
 *   model in use changed (the toggle, or Settings saved)}
 * @returns {{settings: Settings, mode: object, prices: () => object, catalog: object}}  mode: modes.js's;
 *   catalog: catalogview.js's
 */
export function setupModels({ $, toggle, button, status, visit, foreign, everReady, renew, changed }) {
  const settings = new Settings();
  const dialog = setupDialog($("[data-role=settings-dialog]"), settings, {
    onSave() {
      mode.show();
      changed();
      // a new endpoint or key: a new worker holds it, under the new policy (worker/transport.js)
      if (renew()) status.show("Settings saved: Python starts again with the new endpoint and key…", "loading");
    },
  });
  let catalog = null; // Settings' model catalog (set up just below)
  const local = new LocalModel((state) => {
    drawLocal(state);
    if (catalog) catalog.refresh();
  }, visit);
  const drawLocal = setupLocalSettings($("[data-role=local-model]"), local);
  catalog = setupCatalog($("[data-role=local-model]"), local, visit);
  const openDialog = () => {
    dialog.open();
    catalog.show(); // the model catalog and the device check, fetched the first time
  };
  const mode = modes({ toggle, settings, local, status, openDialog, isolated: () => visit.isolated, foreign });
  const prices = setupPrices($("[data-role=settings-dialog]"));
  toggle.addEventListener("change", () => {
    mode.change(everReady());
    changed();
  });
  drawLocal(local);
  button.addEventListener("click", openDialog);
  return { settings, mode, prices, catalog };
}
