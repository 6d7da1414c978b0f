/* Evolution (with Flight) on the board: the Watering Hole and the Cliff, the deck, the reserve and the discard,
   then each player's species (traits, body size, population, food, fat, upkeep), food card, bag and hand. */
(function () {
  "use strict";
  var Ludus = (window.Ludus = window.Ludus || { games: {} });
  var d = function () { return Ludus.dom; };

  function cardName(card) { return String(card).split(":")[0]; }
  function cardFood(card) { var parts = String(card).split(":"); return parts.length > 1 ? parts[1] : ""; }

  function pile(cls, label, value, note) {
    var el = d().el;
    return el("div", { class: "pile " + cls, "data-pile": cls }, [
      el("span", { class: "n", text: value === null || value === undefined ? "?" : String(value) }),
      el("span", { text: label }), note ? el("div", { class: "muted small", text: note }) : null,
    ]);
  }

  function traitChip(trait) {
    var hidden = trait === "?";
    return d().el("span", { class: "trait" + (hidden ? " hidden" : ""), title: hidden ? "face-down trait" : trait,
      text: hidden ? "face down" : cardName(trait) });
  }

  function species(sp, index) {
    var el = d().el;
    var traits = el("div", { class: "traits" });
    (sp.traits || []).forEach(function (t) { traits.appendChild(traitChip(t)); });
    (sp.face_down || []).forEach(function (t) {
      var chip = traitChip(t === "?" ? "?" : t);
      if (t !== "?") { chip.classList.add("hidden"); chip.textContent = cardName(t) + " (face down)"; }
      traits.appendChild(chip);
    });
    if (!traits.children.length) traits.appendChild(el("span", { class: "muted", text: "no traits" }));
    function stat(label, value, title) {
      return el("span", { class: "stat", title: title }, [label + " ", el("strong", { text: String(value) })]);
    }
    return el("div", { class: "species" + (sp.avian ? " avian" : ""), "data-species": sp.id }, [
      el("div", { class: "muted small", title: "species id " + sp.id, text: (sp.avian ? "Avian species " : "Species ") + (index + 1) }),
      traits,
      el("div", {}, [stat("Body", sp.body_size, "body size"), stat("Pop", sp.population, "population")]),
      el("div", {}, [stat("Food", sp.food + "/" + sp.population, "food eaten / population"),
        sp.fat ? stat("Fat", sp.fat, "fat stored") : null, sp.upkeep ? stat("Upkeep", sp.upkeep, "upkeep") : null]),
    ]);
  }

  function hand(seat) {
    var el = d().el;
    var box = el("div", { class: "hand", "data-hand-seat": seat.seat });
    if (Array.isArray(seat.hand)) {
      box.classList.add("hand-shown");
      seat.hand.forEach(function (card) {
        box.appendChild(el("div", { class: "tcard", title: card.card }, [
          el("strong", { text: card.name }), el("span", { class: "food", text: "food " + card.food }),
        ]));
      });
      if (!seat.hand.length) box.appendChild(el("span", { class: "muted", text: "empty hand" }));
    } else {
      box.classList.add("hand-hidden");
      box.appendChild(el("span", { class: "cardback", "aria-hidden": "true", text: String(seat.hand_count) }));
      box.appendChild(el("span", { class: "muted", text: " " + seat.hand_count + " card" + (seat.hand_count === 1 ? "" : "s") + " in hand (hidden)" }));
    }
    return box;
  }

  function scoreOf(view, seat) {
    if (view.scores) return { value: view.scores[seat.seat], label: "score" };
    var bag = typeof seat.bag === "number" ? seat.bag : 0;
    return { value: seat.public_score + bag, label: typeof seat.bag === "number" ? "score so far" : "public score" };
  }

  function player(view, seat, frame, ctx) {
    var el = d().el;
    var score = scoreOf(view, seat);
    var row = el("div", { class: "species-row" });
    seat.species.forEach(function (sp, i) { row.appendChild(species(sp, i)); });
    if (!seat.species.length) row.appendChild(el("span", { class: "muted", text: "no species" }));
    var food = seat.food_card === null || seat.food_card === undefined ? "none" :
      seat.food_card === "?" ? "face down" : cardName(seat.food_card) + " (" + cardFood(seat.food_card) + ")";
    return el("section", { class: "player seat-" + seat.seat, "data-seat": seat.seat,
      "aria-label": d().seatName(ctx, seat.seat) }, [
      el("h3", {}, [el("span", { text: d().seatName(ctx, seat.seat) + (view.you === seat.seat ? " · you" : "") }),
        el("span", { class: "player-score", "data-score": score.value, title: score.label, text: d().points(ctx, score.value) })]),
      el("div", { class: "muted small" }, ["Bag: ", el("strong", { text: typeof seat.bag === "number" ? String(seat.bag) : "hidden" }),
        " · Food card: ", el("strong", { text: food })]),
      row,
      hand(seat),
    ]);
  }

  function draw(board, frame, ctx) {
    var el = d().el, view = frame.view;
    var phase = view.phase === "over" ? "game over" : d().humanize(view.phase);
    board.appendChild(el("p", { class: "muted" }, ["Round ", el("strong", { text: String(view.round) }),
      view.last_round ? " of " + view.last_round : "", " · ", phase,
      " · first player: " + d().seatName(ctx, view.first_player)]));
    board.appendChild(el("div", { class: "evo-common" }, [
      pile("water", "Watering Hole", view.watering_hole, "food"),
      pile("cliff", "Cliff", view.cliff, "food"),
      pile("deck", "Deck", view.deck_count, "cards"),
      pile("reserve", "Reserve", view.reserve_count, view.reserve_used ? "in use" : "cards"),
      pile("discard", "Discard", (view.discard || []).length, "cards"),
    ]));
    var players = el("div", { class: "players" });
    view.seats.forEach(function (seat) { players.appendChild(player(view, seat, frame, ctx)); });
    board.appendChild(players);
  }

  function describe(event, ctx) {
    var who = typeof event.seat === "number" ? d().seatName(ctx, event.seat) + ": " : "";
    switch (event.event) {
      case "food": return who + "species " + (event.species + 1) + " takes " + event.amount + " food from the " + d().humanize(event.source);
      case "food_revealed": return "Food cards revealed: " + event.cards.map(cardName).join(", ") + " — total " + event.total;
      case "round": return "Round " + event.round + " begins; first player " + d().seatName(ctx, event.first_player);
      case "dealt": return who + "dealt " + event.cards + " card(s)";
      case "grow": return who + "species " + (event.species + 1) + " grows its " + event.what;
      case "pass": return who + "passes";
      case "food_card_chosen": return who + "chooses a food card (face down)";
      default: return null;
    }
  }

  Ludus.games.evolution = { draw: draw, describe: describe };
})();
