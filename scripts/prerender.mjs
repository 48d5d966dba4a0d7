// The first lesson's opening as static HTML, for index.html (scripts/build_site.py): its prose is
// on screen with the page's first paint, before any script has run. The page's own renderer
// (web/src/page/lesson/lessonview.js) takes these prose blocks as they are (each names its cell:
// data-cell) and draws the rest; markdown-it has the same options here and there, so a block drawn
// again (another visit to the lesson) reads the same.
//
//   node scripts/prerender.mjs web/dist/lessons/<slug>.json   -> HTML on stdout
//
// The opening is the prose and code cells up to the first cell of another kind (a question, an
// exercise): code is shown as plain text, as lessonview.js shows it until its editor is made.
// The HTML comes from our own lessons at build time, and markdown-it escapes any HTML in them.

import { readFileSync } from "node:fs";
import MarkdownIt from "markdown-it";

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: true });
const openLink =
  markdown.renderer.rules.link_open || ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
markdown.renderer.rules.link_open = (tokens, i, options, env, self) => {
  if (!(tokens[i].attrGet("href") || "").startsWith("#")) {
    // as renderMarkdown: other sites open in a new tab
    tokens[i].attrSet("target", "_blank");
    tokens[i].attrSet("rel", "noopener noreferrer");
  }
  return openLink(tokens, i, options, env, self);
};

const lesson = JSON.parse(readFileSync(process.argv[2], "utf8"));
const parts = [];
let first = true;
for (const [index, cell] of lesson.cells.entries()) {
  if (cell.role === "markdown") {
    // elementtiming: bench/startup.py reads when this paragraph was painted (Element Timing API)
    const html = markdown.render(cell.source);
    parts.push(
      `<div class="prose" data-cell="${index}">${first ? html.replace(/<(p|h1|h2)>/, '<$1 elementtiming="looplab-prose">') : html}</div>`,
    );
    first = false;
  } else if (cell.role === "code") {
    parts.push(
      `<section class="cell cell-code" aria-label="Code cell ${index + 1}"><div class="cell-head"><span class="cell-kind">Code</span></div>` +
        `<div class="cell-editor"><pre class="code-placeholder">${markdown.utils.escapeHtml(cell.source)}</pre></div></section>`,
    );
  } else {
    break;
  }
}
process.stdout.write(parts.join("\n"));
