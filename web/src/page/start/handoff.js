// The one hand-off from <head> to the app. prestart.js runs inlined in <head>, a bundle of its own,
// and starts Python's first worker there; the app (early.js, when boot.js runs) asks for it. The
// two bundles share no module, so the hand-off is an event on the document: <head> offers, the
// first to ask takes what was offered, and no one after. Nothing global holds the worker.
//
// What is offered: {painted, take(script)}. `painted` resolves once <head> has started its worker
// (on a first visit, at the first paint, a second at most; at once on a warm one); `take(script)`
// gives that worker, once, when it was started for `script` and did not fail to load, else null
// (a worker for another address is ended). Taking it first keeps a later start from happening.

const EVENT = "looplab:first-worker";

/** <head>'s side (prestart.js): `first` goes to the one who asks first. */
export function offer(first) {
  document.addEventListener(EVENT, (event) => event.detail.take(first), { once: true });
}

/** The app's side (early.js): what <head> offered, or null when it offered nothing (or it was taken). */
export function receive() {
  let got = null;
  document.dispatchEvent(new CustomEvent(EVENT, { detail: { take: (first) => (got = first) } }));
  return got;
}
