// What a run sends the page, sent on to the panels (a lesson run, a fork, a chat turn): output,
// events to the event log, the Context panel and the inspector, Python's questions (asking.js) to
// the approval dialog, the local model or the answer field of input() (stdin.js); a model reply's
// text as it is written to the inspector and the status line; and `launch`, which tells the session (session.js) a
// run started and, later, that it ended. main.js hands in the parts it built.

import { askLine } from "../panels/stdin.js";

/**
 * @param {object} parts  {store, output, events, context, inspector, mode, approve, status, files (the Files
 *   panel), forward (name): brings a panel ("output", "chat") forward where the learner looks}
 * @returns {{runCallbacks: (ticket: number, eventOptions?: object) => object, launch: (kind: string, promise: Promise, at: number) => Promise}}
 */
export function runWiring({ store, output, events, context, inspector, mode, approve, status, files, forward }) {
  // input() in a lesson run asks in the Output panel, brought forward (a chat turn asks in the turn: chat.js)
  const inOutput = {
    show(line) {
      forward("output");
      output.place(line);
    },
    answered: (text) => output.write(text, "stdin"),
  };

  /** What a run sends goes to the panels while its lesson is on screen; an approval goes to the
   * dialog (the inspector shows the pause), a local model's question to the local model. */
  function runCallbacks(ticket, eventOptions) {
    const onScreen = (draw) => (value) => store.state.shown === ticket && draw(value);
    let step = 0;
    return {
      stdout: onScreen((text) => output.write(text, "stdout")),
      stderr: onScreen((text) => output.write(text, "stderr")),
      delta: onScreen((text) => {
        // a model reply's text as it is written (runner.js)
        inspector.streaming(text);
        status.writing(text);
      }),
      event: onScreen((event) => {
        if (event.type === "model_call") {
          step = event.step;
          status.writing(null);
        }
        events.add(event);
        context.add(event);
        inspector.add(event, eventOptions);
      }),
      ask(kind, request, options) {
        if (kind === "model") return mode.askLocal(request, options);
        if (kind === "stdin") return askLine(inOutput, request, options, status);
        if (kind !== "approval" || store.state.shown !== ticket)
          return { unavailable: `the page has no answer to a "${kind}" question here` };
        inspector.paused(request);
        return Promise.resolve(approve(request, { ...options, step })).finally(() => inspector.resumed());
      },
    };
  }

  // The runner has taken the run (or refused it: then it ends at once, "refused", saying why), then
  // the session hears it started, and later that it ended: every run it hears of ends.
  function launch(kind, promise, at) {
    store.dispatch({ type: "started", kind, at });
    return promise.then((result) => {
      inspector.resumed();
      store.dispatch({ type: "ended", result, at: performance.now() });
      files.refresh(); // what the run did to its lesson's project, read now that Python is free
      return result;
    });
  }

  return { runCallbacks, launch };
}
