// The page's entry: the app bundle (app.js, modulepreloaded: fetched and parsed meanwhile) is
// evaluated after the first frame, so the lesson the build wrote into index.html paints before any
// of the app runs (issue 23). A tab opened in the background draws no frame: then a timer starts it.
let started = false;
const start = () => {
  if (started) return;
  started = true;
  import("./app.js");
};
requestAnimationFrame(() => setTimeout(start, 0));
setTimeout(start, 250);
