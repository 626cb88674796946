"""A redraw updates the table in place: what did not change stays the same element (and keeps the keyboard
focus and its listeners), and what changed is shown (``morph`` in clients/web/js/dom.js, issue 18).

One test plays a real answer at a Flag Finish Challenge table; the others drive ``morph`` itself in the page:
a hand of keyed cards losing one and gaining another, and, as a property, any tree morphed into any other
ends as a fresh build of the second would, every element answering with the second tree's listener.
"""

from __future__ import annotations

import trio
from hypothesis import HealthCheck, example, given, settings, strategies as st

from server.protocol import BotSeat, CreateTable

from .test_browser import lobby

# Before the click: the elements an answer to a take must leave alone, and the keyboard focus on one of them.
KEEP = """() => {
  const leave = document.querySelector(".table-page button.leave");
  leave.focus();
  window.kept = {
    page: document.querySelector(".table-page"), board: document.querySelector(".board .flag-finish"),
    rows: [...document.querySelectorAll(".seat-row")], leave, pile: document.querySelector(".pile.discard h3"),
    line: document.querySelector(".feed li"), lineText: document.querySelector(".feed li").textContent,
    hand: document.querySelectorAll(".hand .cards > *").length, cards: [...document.querySelectorAll(".hand .cards > *")],
  };
  const take = document.querySelector(".discard button.move[data-action^='take']");
  take.click(); // a script's click: the focus stays where the person left it
  return take.dataset.card;
}"""

AFTER = """() => {
  const k = window.kept;
  const rows = [...document.querySelectorAll(".seat-row")];
  return {
    page: document.querySelector(".table-page") === k.page, board: document.querySelector(".board .flag-finish") === k.board,
    rows: rows.length === k.rows.length && rows.every((row, i) => row === k.rows[i]),
    pile: document.querySelector(".pile.discard h3") === k.pile, focus: document.activeElement === k.leave,
    line: k.line.isConnected && k.line.textContent === k.lineText && document.querySelector(".feed li") !== k.line,
    grew: document.querySelectorAll(".hand .cards > *").length - k.hand,
    // the hand's cards turned into discard moves in place: the same elements, now enabled
    turned: k.cards.every((card) => card.isConnected && card.matches("button.move[data-action^='discard']:enabled")),
  };
}"""


def test_an_answer_updates_the_table_in_place_keeping_the_rest_and_the_focus(page, live_server):
    table = trio.from_thread.run(live_server.running.lobby.create, CreateTable(  # the bot keeps still: only our
        game="flag_finish", mode="challenge", seats=2, bots=[BotSeat(1)], bot_delay_ms=60_000),  # click changes
        trio_token=live_server.token)  # the table
    lobby(page, live_server)
    page.click(f"[data-key='sit-{table.id}-0']")
    page.wait_for_selector(".discard button.move[data-action^='take']")
    page.wait_for_function("() => window.photofinish.page.state.info.status === 'playing'")  # its last refresh
    card = page.evaluate(KEEP)
    page.wait_for_selector(".hand button.move[data-action^='discard']")  # the answer: now discard one
    page.wait_for_selector(".pending", state="detached")
    assert page.evaluate(AFTER) == {"page": True, "board": True, "rows": True, "pile": True, "focus": True,
                                    "line": True, "grew": 1, "turned": True}
    assert page.locator(f".hand button[data-card='{card}']").count() >= 1  # the card taken is in the hand
    assert page.locator(".feed li").first.text_content().endswith(".")  # and its line leads the feed
    assert "took" in page.locator(".feed li").first.text_content()


# A hand of cards keyed by their card, each with a listener saying which redraw drew it: the second redraw
# drops G3 from the middle, adds R7 at the end and renames B2's verb; the focus is on B5.
HAND = """async () => {
  const dom = await import("/js/dom.js");
  const box = document.body.appendChild(document.createElement("div"));
  const clicked = [];
  const hand = (cards, draw) => dom.h("div", { class: "cards" }, cards.map(([card, verb]) =>
    dom.h("button", { type: "button", "data-key": card, onclick: () => clicked.push(`${card} ${draw}`) },
      dom.h("span", { class: "rank" }, card), " ", verb)));
  dom.morph(box, hand([["B2", "play"], ["G3", "play"], ["B5", "play"]], 1));
  const before = [...box.querySelectorAll("button")];
  before[2].focus();
  dom.morph(box, hand([["B2", "discard"], ["B5", "play"], ["R7", "play"]], 2));
  const after = [...box.querySelectorAll("button")];
  for (const button of after) button.click();
  const result = {
    texts: after.map((b) => b.textContent), keptB2: after[0] === before[0], keptB5: after[1] === before[2],
    g3Gone: !before[1].isConnected, focus: document.activeElement === before[2], clicked,
  };
  box.remove();
  return result;
}"""


def test_morph_keeps_keyed_cards_their_focus_and_takes_the_new_listeners(page, live_server):
    lobby(page, live_server)
    assert page.evaluate(HAND) == {
        "texts": ["B2 discard", "B5 play", "R7 play"], "keptB2": True, "keptB5": True, "g3Gone": True,
        "focus": True, "clicked": ["B2 2", "B5 2", "R7 2"],
    }


