/* The branch page (docs/branches.md#the-pages): the moves that differ, in the game's own words, as the viewer's event
   log writes them (Ludus.describeEvent from viewer.js and the game's script). Without scripts the page lists the raw
   events. */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var node = document.getElementById("compare-moves-data");
    if (!node || !window.Ludus || !window.Ludus.describeEvent) return;
    var moves = JSON.parse(node.textContent);
    var ctx = { game: moves.game, seats: {}, players: moves.players, units: moves.units };
    moves.seats.forEach(function (seat) { ctx.seats[seat.seat] = seat; });
    [["move-parent", moves.parent], ["move-branch", moves.branch]].forEach(function (pair) {
      var list = document.getElementById(pair[0]);
      if (!list) return;
      list.textContent = "";
      var events = pair[1].events.length ? pair[1].events : [null];
      events.forEach(function (event) {
        var item = document.createElement("li");
        item.textContent = event ? window.Ludus.describeEvent(event, ctx) : "no public event";
        list.appendChild(item);
      });
    });
  });
})();
