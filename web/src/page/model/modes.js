// The model toggle (scripted, local, live): what it shows, what switching does, what a run in each
// mode needs before it starts, and Python's questions to the local model (localmodel.js).

import { modeFor } from "../lesson/foreign.js";
import { CAN_SUSPEND, NO_STREAMING, NOT_ISOLATED, noSharedMemory } from "../../shared/gaps.js";

/**
 * @param {object} parts  {toggle (the select), settings (settings.js), local (LocalModel), status,
 *                        openDialog () (the Settings dialog), isolated () -> bool (the runner's page)}
 */
export function modes({ toggle, settings, local, status, openDialog, isolated, foreign = () => null }) {
  // The lesson on screen runs scripted while its code came from elsewhere (foreign.js).
  const current = () => modeFor(foreign(), settings.mode);

  function show() {
    toggle.value = settings.mode;
    toggle.dataset.mode = settings.mode;
    document.body.dataset.mode = settings.mode;
  }

  /** What the mode on cannot do in this browser, as " (…)" after its name, or "". */
  function note() {
    return settings.live && settings.stream && !CAN_SUSPEND ? ` (${NO_STREAMING})` : "";
  }

  function summary() {
    if (settings.live) return `live model ${settings.values.model} at ${settings.values.baseUrl}${note()}`;
    if (settings.mode === "local") return `local model: ${local.text}`;
    return "scripted model";
  }

  // Local mode: the model kept in this browser loads at once (no picker); with none kept, or on a
  // page that cannot wait for it (not cross-origin isolated), the learner is told what to do.
  function useLocal() {
    if (!isolated()) {
      status.toast(
        "The local model needs a cross-origin isolated page: reload it (Loop Lab isolates itself on the second load), or serve it with `make serve`.",
        10000,
      );
    }
    local.ensure().then((ready) => {
      if (!ready && settings.mode === "local" && local.state !== "loading") openDialog();
    });
  }

  return {
    show,
    useLocal,
    name: current,
    current,
    note,

    /** The model a run of the lesson on screen uses, in a few words: "live model gpt-4o-mini". */
    inUse() {
      const mode = current();
      if (mode === "live") return `live model ${settings.values.model}`;
      return `${mode} model`;
    },

    /** The toggle changed; `pythonReady` says whether the ready line may be redrawn. */
    change(pythonReady) {
      settings.setMode(toggle.value);
      show();
      if (settings.live && settings.problem()) openDialog();
      if (settings.mode === "local") useLocal();
      if (pythonReady) status.show(`Ready · ${summary()}`, "ready");
    },

    /** Whether a run may start in this mode now; when not, the learner is told why. */
    canRun(ticket) {
      const mode = current();
      if (mode === "live") {
        const problem = settings.problem();
        if (problem) {
          status.toast(`Live model: ${problem}.`);
          openDialog();
          return false;
        }
      }
      if (mode === "local" && !isolated()) {
        const gap = noSharedMemory();
        const text =
          gap !== NOT_ISOLATED
            ? `The local model needs shared memory (Python waits for its reply on it), and ${gap}: use Safari, Chrome or Firefox for it.`
            : "The local model needs a cross-origin isolated page (Python waits for its reply on shared memory): reload the page (Loop Lab isolates itself on the second load), or serve it with `make serve`.";
        status.toast(text, 10000);
        status.show(`Local model: ${text}`, "stopped", { about: ticket });
        return false;
      }
      if (mode === "local" && !local.available()) {
        status.toast("Local model: pick a .gguf file in Settings first.");
        openDialog();
        return false;
      }
      return true;
    },

    // Python's "model" question (looplab/models/local.py): only a run that can wait gets the engine.
    askLocal(request, { blocking, signal, delta = null }) {
      if (!blocking) return { unavailable: "the page is not cross-origin isolated" };
      if (current() !== "local") return { error: "the model toggle is not on local", kind: "setup" };
      return local.answer(request, {
        signal,
        temperature: settings.temperature,
        onText: settings.stream ? delta : null,
      });
    },
  };
}
