// The Settings dialog's "Local model" part: a .gguf file from disk (local-model-file), or a URL on
// the learner's own host, and Forget. These act at once, not on Save: a model is a file, not a
// setting. The status (local-model-status) follows the LocalModel: loading, then the model's
// name, size and measured speed, or what went wrong. The temperature is an ordinary setting.

/**
 * @param {HTMLElement} root   the dialog's local-model fieldset
 * @param {import("./localmodel.js").LocalModel} model
 * @returns {(status: {state, text}) => void}  draws a status (give it to the LocalModel)
 */
export function setupLocalSettings(root, model) {
  const $ = (role) => root.querySelector(`[data-role=${role}]`);
  const file = $("local-file");
  const url = root.querySelector("input[name=localUrl]");
  const fetchButton = $("local-fetch");
  const forget = $("local-forget");
  const status = $("local-status");

  const busy = (on) => {
    for (const control of [file, fetchButton, forget]) control.disabled = on;
  };

  file.addEventListener("change", () => {
    const picked = file.files && file.files[0];
    if (!picked) return;
    busy(true);
    model
      .pick(picked)
      .catch(() => {})
      .finally(() => {
        busy(false);
        file.value = ""; // the same file may be picked again
      });
  });

  fetchButton.addEventListener("click", () => {
    const address = url.value.trim();
    if (!/^https?:\/\//.test(address)) {
      draw({
        state: "failed",
        text: "The model's URL must start with http:// or https://, e.g. http://localhost:8080/models/model.gguf.",
      });
      return;
    }
    busy(true);
    model
      .fetchFrom(address)
      .catch(() => {})
      .finally(() => busy(false));
  });

  forget.addEventListener("click", () => {
    busy(true);
    model.forget().finally(() => busy(false));
  });

  function draw({ state, text, busy = false, loads = 0 }) {
    status.dataset.state = state;
    status.dataset.busy = String(busy); // a reply is being written (Stop aborts it)
    status.dataset.loads = String(loads); // engines started in this page
    status.textContent = text;
  }
  return draw;
}
