// A table that waits for its players, said plainly on its page: "Waiting for 1 more player", who is seated, and
// the free seats, instead of an empty board ("Race 0 · dealing") under "Waiting for the table...".

import { h } from "./dom.js";
import { joinWords } from "./words.js";

const HERE = new Set(["taken", "bot", "stand_in"]);

// The seats not filled yet: free ones, and seats kept for a player who is not here (a tournament's, or an away one).
function missing(info) {
  return info.seats.filter((seat) => !HERE.has(seat.state));
}

export function isWaiting(info) {
  return Boolean(info) && info.status === "waiting";
}

// The turn banner's words: "Waiting for 1 more player."
export function waitingWords(info) {
  const count = missing(info).length;
  return count ? `Waiting for ${count} more player${count === 1 ? "" : "s"}.` : "Everyone is here: the game starts.";
}

// What stands where the board will be: who sits, which seats are free, and how others join.
export function waitingBoard(info, who) {
  const seated = info.seats.filter((seat) => HERE.has(seat.state));
  const free = missing(info);
  return h("div", { class: "waiting", "data-key": "waiting" },
    h("p", { class: "waiting-who" }, seated.length
      ? `Seated: ${joinWords(seated.map((seat) => `${who(seat.seat)} (seat ${seat.seat + 1})`))}.`
      : "Nobody is seated yet."),
    h("p", { class: "waiting-free" }, `Still free: ${joinWords(free.map((seat) => seat.state === "free"
      ? `seat ${seat.seat + 1}` : `seat ${seat.seat + 1} (kept for ${seat.name || "its player"})`))}. `,
      "The game starts as soon as every seat is taken: someone joins from the lobby (its quick play, or this ",
      "table's \"Sit\" button), on this server."));
}
