// The one small DOM helper the page's modules share.

/** A new element: `attrs` become attributes (`class` the class name; null and undefined are left
 * out), `children` are nodes or text (null and undefined are skipped). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}