# Any tree into any other: the result is what a fresh build of the second gives (the same elements, attributes
# and text, in order), and every element runs the second tree's listener (each says its own id).
MORPH = """async ([first, second]) => {
  const dom = await import("/js/dom.js");
  const said = [];
  const build = (node, draw) => typeof node === "string" ? node
    : dom.h(node.tag, { "data-key": node.key, class: node.cls, "data-id": `${draw}.${node.id}`,
                        onclick: (e) => { e.stopPropagation(); said.push(`${draw}.${node.id}`); } },
            node.children.map((child) => build(child, draw)));
  const live = document.body.appendChild(document.createElement("div"));
  const fresh = document.createElement("div");
  dom.morph(live, build(first, "a"));
  dom.morph(live, build(second, "b"));
  dom.mount(fresh, build(second, "b"));
  const elements = [...live.querySelectorAll("[data-id]")];
  const answers = elements.map((element) => { said.length = 0; element.click(); return said[0] === element.dataset.id; });
  const shape = (node) => node.nodeType === Node.TEXT_NODE ? node.nodeValue  // attributes in any order
    : [node.localName, node.getAttributeNames().sort().map((name) => [name, node.getAttribute(name)]),
       [...node.childNodes].map(shape)];
  const same = JSON.stringify(shape(live)) === JSON.stringify(shape(fresh));
  live.remove();
  return { same, answers: answers.every(Boolean), counted: elements.length };
}"""

_ids = iter(range(10**9))


def _tree(children):
    return st.builds(lambda tag, key, cls, kids: {"tag": tag, "key": key, "cls": cls, "id": next(_ids),
                                                  "children": kids},
                     st.sampled_from(["div", "span", "button"]), st.sampled_from([None, None, "k1", "k2", "k3"]),
                     st.sampled_from([None, "a", "b"]), st.lists(children, max_size=4))


TREES = st.recursive(st.sampled_from(["x", "y", ""]), _tree, max_leaves=12).filter(lambda t: isinstance(t, dict))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=TREES, second=TREES)
def test_any_tree_morphed_into_another_is_what_a_fresh_build_of_it_gives(page, live_server, first, second):
    if not page.url.startswith(live_server.url):  # one page for all examples: each uses a fresh container
        lobby(page, live_server)
    result = page.evaluate(MORPH, [first, second])
    assert result["same"] and result["answers"], result


def _line(key):
    """A list holding one keyed line "x" (the feed, where a new line can take an old one's place)."""
    return {"tag": "div", "key": None, "cls": None, "id": 0,
            "children": [{"tag": "span", "key": key, "cls": None, "id": 0, "children": ["x"]}]}


# Memos: every element's memo stands for its subtree's content but its own key (as the screens' memos do: equal
# memos, yet another key, is another element), and between the two
# redraws a move in the first tree is marked pending outside morph (as a click marks it). Whatever is skipped
# for an equal memo, the result is what a fresh build of the second tree gives: nothing stale is left, neither
# content from the first tree nor the pending mark.
MEMOS = """async ([first, second, marked]) => {
  const dom = await import("/js/dom.js");
  const { markPending } = await import("/js/games/generic.js");
  // a memo: the element's content, its children's keys included, but not its own key (as the feed's lines)
  const memo = (node) => JSON.stringify([node.tag, node.cls,
    node.children.map((child) => typeof child === "string" ? child : [child.key, memo(child)])]);
  const build = (node) => typeof node === "string" ? node
    : dom.h(node.tag, { "data-key": node.key, class: node.cls, memo: memo(node) }, node.children.map(build));
  const live = document.body.appendChild(document.createElement("div"));
  const fresh = document.createElement("div");
  dom.morph(live, build(first));
  const elements = live.querySelectorAll("*");
  if (elements.length) markPending(elements[marked % elements.length]);
  dom.morph(live, build(second));
  dom.mount(fresh, build(second));
  const shape = (node) => node.nodeType === Node.TEXT_NODE ? node.nodeValue
    : [node.localName, node.getAttributeNames().sort().map((name) => [name, node.getAttribute(name)]),
       [...node.childNodes].map(shape)];
  const same = JSON.stringify(shape(live)) === JSON.stringify(shape(fresh));
  live.remove();
  return same;
}"""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=TREES, other=TREES, how=st.sampled_from(["same", "inside another", "another"]),
       marked=st.integers(0, 20))
@example(first=_line("k1"), other=_line("k2"), how="another", marked=0)  # a line put where another was
def test_a_memo_skips_only_what_is_the_same_and_a_mark_made_outside_is_redrawn(page, live_server, first, other,
                                                                                how, marked):
    if not page.url.startswith(live_server.url):
        lobby(page, live_server)
    # the same tree (everything equal is skipped), the first tree's root as a child of another, or another
    second = {"same": first, "another": other,
              "inside another": {**other, "children": [first, *other["children"]]}}[how]
    assert page.evaluate(MEMOS, [first, second, marked])
