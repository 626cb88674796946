// Building and updating DOM. h() (and svg() for SVG) describe an element as plain data; mount() makes the
// elements and swaps a container's content for them; morph() updates a container's live elements in place to
// match a description (the table page's redraw: only what changed is touched). Both give the keyboard focus
// back to the element with the same data-key if it had to go.
//
// A description is { tag, ns, attrs, style, on, children }: attrs are strings by name (data-key and id, where
// given, are the element's identity from one redraw to the next), style is set through the CSSOM (the page's
// Content-Security-Policy refuses style attributes), on holds the listeners by event type, children are
// descriptions, strings (text) or real nodes. Listeners live in the element's handler table, read by one
// shared listener per event type: morph() hands a kept element the latest handlers (closures over the latest
// state), never stale ones.
//
// A description may carry a `memo` (given as an attribute, never put in the page): a value that stands for
// everything its subtree shows. When morph() keeps an element whose last memo and key equal the new ones, it
// skips the element and all it holds (no attribute, listener or child is read or written): a redraw walks only
// the parts of the table that changed. So a memo must change whenever anything in the subtree would, its
// listeners included (they keep acting as when the memo was drawn). An element changed outside morph()
// (addClass, setAttr, markPending) loses its memo and its ancestors' theirs: the next morph() patches it again.

const HTML = "http://www.w3.org/1999/xhtml";
const SVG = "http://www.w3.org/2000/svg";
const HANDLERS = Symbol("handlers");
const STYLE = Symbol("style");
const ATTRS = Symbol("attrs"); // the attributes a live element was last given (reading them back costs more)
const MEMO = Symbol("memo"); // the memo of the description a live element was last drawn from

export function h(tag, attrs = {}, ...children) {
  return describe(tag, HTML, attrs, children);
}

export function svg(tag, attrs = {}, ...children) {
  return describe(tag, SVG, attrs, children);
}

function describe(tag, ns, given, children) {
  const node = { tag, ns, attrs: {}, style: null, on: null, children: [], memo: undefined };
  for (const name in given) {
    const value = given[name];
    if (value === undefined || value === null || value === false) continue;
    if (name === "memo") node.memo = value;
    else if (name.startsWith("on")) (node.on || (node.on = {}))[name.slice(2)] = value;
    else if (name === "style") node.style = value; // { gridRow: "2", ... }
    else node.attrs[name] = value === true ? "" : String(value);
  }
  flatten(children, node.children);
  return node;
}

function flatten(children, into) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) flatten(child, into);
    else into.push(typeof child === "object" ? child : String(child));
  }
  return into;
}

function isDescription(node) {
  return node !== null && typeof node === "object" && typeof node.tag === "string" && !(node instanceof Node);
}

// Add a class (to a description, or to a live element: its next morph reads its attributes from the page).
export function addClass(node, name) {
  if (isDescription(node)) {
    node.attrs.class = node.attrs.class ? `${node.attrs.class} ${name}` : name;
  } else {
    node.classList.add(name);
    changedOutside(node);
  }
  return node;
}

// Set an attribute (of a description, or of a live element, as addClass).
export function setAttr(node, name, value) {
  if (isDescription(node)) {
    node.attrs[name] = String(value);
  } else {
    node.setAttribute(name, String(value));
    changedOutside(node);
  }
  return node;
}

// A live element changed outside morph(): its next morph reads its attributes from the page, and neither it
// nor anything holding it is skipped for an unchanged memo.
export function changedOutside(element) {
  element[ATTRS] = null;
  for (let at = element; at; at = at.parentNode) at[MEMO] = undefined;
}

// Listen for `type` on a live element through its handler table (one handler a type, as an on<event> attribute).
export function on(element, type, handler) {
  (element[HANDLERS] || (element[HANDLERS] = {}))[type] = handler;
  element.addEventListener(type, dispatch); // the same function: added once per element and type
}

function dispatch(event) {
  const handler = this[HANDLERS] && this[HANDLERS][event.type];
  if (handler) return handler.call(this, event);
}

// The live node for a description (or a string, or a real node).
export function create(node) {
  if (typeof node === "string") return document.createTextNode(node);
  if (!isDescription(node)) return node;
  const element = node.ns === HTML ? document.createElement(node.tag) : document.createElementNS(node.ns, node.tag);
  for (const name in node.attrs) element.setAttribute(name, node.attrs[name]);
  element[ATTRS] = node.attrs;
  element[MEMO] = node.memo;
  if (node.style) setStyle(element, node.style);
  if (node.on) for (const type in node.on) on(element, type, node.on[type]);
  for (const child of node.children) element.append(create(child));
  return element;
}

function setStyle(element, style) {
  const before = element[STYLE];
  if (before) for (const name in before) if (!style || !(name in style)) element.style[name] = "";
  if (style) for (const name in style) if (element.style[name] !== String(style[name])) element.style[name] = style[name];
  element[STYLE] = style;
}

export function mount(container, ...children) {
  const key = focusedKey(container);
  container.replaceChildren(...flatten(children, []).map(create));
  refocus(container, key);
}

// Make the container's content match `children` changing only what differs: an element of the same tag (and
// the same data-key or id, where it has one) is kept, its attributes, listeners and children updated;
// anything else is made anew or removed. So unchanged cards, buttons and the board stay the same elements
// (the browser restyles and lays out only what changed) and keep the keyboard focus.
export function morph(container, ...children) {
  const key = focusedKey(container);
  morphChildren(container, flatten(children, []));
  refocus(container, key); // only where the focused element itself had to go
}

