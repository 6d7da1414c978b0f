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
    var dom = window.Ludus.dom;
    [["move-parent", moves.parent, 0], ["move-branch", moves.branch, 1]].forEach(function (pair) {
      var list = document.getElementById(pair[0]);
      if (!list) return;
      list.textContent = "";
      var events = pair[1].events.length ? pair[1].events : [null];
      events.forEach(function (event) {
        var item = document.createElement("li");
        // A move with no public event (a card chosen face down) is named by its option, as the decision panel does.
        item.textContent = event ? window.Ludus.describeEvent(event, ctx) : !moves.options
          ? dom.seatName(ctx, pair[1].seat) + ": a " + dom.humanize(moves.kind) + " no one else sees until the match is over"
          : dom.seatName(ctx, pair[1].seat) + ": " + dom.humanize(moves.kind) + " " + dom.short(moves.options[pair[2]]) +
            " (option #" + moves.choices[pair[2]] + ", no public event)";
        list.appendChild(item);
      });
    });
  });
})();
