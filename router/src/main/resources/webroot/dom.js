/* DOM helpers: elements from attributes and children, and tables updated row by row. Every value that comes from a
 * client (session keys, reasons) is set as text, never as HTML. */

const SVG_NS = 'http://www.w3.org/2000/svg';

export function $(id) { return document.getElementById(id); }

function setAttrs(node, attrs) {
  if (!attrs) return;
  Object.keys(attrs).forEach(function (k) {
    const v = attrs[k];
    if (v === null || v === undefined || v === false) return;
    if (k === 'text') node.textContent = String(v);
    else if (k === 'onclick') node.addEventListener('click', v);
    else node.setAttribute(k, v === true ? '' : String(v));
  });
}

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

export function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** Appends each child after the node: elements, text, arrays of either; null and false are skipped. */
export function append(node, ...children) {
  children.forEach(function (child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  });
}

export function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

export function chip(label, value, cls, title) {
  return el('span', { 'class': 'chip' + (cls ? ' ' + cls : ''), title: title, 'data-chip': label },
    label, ' ', el('b', { text: value }));
}

/**
 * Makes {@code body}'s rows the given ones, in order, by key: a row equal to the one shown under its key stays (no DOM
 * write, so a reader's selection or hover survives the refresh), a changed one is replaced, a new one inserted, a gone
 * one removed. Each row carries its key in data-key.
 */
export function updateRowsByKey(body, rows) {
  const shown = new Map();
  Array.from(body.children).forEach(function (tr) { shown.set(tr.getAttribute('data-key'), tr); });
  let cursor = body.firstChild;
  rows.forEach(function (row) {
    row.node.setAttribute('data-key', row.key);
    const old = shown.get(row.key);
    const node = old && old.isEqualNode(row.node) ? old : row.node;
    shown.delete(row.key);
    if (old && old !== node) {
      if (old === cursor) cursor = old.nextSibling;
      old.remove();
    }
    if (node !== cursor) body.insertBefore(node, cursor);
    cursor = node.nextSibling;
  });
  shown.forEach(function (tr) { tr.remove(); });
}
