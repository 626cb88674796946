// The Rules panel of a table's page: the game's rules/<game>/RULES.md, served by the server as /rules/<game>.md,
// fetched once per game and drawn from a small, safe reading of Markdown (headings, paragraphs, lists, tables,
// `code`, **bold**, [links](...) as their text): every piece of the file becomes a text node through h(), never
// markup, so nothing in a rules file can reach the page as HTML.

import { h } from "./dom.js";

const loaded = new Map(); // game -> { text } once fetched, { error } if it failed, { waiting: Promise } meanwhile

// The panel; `close` hides it, `redraw` is called once the rules have arrived.
export function rulesPanel(game, title, close, redraw) {
  const got = rulesOf(game, redraw);
  const memo = JSON.stringify([game, title, got.text ? "text" : got.error || "waiting"]);
  return h("section", { id: "rules-panel", class: "rules-panel", "aria-label": `the rules of ${title}`, memo },
    h("div", { class: "rules-bar" }, h("h2", {}, `Rules: ${title}`),
      h("button", { type: "button", class: "rules-close", onclick: close }, "Close")),
    got.text ? h("div", { class: "rules-text" }, markdown(got.text))
      : h("p", {}, got.error ? `The rules could not be loaded: ${got.error}` : "Loading the rules..."));
}

function rulesOf(game, redraw) {
  let got = loaded.get(game);
  if (!got) {
    got = {};
    loaded.set(game, got);
    fetch(new URL(`../rules/${encodeURIComponent(game)}.md`, import.meta.url))
      .then((response) => (response.ok ? response.text() : Promise.reject(new Error(`${response.status}`))))
      .then((text) => { got.text = text; }, (error) => { got.error = error.message || String(error); loaded.delete(game); })
      .then(() => redraw());
  }
  return got;
}

// ------------------------------------------------------------------ Markdown, safely

// Block by block: a heading (#..####), a table (| rows, the second its --- line), a list (- or * or 1.), or a
// paragraph (lines up to a blank line). Anything else is a paragraph's text.
export function markdown(text) {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    const heading = line.match(/^(#{1,4})\s+(.*)$/);
    if (heading) {
      blocks.push(h(`h${Math.min(heading[1].length + 2, 6)}`, {}, inline(heading[2])));
      i++;
    } else if (line.trim().startsWith("|")) {
      const rows = [];
      while (i < lines.length && lines[i].trim().startsWith("|")) rows.push(lines[i++]);
      blocks.push(table(rows));
    } else if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items = [];
      while (i < lines.length && lines[i].trim()) {
        if (/^\s*([-*]|\d+\.)\s+/.test(lines[i])) items.push(lines[i].replace(/^\s*([-*]|\d+\.)\s+/, ""));
        else items[items.length - 1] += " " + lines[i].trim(); // a wrapped item goes on
        i++;
      }
      blocks.push(h(ordered ? "ol" : "ul", {}, items.map((item) => h("li", {}, inline(item)))));
    } else {
      const para = [];
      while (i < lines.length && lines[i].trim() && !/^(#{1,4}\s|\s*\|)/.test(lines[i])) para.push(lines[i++].trim());
      blocks.push(h("p", {}, inline(para.join(" "))));
    }
  }
  return blocks;
}

function cells(row) {
  return row.trim().replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, "|"));
}

function table(rows) {
  const separator = rows.length > 1 && /^[\s|:-]+$/.test(rows[1]);
  const head = separator ? cells(rows[0]) : null;
  const body = rows.slice(separator ? 2 : 0).map(cells);
  return h("div", { class: "rules-table" }, h("table", {},
    head ? h("thead", {}, h("tr", {}, head.map((cell) => h("th", { scope: "col" }, inline(cell))))) : null,
    h("tbody", {}, body.map((row) => h("tr", {}, row.map((cell) => h("td", {}, inline(cell))))))));
}

// `code`, **bold**, *emphasis*, [text](link) (its text only): the rest is text, as it is.
export function inline(text) {
  const out = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\([^)]*\)/g;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > at) out.push(text.slice(at, match.index));
    if (match[1] !== undefined) out.push(h("code", {}, match[1]));
    else if (match[2] !== undefined) out.push(h("strong", {}, match[2]));
    else if (match[3] !== undefined) out.push(h("em", {}, match[3]));
    else out.push(match[4]);
    at = match.index + match[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}
