// The game screens, by game name; a game without one is shown by the generic screen.

import * as generic from "./generic.js";
import * as flagFinish from "./flag_finish.js";
import * as flush from "./flush.js";
import * as raceToTheFinish from "./race_to_the_finish.js";
import * as checkeredFlag from "./checkered_flag.js";
import * as finishLine from "./finish_line.js";

const SCREENS = {
  flag_finish: flagFinish, flush, race_to_the_finish: raceToTheFinish, checkered_flag: checkeredFlag,
  finish_line: finishLine,
};

export function screenFor(game) {
  return SCREENS[game] || generic;
}
