// The game screens, by game name; a game without one is shown by the generic screen.

import * as generic from "./generic.js";
import * as flagFinish from "./flag_finish.js";
import * as flush from "./flush.js";
import * as raceToTheFinish from "./race_to_the_finish.js";

const SCREENS = { flag_finish: flagFinish, flush, race_to_the_finish: raceToTheFinish };

export function screenFor(game) {
  return SCREENS[game] || generic;
}
