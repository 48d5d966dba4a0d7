// What the page says about runs and Python: a run's end in the panels and the status line, a
// fork's end, Python ready or crashed, a lesson opened while a run stops. main.js calls these for
// the session's effects (session.js); the status line's `about` is the ticket of the lesson a
// sentence describes (null: it is about Python).

import { tally, describeTally } from "../panels/checks.js";
import { saveProgress } from "../ui/storage.js";
import { NOT_ISOLATED, noSharedMemory } from "../../shared/gaps.js";

/** What the lesson list keeps of a run. Whether the lesson passed is looplab's to say (its
 * LessonResult.ok, in the result: no cell raised, no check failed, one at least passed), never
 * worked out again here. */
export function progressRecord(result) {
  const counts = tally(result.checks);
  return {
    passed: result.ok === true,
    checks: counts.passed,
    total: result.checks.length,
    at: Date.now(),
    results: result.checks,
  };
}

/** How Python started, for the ready line: from a snapshot, or loaded (and which snapshot was refused). */
function describeStart(how) {
  if (!how) return "";
  // a spare (workerpool.js) was restored while the page was idle, before the restart that took it
  if (how.source)
    return how.spare ? " from a snapshot (a spare, restored while the page was idle)" : " from a snapshot";
  return how.refused.length ? ` (snapshot refused: ${how.refused.join("; ")})` : "";
}

function startedFrom(how) {
  return how && how.source ? `snapshot:${how.source}` : how && how.refused.length ? "load:refused" : "load";
}

/**
 * @param {object} parts  {status, output, checks (ChecksPanel), renderList, mode () -> name}
 */
