// Settings → Local model's catalog: the device check's sentence (device-check), the models a
// learner can download (model-catalog, one model-choice each) with where each comes from, one
// button that downloads, pauses, resumes or uses (model-download), a progress bar with bytes,
// speed and time left (model-progress), Cancel (model-cancel), Forget, and the space used.
// Nothing is fetched from a model's host until the learner presses Download.

import { deviceCheck, gb, readCatalog } from "./catalog.js";
import { DownloadError, download, forget, mb, spaceUsed, stored } from "./download.js";
import { hasWebGPU } from "./gpuadapter.js";

/** Facts about this device for the check (catalog.js's deviceCheck). */
async function deviceFacts(isolated) {
  let storageFree;
  try {
    const estimate = await navigator.storage.estimate();
    storageFree = Math.max(0, (estimate.quota || 0) - (estimate.usage || 0));
  } catch {
    storageFree = undefined;
  }
  const cores = navigator.hardwareConcurrency || 1;
  return {
    memory: navigator.deviceMemory,
    storageFree,
    gpu: await hasWebGPU(),
    jspi: typeof WebAssembly.Suspending === "function",
    threads: isolated && cores >= 2 ? Math.max(2, Math.min(8, Math.floor(cores / 2))) : 1,
  };
}

const seconds = (s) => (s >= 90 ? `${Math.round(s / 60)} min` : `${Math.max(1, Math.round(s))} s`);

/**
 * @param {HTMLElement} root  the dialog's local-model fieldset
 * @param {import("./localmodel.js").LocalModel} local
 * @returns {{load(build), show(), refresh()}}  load: build.json came (the catalog's address);
 *   show: Settings opened (the catalog fetched and drawn, the device checked, the first time);
 *   refresh: redraw after the model in use changed
 */
