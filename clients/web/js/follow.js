// A page watching a table by its alias (#/watch/demo: the projector left on the demo) goes on to the next table
// the alias names once the game is over, as `photofinish watch demo` does (a kept table starts again after a
// pause): the table list is read every FOLLOW_EVERY_MS, and once the alias names another table (the list names
// only its latest) the page opens again by the alias. A page opened by a table's id stays on that table.

export const FOLLOW_EVERY_MS = 2000;

export function followAlias(page) {
  if (page.following || !page.alias || page.state.role !== "watch") return;
  page.following = setInterval(async () => {
    let tables;
    try {
      tables = await page.client.listTables();
    } catch {
      return; // the connection is down: asked again at the next beat
    }
    const next = tables.find((t) => t.alias === page.alias && t.table !== page.state.table);
    if (next && !page.gone) page.app.route(); // this page is destroyed: the new one finds the alias's table
  }, FOLLOW_EVERY_MS);
}
