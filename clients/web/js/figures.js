// Numbers and places as a tournament shows them, exactly as the terminal does (clients/tournament_text.py:
// `fixed`, `points_text`, `percent_text`, and server.protocol's `scoring_places`); tests/web/test_tournament_screen.py
// compares the two on the same values.
//
// Rounding is half up on the double itself: floor(x * 10^digits + 0.5). Both languages compute that in the same
// IEEE arithmetic, so they agree on every value (a game share of 1.125 is 1.13 on the page and in the terminal).

export function fixed(x, digits) {
  const n = Math.floor(x * 10 ** digits + 0.5);
  const sign = n < 0 ? "-" : "";
  const text = String(Math.abs(n)).padStart(digits + 1, "0");
  return digits ? `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}` : `${sign}${text}`;
}

// Points: two decimals at most, no trailing zeros (3, 2.5, 1.33).
export function pointsText(x) {
  const text = fixed(x, 2);
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

// A share as a whole percentage: 0.625 is 63%.
export function percentText(x) {
  return `${fixed(x * 100, 0)}%`;
}

// The places that score at a finished table: the seats a stand-in bot played for a no-show moved to the last
// places (several share the last), the others closing up.
export function scoringPlaces(places, standIns) {
  if (!standIns || !standIns.some(Boolean)) return [...places];
  const present = places.filter((_, i) => !standIns[i]);
  return places.map((place, i) => (standIns[i] ? present.length + 1
    : 1 + present.filter((other) => other < place).length));
}

export function ordinal(n) {
  const suffix = n % 100 >= 10 && n % 100 <= 20 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}