export function setupCatalog(root, local, visit) {
  const list = root.querySelector("[data-role=model-catalog]");
  const check = root.querySelector("[data-role=device-check]");
  const space = root.querySelector("[data-role=model-space]");
  const entries = new Map(); // id -> {model, li, parts, controller, state}
  let catalog = null;

  async function showSpace() {
    const used = await spaceUsed().catch(() => 0);
    const kept = [...entries.values()].filter((e) => e.state === "kept").length;
    space.textContent = `Kept in this browser: ${kept} model${kept === 1 ? "" : "s"}, ${mb(used)}.`;
    space.dataset.bytes = String(used);
  }

  function draw(entry, { state = entry.state, line, progress } = {}) {
    const { parts, model } = entry;
    entry.state = state;
    entry.li.dataset.state = state;
    const inUse = local.catalogId() === model.id && local.engine;
    parts.button.textContent = {
      none: `Download ${mb(model.size)}`,
      partial: `Resume (${mb(entry.partial)} of ${mb(model.size)})`,
      failed: entry.partial ? `Resume (${mb(entry.partial)} of ${mb(model.size)})` : `Download ${mb(model.size)}`,
      downloading: "Pause",
      verifying: "Verifying…",
      kept: inUse ? "In use" : "Use",
    }[state];
    parts.button.disabled = state === "verifying" || (state === "kept" && Boolean(inUse));
    parts.cancel.hidden =
      !["downloading", "partial", "failed"].includes(state) || (state === "failed" && !entry.partial);
    parts.forget.hidden = state !== "kept";
    parts.progress.hidden = !["downloading", "verifying", "partial"].includes(state);
    if (progress !== undefined) {
      const percent = Math.floor((progress / model.size) * 100);
      parts.progress.value = percent;
      parts.progress.setAttribute("aria-valuenow", String(percent));
    }
    if (line !== undefined) parts.line.textContent = line;
  }

  function element(tag, props = {}, children = []) {
    const node = Object.assign(document.createElement(tag), props);
    node.append(...children);
    return node;
  }

  function entryFor(model) {
    const host = new URL(model.download).host;
    const ours = host === location.host;
    const button = element("button", { type: "button" });
    button.dataset.testid = "model-download";
    const cancel = element("button", { type: "button", textContent: "Cancel", hidden: true });
    cancel.dataset.testid = "model-cancel";
    const forgetButton = element("button", { type: "button", textContent: "Forget", hidden: true });
    forgetButton.dataset.role = "model-forget";
    const progress = element("progress", { max: 100, value: 0, hidden: true });
    progress.dataset.testid = "model-progress";
    progress.setAttribute("aria-valuenow", "0");
    progress.setAttribute("aria-label", `Downloading ${model.name}`);
    const line = element("p", { className: "model-line" });
    line.setAttribute("role", "status");
    line.setAttribute("aria-live", "polite");
    const licence = element("a", {
      href: model.licenceUrl,
      textContent: model.licence,
      target: "_blank",
      rel: "noopener",
    });
    const li = element("li", { className: "model-entry" }, [
      element("p", { className: "model-head" }, [
        element("b", { textContent: model.name }),
        ` · ${model.parameters} parameters · ${model.quantisation} · ${mb(model.size)} · needs about ${gb(model.memory)} of memory · `,
        licence,
      ]),
      element("p", { className: "muted", textContent: model.goodAt }),
      element("p", {
        className: "muted model-source",
        textContent: ours
          ? `Downloads ${model.file} (${mb(model.size)}) from this site.`
          : `Downloads ${model.file} (${mb(model.size)}) from ${host} — the first request this page makes to another host without a key.`,
      }),
      element("div", { className: "dialog-row model-actions" }, [button, cancel, forgetButton]),
      progress,
      line,
    ]);
    li.dataset.testid = "model-choice";
    li.dataset.model = model.id;
    const entry = {
      model,
      li,
      parts: { button, cancel, forget: forgetButton, progress, line },
      state: "none",
      partial: 0,
    };
    button.addEventListener("click", () => press(entry));
    cancel.addEventListener("click", () => cancelDownload(entry));
    forgetButton.addEventListener("click", () => forgetModel(entry));
    return entry;
  }

  async function press(entry) {
    if (entry.state === "downloading") {
      entry.controller.abort(); // pause: the whole parts stay
      return;
    }
    if (entry.state === "kept") {
      const kept = await stored(entry.model);
      if (kept.kept) use(entry, kept.kept);
      return;
    }
    start(entry);
  }

  async function start(entry) {
    const { model } = entry;
    const controller = new AbortController();
    entry.controller = controller;
    draw(entry, { state: "downloading", line: `Asking ${new URL(model.download).host} for ${model.file}…` });
    try {
      const blob = await download(model, {
        signal: controller.signal,
        onProgress({ state, bytes, total, speed }) {
          entry.partial = bytes;
          if (state === "verifying") {
            draw(entry, { state, progress: total, line: `Checking its sha256 against the catalog's (${mb(total)})…` });
            return;
          }
          const left = speed > 0 ? ` · ${seconds((total - bytes) / speed)} left` : "";
          draw(entry, {
            progress: bytes,
            line: `${mb(bytes)} of ${mb(total)} · ${(speed / 1e6).toFixed(1)} MB/s${left}`,
          });
        },
      });
      entry.partial = 0;
      draw(entry, { state: "kept", line: `Verified and kept in this browser (sha256 ${model.sha256.slice(0, 12)}…).` });
      use(entry, blob);
    } catch (error) {
      const kept = await stored(model).catch(() => ({ partial: 0 }));
      entry.partial = kept.partial;
      if (controller.signal.aborted) {
        draw(entry, {
          state: entry.cancelled ? "none" : "partial",
          progress: entry.partial,
          line: entry.cancelled
            ? "Cancelled: nothing of it is kept."
            : `Paused at ${mb(entry.partial)}: Resume goes on from there.`,
        });
      } else {
        const text = error instanceof DownloadError ? error.message : `The download failed: ${error.message || error}`;
        draw(entry, { state: "failed", progress: entry.partial, line: text });
      }
      entry.cancelled = false;
    }
    showSpace();
  }

  async function cancelDownload(entry) {
    if (entry.state === "downloading") {
      entry.cancelled = true;
      entry.controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await forget(entry.model);
    entry.partial = 0;
    draw(entry, { state: "none", progress: 0, line: "Cancelled: nothing of it is kept." });
    showSpace();
  }

  async function forgetModel(entry) {
    await local.forgetCatalog(entry.model.id);
    await forget(entry.model);
    draw(entry, {
      state: "none",
      progress: 0,
      line: `Forgotten: ${entry.model.name} is no longer kept in this browser.`,
    });
    showSpace();
  }

  function use(entry, blob) {
    local.useKept(entry.model, blob).finally(() => {
      for (const other of entries.values()) draw(other);
    });
    for (const other of entries.values()) draw(other);
  }

  let address = null; // build.json's modelCatalog, made absolute
  let wanted = false; // Settings was opened
  let filled = null; // the catalog drawn (once)

  /** build.json came: where the catalog is (nothing is fetched until Settings opens). */
  function load(build) {
    address = new URL(build.modelCatalog || "models.json", document.baseURI).href;
    if (wanted) show();
  }

  /** Settings opened: fetch the catalog and check the device, the first time. */
  function show() {
    wanted = true;
    if (address && !filled) {
      check.textContent = "Checking what this device can run…";
      filled = fill();
    }
  }

  async function fill() {
    try {
      const response = await fetch(address, { cache: "no-cache", credentials: "omit" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      catalog = readCatalog(await response.json(), address);
    } catch (error) {
      check.textContent = /catalog/.test(error.message)
        ? error.message
        : `The model catalog (${address}) could not be loaded (${error.message}): pick a .gguf file instead.`;
      return;
    }
    for (const model of catalog.models) {
      const entry = entryFor(model);
      entries.set(model.id, entry);
      list.append(entry.li);
      const kept = await stored(model).catch(() => ({ kept: null, partial: 0 }));
      entry.partial = kept.partial;
      draw(entry, { state: kept.kept ? "kept" : kept.partial ? "partial" : "none", progress: kept.partial });
    }
    showSpace();
    const verdict = deviceCheck(await deviceFacts(visit.isolated), catalog);
    check.textContent = verdict.sentence;
    check.dataset.tier = verdict.tier;
    for (const entry of entries.values()) {
      const why = verdict.fits[entry.model.id];
      if (entry.model.id === verdict.recommended) entry.li.dataset.recommended = "true";
      if (why) entry.parts.line.textContent ||= `Too big for this device: ${why}.`;
    }
  }

  /** Redraw the buttons (the model in use changed). */
  function refresh() {
    for (const entry of entries.values()) draw(entry);
  }
  return { load, show, refresh };
}