export function reports({ status, output, checks, renderList, mode, modeNote = () => "" }) {
  let loadingSince = performance.now();
  let restarts = 0; // Python started again in this page: a Stop that had to end it, a crash, a new endpoint

  // A run of the lesson on screen ended: its panels and the status line say how.
  function here(run, result, seconds) {
    const { slug, title } = run.meta;
    if (result.outcome === "crashed") {
      output.note(result.message);
      status.show(`${result.message} Starting Python again…`, "crashed");
      checks.ended();
      return;
    }
    if (result.outcome === "refused") {
      output.note(`${title} did not run: ${result.error}.`);
      checks.ended();
      status.show(`${title} did not run: ${result.error}.`, "stopped", { about: run.ticket });
      return;
    }
    if (result.outcome !== "checked") {
      const restarted = result.outcome === "restarted";
      output.note(
        !restarted
          ? "Stopped: KeyboardInterrupt."
          : result.renewed
            ? "Stopped: the endpoint or key changed in Settings, so Python started again with them; your code is kept. Run it again."
            : result.heard
              ? "Stopped. (Python took the interrupt but kept running, e.g. in an except or finally that caught it, so it was restarted; your code is kept.)"
              : "Stopped. (Python did not answer the interrupt, so it was restarted; your code is kept.)",
      );
      checks.ended();
      status.show(`Stopped ${title} after ${seconds} s.${restarted ? " Starting Python again…" : ""}`, "stopped", {
        about: run.ticket,
      });
      return;
    }
    if (result.error) output.write(result.error + "\n", "error");
    checks.ended(result.checks);
    const record = progressRecord(result);
    saveProgress(slug, record);
    renderList();
    status.show(
      `Done in ${seconds} s · ${title}: ${describeTally(tally(result.checks))}${result.error ? " · your code raised an error (see Output)" : ""}`,
      record.passed ? "passed" : "failed",
      { about: run.ticket },
    );
  }

  // A run of a lesson the learner has left ended (opening the other lesson stopped it): nothing of
  // it is drawn; finished checks are saved; the status line speaks of the lesson on screen.
  function left(run, result, lesson, ticket) {
    if (result.outcome === "crashed") return; // said when it crashed
    if (result.outcome === "checked") {
      saveProgress(run.meta.slug, progressRecord(result));
      renderList();
      status.show(
        `Opened ${lesson.title}; ${run.meta.title} had finished (${describeTally(tally(result.checks))}).`,
        "ready",
        { about: ticket },
      );
    } else {
      const restarted = result.outcome === "restarted";
      status.show(
        `Stopped ${run.meta.title}: you opened ${lesson.title}.${restarted ? " Starting Python again…" : ""}`,
        "stopped",
        { about: ticket },
      );
    }
  }

  return {
    ended({ run, result, here: onScreen, seconds, lesson }, ticket) {
      // bench/startup.py and bench/sdk_browser.py read these
      status.stamp({ runEnded: performance.now(), extrasMs: result.extras ? result.extras.ms : undefined });
      if (onScreen) here(run, result, seconds.toFixed(2));
      else {
        checks.idle();
        left(run, result, lesson, ticket);
      }
    },

    forked({ run, result, here: onScreen }) {
      if (!onScreen) return;
      const f = result.fork;
      const about = { about: run.ticket };
      if (result.outcome === "refused") status.show(`The fork did not run: ${result.error}.`, "stopped", about);
      else if (result.outcome !== "checked") status.show("Stopped the fork.", "stopped", about);
      else if (f)
        status.show(
          `Fork done: ${f.stopped} after ${f.steps} step${f.steps === 1 ? "" : "s"}${f.first_difference ? `; it differs from step ${f.first_difference}` : "; no step differs"}.`,
          "passed",
          about,
        );
      else status.show(result.error || "The fork did not run.", "failed", about);
    },

    /** The status line never goes on describing a lesson that has left the screen. */
    follow({ ticket, meta, run, python }) {
      if (run)
        status.show(`Opened ${meta.title}; stopping the run of ${run.meta.title}…`, "stopping", { about: ticket });
      else if (!status.about || status.about === ticket) return;
      else if (python === "ready")
        status.show(`Ready · ${meta.title} · ${mode()} model${modeNote()}`, "ready", { about: ticket });
      else status.show(`${meta.title} · Python is starting again…`, "loading", { about: ticket });
    },

    starting({ restart }) {
      if (!restart) return;
      loadingSince = performance.now(); // after a Stop that had to terminate, or a crash
      status.stamp({ restarts: ++restarts }); // data-restarts: tests tell an interrupt from a restart by it
    },

    progress({ stage, loaded, total }) {
      status.loading(loaded, total);
      status.show(
        `${stage[0].toUpperCase() + stage.slice(1)}… ${(loaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`,
        "loading",
        { stage },
      );
    },

    ready(info, notIsolated) {
      status.loaded();
      const ms = Math.round(performance.now() - loadingSince);
      status.stamp({
        readyAt: performance.now(),
        workerTimes: JSON.stringify({ ...info.times, start: info.times.start - performance.timeOrigin }),
      });
      if (!performance.getEntriesByName("looplab:ready").length) performance.mark("looplab:ready");
      status.stamp({
        startedFrom: startedFrom(info.start),
        spare: String(Boolean(info.start && info.start.spare)),
        given:
          info.start && info.start.given
            ? Object.keys(info.start.given)
                .filter((part) => info.start.given[part])
                .join(" ")
            : "",
      });
      const lacks = noSharedMemory();
      const gap =
        lacks !== NOT_ISOLATED
          ? lacks // isolated, yet no shared memory (WebKitGTK)
          : `page is not cross-origin isolated${notIsolated ? `: ${notIsolated}` : ""}`;
      const isolation = info.isolated ? "" : ` · Stop restarts Python (${gap})`;
      const fence =
        info.fenced === false
          ? " · Python's network is not fenced in here (no service worker gave its worker a policy): run only code you trust with your key"
          : "";
      status.show(
        `Ready · Python ${info.python} (Pyodide ${info.pyodide}) in ${(ms / 1000).toFixed(1)} s${describeStart(info.start)} · ${mode()} model${modeNote()}${isolation}${fence}`,
        "ready",
        { stage: "ready" },
      );
    },

    crashed({ message, restart }) {
      loadingSince = performance.now();
      const text = restart ? message : `${message} Reload the page to try again.`;
      status.show(text, "crashed");
      status.toast(text);
    },
  };
}
