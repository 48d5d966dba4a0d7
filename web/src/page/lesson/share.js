// Share a link: the lesson and the learner's edited cells (and, when it fits, the run on screen)
// in the part of the address after `#`, which never reaches a server. The JSON is compressed with
// the browser's own CompressionStream("deflate-raw") and written in base64url: no library.
// Never the key or any live setting: the payload holds only the lesson, cells and events, and the
// key is taken out of it once more before it is compressed. A link over 32 KB is not made.
//
// Opening a link shows the shared code in the lesson; the learner's own edits are kept aside
// (storage.js) and come back with one click (the note drawn by showAside).

import { el } from "../ui/dom.js";
import { putShared } from "../ui/storage.js";
import { redact } from "../../shared/redact.js";

export const MAX_LINK = 32 * 1024;
export const SHARE_FORMAT = 1;

function toBase64Url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** A payload as base64url of its deflate-raw JSON. */
export async function encodeShare(payload) {
  return toBase64Url(
    await pipe(new TextEncoder().encode(JSON.stringify(payload)), new CompressionStream("deflate-raw")),
  );
}

/** The payload of a link's `share=` text, checked; throws an Error that says what is wrong. */
export async function decodeShare(text) {
  let payload;
  try {
    payload = JSON.parse(
      new TextDecoder().decode(await pipe(fromBase64Url(text), new DecompressionStream("deflate-raw"))),
    );
  } catch {
    throw new Error("the link is cut short or damaged (its data could not be read)");
  }
  if (!payload || payload.v !== SHARE_FORMAT || typeof payload.lesson !== "string") {
    throw new Error("the link does not hold a Loop Lab lesson");
  }
  const cells = payload.cells && typeof payload.cells === "object" ? payload.cells : {};
  payload.cells = Object.fromEntries(
    Object.entries(cells).filter(([i, s]) => /^\d+$/.test(i) && typeof s === "string"),
  );
  return payload;
}

/** The link for a payload: this page's address with `#/<lesson>?share=<data>`. */
export async function shareLink(base, payload, secret = "") {
  const clean = JSON.parse(redact(JSON.stringify(payload), secret)); // the key never leaves, even typed into a cell
  return `${base}#/${encodeURIComponent(clean.lesson)}?share=${await encodeShare(clean)}`;
}

/** Split a location hash into the lesson slug and the share data (or null). */
export function readHash(hash) {
  const text = hash.replace(/^#\/?/, "");
  const at = text.indexOf("?share=");
  if (at < 0) return { slug: decodeURIComponent(text), share: null };
  return { slug: decodeURIComponent(text.slice(0, at)), share: text.slice(at + 7) };
}

/**
 * The Share button and its dialog.
 * @param {object} parts   {button, dialog} (the dialog holds [data-testid=share-url], [data-role=share-note],
 *                         [data-role=share-copy])
 * @param {object} hooks   payload({withRun}) -> {v, lesson, hash, cells, run?} | null; secret() -> the key
 */
export function setupShare({ button, dialog }, hooks) {
  const url = dialog.querySelector("[data-testid=share-url]");
  const note = dialog.querySelector("[data-role=share-note]");
  const copy = dialog.querySelector("[data-role=share-copy]");
  const base = () => location.href.split("#")[0];

  async function copyLink() {
    try {
      await navigator.clipboard.writeText(url.value);
      note.textContent += " Copied.";
    } catch {
      url.select();
      note.textContent += " Copy it from the box (Ctrl/Cmd+C): this browser did not allow copying.";
    }
  }

  button.addEventListener("click", async () => {
    const withRun = hooks.payload({ withRun: true });
    if (!withRun) return;
    let link = await shareLink(base(), withRun, hooks.secret());
    let what = withRun.run ? "your edited cells and the run shown in the inspector" : "your edited cells";
    if (link.length > MAX_LINK && withRun.run) {
      link = await shareLink(base(), hooks.payload({ withRun: false }), hooks.secret());
      what = "your edited cells (the run is too big for a link: export it from the inspector instead)";
    }
    url.value = "";
    copy.hidden = true;
    if (link.length > MAX_LINK) {
      note.textContent =
        `This link would be ${Math.ceil(link.length / 1024)} KB, over the 32 KB a link may hold. ` +
        "Share the notebook (Download as notebook) or Export progress instead.";
    } else {
      url.value = link;
      copy.hidden = false;
      const count = Object.keys(withRun.cells).length;
      note.textContent = `The link holds ${what}${count ? "" : " (none: you have not changed any cell)"}, ${Math.ceil(link.length / 1024)} KB. Never your key or settings.`;
    }
    dialog.showModal();
    if (!url.value) return;
    url.focus();
    url.select();
    await copyLink();
  });
  copy.addEventListener("click", copyLink);
  dialog.querySelector("[data-role=share-close]").addEventListener("click", () => dialog.close());
}

/** The note over a lesson opened from a link while the learner's own edits are kept aside. */
export function showAside(root, { shared, onSwap }) {
  const swap = el(
    "button",
    { type: "button", class: "ghost", "data-role": "restore-edits" },
    shared ? "Bring back my own edits" : "Show the shared code again",
  );
  swap.addEventListener("click", onSwap);
  const text = shared
    ? "This lesson shows code from a shared link. Your own edits to it are kept aside, nothing lost: "
    : "Your own edits are back. The code from the shared link is kept aside: ";
  root.prepend(el("p", { class: "stale-note aside-note", role: "note", "data-role": "aside-note" }, text, swap));
}

/**
 * Open a shared link: its code goes into the lesson, the learner's own edits are kept aside; the
 * address loses the data, so a reload shows the lesson as it now is. Then the link's run, if any,
 * opens in the inspector.
 * @param {object} page  {lessons, fetchLesson(meta), open(slug) -> Promise (the lesson shown), openRun(run), toast(text, ms)}
 */
export async function openShared(slug, data, { lessons, fetchLesson, open, openRun, toast }) {
  history.replaceState(null, "", `#/${encodeURIComponent(slug)}`);
  const meta = lessons.find((l) => l.slug === slug);
  let payload = null;
  try {
    if (!meta) throw new Error(`it names a lesson this site does not have (${slug})`);
    payload = await decodeShare(data);
    const lesson = await fetchLesson(meta);
    const editable = Object.entries(payload.cells).filter(([i]) => lesson.cells[i]?.editable);
    const originals = Object.fromEntries(editable.map(([i]) => [i, lesson.cells[i].source]));
    putShared(meta.slug, meta.hash, Object.fromEntries(editable), originals);
  } catch (error) {
    toast(`This shared link could not be opened: ${error.message}. The lesson shows as you left it.`, 8000);
    payload = null;
  }
  await open(slug);
  if (payload && payload.run) {
    try {
      openRun(payload.run);
    } catch (error) {
      toast(`The shared link's run could not be opened: ${error.message}`, 6000);
    }
  }
}
