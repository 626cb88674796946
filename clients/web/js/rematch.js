// The end of a game on its table's page: "Play again" (a rematch: a new table set up as this one, the `rematch`
// request, PROTOCOL.md) takes your seat there; the others still at the finished table are offered it
// (`rematch_offered`) and join it in one click. Everyone who asks gets the same table, so two players who both
// click meet at one table. A spectator may watch the rematch.

import { CODE } from "./codes.js";
import { h } from "./dom.js";
import { seatStore } from "./protocol.js";

// What the table page shows under the result: the offer of a rematch, or the button that opens one.
export function rematchBox(page) {
  const s = page.state;
  const offered = s.offer ? s.offer.rematch : s.info && s.info.rematch;
  const seated = s.role === "play";
  if (offered) {
    const seat = s.offer ? s.offer.seat : null;
    const by = seat !== null && seat !== undefined && seat !== s.seat ? `${page.who(seat)} asks for a rematch`
      : "A rematch is open";
    return h("div", { class: "rematch", role: "status", "data-rematch": offered },
      `${by}: the same game and settings, at table ${offered}. `,
      h("button", { type: "button", class: "primary join-rematch", "data-key": "join-rematch",
                    onclick: () => joinRematch(page, offered) }, seated ? "Join the rematch" : "Watch the rematch"));
  }
  if (!seated) return null;
  return h("div", { class: "rematch" },
    h("button", { type: "button", class: "primary play-again", "data-key": "play-again",
                  onclick: () => playAgain(page) }, "Play again"),
    " a new table with the same settings; the others here are offered a seat at it.");
}

async function playAgain(page) {
  const s = page.state;
  try {
    const answer = await page.client.request({ type: "rematch", table: s.table });
    await joinRematch(page, answer.table.table);
  } catch (error) {
    s.notice = `Could not open a rematch: ${error.reason || error}`;
    page.renderSoon();
  }
}

// Your seat at the rematch: the same seat number as here if it is free, else any free one; watching if none is.
async function joinRematch(page, table) {
  const s = page.state;
  if (s.role !== "play") { location.hash = `#/watch/${table}`; return; }
  if (seatStore.get(table)) { location.hash = `#/play/${table}`; return; } // clicked before: that seat is yours
  const name = (seatStore.get(s.table) || {}).name ?? (localStorage.getItem("photofinish.name") || "");
  for (const seat of [s.seat, null]) {
    try {
      await page.client.takeSeat(table, seat, name);
      location.hash = `#/play/${table}`;
      return;
    } catch (error) {
      if (error.code === CODE.ALREADY_SEATED) { location.hash = `#/play/${table}`; return; }
      if (error.code === CODE.TABLE_FULL) { location.hash = `#/watch/${table}`; return; }
      if (error.code !== CODE.SEAT_TAKEN && error.code !== CODE.NO_SUCH_SEAT) {
        s.notice = `Could not join the rematch: ${error.reason || error}`;
        page.renderSoon();
        return;
      }
    }
  }
}