function focusedKey(container) {
  const focused = document.activeElement;
  return focused && focused !== container && container.contains(focused) && focused.dataset
    ? focused.dataset.key : undefined;
}

function refocus(container, key) {
  if (key === undefined) return;
  const focused = document.activeElement;
  if (focused && focused.dataset && focused.dataset.key === key && container.contains(focused)) return;
  const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (again) again.focus();
}

function liveKey(node) {
  if (node.nodeType !== 1) return null; // an element's key: its data-key, else its id; text has none
  const attrs = node[ATTRS];
  return attrs ? attrs["data-key"] ?? (attrs.id || null) : node.getAttribute("data-key") ?? (node.id || null);
}

function newKey(node) {
  if (!isDescription(node)) return null;
  return node.attrs["data-key"] ?? (node.attrs.id || null);
}

// Whether the live node can become the new one: the same tag and namespace, or both text.
function fits(live, node) {
  if (typeof node === "string") return live.nodeType === 3;
  if (!isDescription(node)) return false;
  return live.nodeType === 1 && live.localName === node.tag && live.namespaceURI === node.ns;
}

// The live children of `parent` follow `children` in order. A keyed new child takes the first live child with
// its key (moved if it is elsewhere); any other takes the live child in its place if that fits and has no key
// a new child still wants (so the card that was "play G3" and is now "discard G3" stays one element, and keeps
// the focus). A kept node is patched; else the new child is made and put in.
function morphChildren(parent, children) {
  let keyed = null; // key -> the live children with it, in order (a card twice on a pile: both)
  for (let child = parent.firstChild; child; child = child.nextSibling) {
    const key = liveKey(child);
    if (key === null) continue;
    keyed = keyed || new Map();
    const same = keyed.get(key);
    if (same) same.push(child);
    else keyed.set(key, [child]);
  }
  let wanted = null; // key -> how many new children still to place have it
  if (keyed) {
    wanted = new Map();
    for (const child of children) {
      const key = newKey(child);
      if (key !== null) wanted.set(key, (wanted.get(key) || 0) + 1);
    }
  }
  let cursor = parent.firstChild;
  let cursorKey = cursor ? liveKey(cursor) : null;
  const advance = () => {
    cursor = cursor.nextSibling;
    cursorKey = cursor ? liveKey(cursor) : null;
  };
  const drop = () => { // a live child no new child wants
    const gone = cursor;
    advance();
    gone.remove();
  };
  for (const child of children) {
    const key = newKey(child);
    const candidates = key !== null && keyed ? keyed.get(key) : null;
    let match = null;
    if (candidates && candidates.length && fits(candidates[0], child)) {
      match = candidates.shift();
      while (cursor !== match && cursorKey !== null && !wanted.get(cursorKey)) drop(); // so it need not move
    } else { // by place: the live child here, if it fits and no new child wants its key
      while (cursorKey !== null && !wanted.get(cursorKey) && !fits(cursor, child)) drop();
      if (cursor && fits(cursor, child) && (cursorKey === null || !wanted.get(cursorKey))) match = cursor;
    }
    if (key !== null && wanted && wanted.has(key)) wanted.set(key, wanted.get(key) - 1);
    if (match) {
      if (match === cursor) advance();
      else parent.insertBefore(match, cursor);
      patch(match, child);
    } else if (child === cursor) { // a real node, already in its place
      advance();
    } else {
      parent.insertBefore(create(child), cursor);
    }
  }
  while (cursor) { // what is left after the last new child
    const gone = cursor;
    cursor = cursor.nextSibling;
    gone.remove();
  }
}

// Make the kept node `live` look and act as the description `node` (or hold its text).
function patch(live, node) {
  if (typeof node === "string") {
    if (live.nodeValue !== node) live.nodeValue = node;
    return;
  }
  if (node.memo !== undefined && live[MEMO] === node.memo && liveKey(live) === newKey(node)) return; // as drawn
  const attrs = node.attrs;
  const before = live[ATTRS];
  if (before) { // as this page last drew it (an attribute a person changes, a details' open, stays so)
    for (const name in before) if (!(name in attrs)) live.removeAttribute(name);
    for (const name in attrs) if (before[name] !== attrs[name]) live.setAttribute(name, attrs[name]);
  } else { // made or marked elsewhere: as it is in the page
    for (const name of live.getAttributeNames()) {
      if (!(name in attrs) && name !== "style") live.removeAttribute(name);
    }
    for (const name in attrs) if (live.getAttribute(name) !== attrs[name]) live.setAttribute(name, attrs[name]);
  }
  live[ATTRS] = attrs;
  live[MEMO] = node.memo;
  if (node.style || live[STYLE]) setStyle(live, node.style);
  if (node.on || live[HANDLERS]) {
    live[HANDLERS] = node.on;
    if (node.on) for (const type in node.on) live.addEventListener(type, dispatch);
  }
  if (node.children.length || live.firstChild) morphChildren(live, node.children);
  // What a person typed or ticked is the control's state, not its attribute: the description wins, as a
  // rebuild would have it.
  if (live.localName === "input") {
    const value = attrs.value ?? "";
    if (live.value !== value && live.type !== "file") live.value = value;
    if (live.checked !== ("checked" in attrs)) live.checked = "checked" in attrs;
  } else if (live.localName === "textarea" && live.value !== live.textContent) {
    live.value = live.textContent;
  }
}
