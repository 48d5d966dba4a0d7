// The panels beside the lesson, found in the page and made: Output, the event log ("Every event"),
// Context, Checks and Files. main.js clears them all when a lesson is drawn or a run begins.

import { Output } from "./output.js";
import { EventLog } from "./eventlog.js";
import { Context } from "./context.js";
import { ChecksPanel } from "./checks.js";
import { FilesPanel } from "./files.js";

/**
 * @param {(id: string) => HTMLElement} byTest  an element by its data-testid
 * @param {object} files  the Files panel's hooks (files.js): tab, ask(op), lesson(), busy()
 */
export function findPanels(byTest, files) {
  return {
    output: new Output(byTest("output")),
    events: new EventLog(byTest("trace")),
    context: new Context(byTest("context-view")),
    checks: new ChecksPanel(byTest("checks")),
    files: new FilesPanel(byTest("files"), files),
  };
}
