// Building and updating DOM: h() makes an element from plain data; mount() swaps a container's content and
// gives the keyboard focus back to the element with the same data-key (a re-render must not lose it);
// morph() updates a container's content in place to match a newly built tree (the table page's redraw).
//
// Listeners given to h() as on<event> attributes (and to on()) live in the element's handler table, read by
// one shared listener per event type: morph() keeps a live element and hands it the new tree's table, so a
// kept element calls the handlers of the latest render (closures over the latest state), never stale ones.

const HANDLERS = Symbol("handlers");

export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) on(element, name.slice(2), value);
    else if (name === "class") element.className = value;
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

// Listen for `type` on `element` through its handler table (one handler a type, as an on<event> attribute).
export function on(element, type, handler) {
  (element[HANDLERS] || (element[HANDLERS] = {}))[type] = handler;
  element.addEventListener(type, dispatch); // the same function: added once per element and type
}

function dispatch(event) {
  const handler = this[HANDLERS] && this[HANDLERS][event.type];
  if (handler) return handler.call(this, event);
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function mount(container, ...children) {
  const focused = document.activeElement;
  const key = focused && container.contains(focused) ? focused.dataset.key : undefined;
  container.replaceChildren();
  append(container, children);
  refocus(container, key);
}

function refocus(container, key) {
  if (key === undefined || (document.activeElement && document.activeElement.dataset &&
                            document.activeElement.dataset.key === key)) return;
  const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (again) again.focus();
}

// Make the container's content match `children` (built with h(), not yet in the page), changing only what
// differs: an element of the same tag (and the same data-key or id, where it has one) is kept, its attributes,
// listeners and children updated; anything else is replaced or removed. So unchanged cards, buttons and the
// board stay the same elements (the browser restyles and lays out only what changed) and keep the focus.
export function morph(container, ...children) {
  const focused = document.activeElement;
  const key = focused && container.contains(focused) && focused.dataset ? focused.dataset.key : undefined;
  const fresh = document.createDocumentFragment();
  append(fresh, children);
  morphChildren(container, fresh);
  refocus(container, key); // only where the focused element itself had to go (its tag changed)
}

function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  return node.getAttribute("data-key") ?? (node.id || null);
}

function sameKind(live, next) {
  return live.nodeType === next.nodeType && live.nodeName === next.nodeName && keyOf(live) === keyOf(next);
}

// The live children of `live` follow the children of `next` in order. A keyed new child takes the first live
// child with its key (moved if it is elsewhere); an unkeyed one takes the live child in its place if that is
// of the same kind and unkeyed. A kept element is patched; the new child goes in where none fits.
function morphChildren(live, next) {
  const keyed = new Map(); // key -> the live children with it, in order (a card twice on a pile: both)
  for (let child = live.firstChild; child; child = child.nextSibling) {
    const key = keyOf(child);
    if (key === null) continue;
    const same = keyed.get(key);
    if (same) same.push(child);
    else keyed.set(key, [child]);
  }
  const wanted = new Map(); // key -> how many new children still to place have it
  for (let child = next.firstChild; child; child = child.nextSibling) {
    const key = keyOf(child);
    if (key !== null) wanted.set(key, (wanted.get(key) || 0) + 1);
  }
  let cursor = live.firstChild;
  for (let child = next.firstChild; child;) {
    const following = child.nextSibling; // taken before `child` may move into the live tree
    const key = keyOf(child);
    // Live children whose key no new child still wants go now (so that a kept one after them need not move).
    while (cursor && keyOf(cursor) !== null && !wanted.get(keyOf(cursor))) {
      const gone = cursor;
      cursor = cursor.nextSibling;
      gone.remove();
    }
    let match = null;
    if (key !== null) {
      wanted.set(key, wanted.get(key) - 1);
      const candidates = keyed.get(key);
      if (candidates && candidates.length && candidates[0].nodeName === child.nodeName) match = candidates.shift();
    } else if (cursor && sameKind(cursor, child)) {
      match = cursor;
    }
    if (match) {
      if (match === cursor) cursor = cursor.nextSibling;
      else live.insertBefore(match, cursor);
      patch(match, child);
    } else {
      live.insertBefore(child, cursor);
    }
    child = following;
  }
  while (cursor) { // what is left after the last new child
    const gone = cursor;
    cursor = cursor.nextSibling;
    gone.remove();
  }
}

// Make the kept node `live` look and act as `next` (same tag, or both text).
function patch(live, next) {
  if (live.nodeType !== Node.ELEMENT_NODE) {
    if (live.nodeValue !== next.nodeValue) live.nodeValue = next.nodeValue;
    return;
  }
  for (const { name } of Array.from(live.attributes)) {
    if (!next.hasAttribute(name)) live.removeAttribute(name);
  }
  for (const { name, value } of Array.from(next.attributes)) {
    if (live.getAttribute(name) === value) continue;
    if (name === "style") live.style.cssText = next.style.cssText; // through the CSSOM: the page's CSP
    else live.setAttribute(name, value); // refuses style attributes set as attributes
  }
  const handlers = next[HANDLERS];
  if (handlers || live[HANDLERS]) {
    live[HANDLERS] = handlers;
    for (const type of Object.keys(handlers || {})) live.addEventListener(type, dispatch);
  }
  morphChildren(live, next);
  // What a person changed in a form control is its state, not an attribute: the new tree's state wins, as a
  // rebuild would have it.
  if ("value" in next && (live.tagName === "INPUT" || live.tagName === "SELECT" || live.tagName === "TEXTAREA") &&
      live.value !== next.value) live.value = next.value;
  if (live.tagName === "INPUT" && live.checked !== next.checked) live.checked = next.checked;
}
