// The Context panel: what the model was sent on its last call.

import { el } from "../ui/dom.js";
import { messageItem } from "../inspector/steps.js";

/** What the model saw on its last call: the model_call event's `context`. */
export class Context {
  constructor(root) {
    this.root = root;
    this.clear();
  }

  clear() {
    this.root.replaceChildren(
      el("p", { class: "muted" }, "The messages the model is sent appear here when a lesson calls a model."),
    );
  }

  add(event) {
    if (event.type === "model_call") this.show(event);
  }

  show(call) {
    const messages = call.context || [];
    const tokens = call.context_tokens !== undefined ? ` (${call.context_tokens} tokens)` : "";
    const head = el(
      "p",
      { class: "ctx-head" },
      `Step ${call.step ?? "?"}: `,
      `${messages.length} messages${tokens} and ${call.tools ?? 0} tools sent to the model`,
    );
    const list = el("ol", { class: "ctx" });
    for (const message of messages) list.append(messageItem(message));
    this.root.replaceChildren(head, list);
  }
}
