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

  /* Every event in plain words: seats and species counted from 1, cards by name (their food number in brackets). */
  function describe(event, ctx) {
    var seat = function (n) { return d().seatName(ctx, n); };
    var who = typeof event.seat === "number" ? seat(event.seat) + ": " : "";
    var sp = function (i) { return "species " + (i + 1); };
    var card = function (c) { return cardName(c); };
    var place = function (p) { return d().humanize(p) === "watering hole" ? "the Watering Hole" : "the " + d().humanize(p); };
    var e = event;
    switch (e.event) {
      case "food": return who + sp(e.species) + " takes " + e.amount + " food from " + place(e.source);
      case "fat_stored": return who + sp(e.species) + " stores " + e.amount + " fat from " + place(e.source);
      case "food_revealed": return "Food cards revealed: " + e.cards.map(function (c) { return card(c) + " (" + cardFood(c) + ")"; }).join(", ") +
        " — " + (e.total >= 0 ? "+" : "") + e.total + " food; the Watering Hole has " + e.watering_hole +
        (e.cliff !== undefined ? ", the Cliff " + e.cliff : "");
      case "round": return "Round " + e.round + " begins; first player " + seat(e.first_player);
      case "dealt": return who + "dealt " + e.cards + " card" + (e.cards === 1 ? "" : "s");
      case "grow": return who + sp(e.species) + " grows its " + d().humanize(e.what === "pop" ? "population" : e.what);
      case "pass": return who + "passes";
      case "done_playing": return who + "done playing cards";
      case "food_card_chosen": return who + "chooses a food card (face down)";
      case "card_discarded": return who + "discards " + card(e.card) + (e.use ? " for " + d().humanize(e.use === "pop" ? "population" : e.use) : "");
      case "new_species": return who + "starts " + sp(e.species) + (e.avian ? " (avian)" : "");
      case "trait_played_face_down": return who + "plays a trait face down on " + sp(e.species);
      case "trait_replaced": return who + "replaces " + card(e.discarded) + " on " + sp(e.species) + " (face down)";
      case "trait_discarded": return who + "discards " + card(e.card) + " from " + sp(e.species);
      case "traits_revealed": return e.revealed.length ? "Traits revealed: " + e.revealed.map(function (r) {
        return seat(r.seat) + " " + sp(r.species) + ": " + r.traits.map(card).join(", "); }).join("; ") : "Traits revealed: none";
      case "attack": return who + sp(e.species) + " attacks " + seat(e.target[0]) + "'s " + sp(e.target[1]) +
        (e.negated && e.negated.length ? ", ignoring " + e.negated.map(card).join(", ") : "") +
        (e.horns ? "; Horns: the attacker loses 1 population" : "");
      case "negate": return who + "negates " + card(e.trait) + " with " + card(e.card);
      case "extinct": return who + sp(e.species) + " goes extinct" + (e.traits ? "; " + e.traits + " card" + (e.traits === 1 ? "" : "s") + " drawn back" : "");
      case "trigger": return who + sp(e.species) + " triggers " + card(e.trait);
      case "intelligence": return who + sp(e.species) + " uses Intelligence (discarding " + card(e.card) + ")";
      case "dive_bomb": return who + "plays Dive Bomb (" + card(e.card) + ") " + d().humanize(e.when) + " feeding";
      case "seed_dispersal": return who + "Seed Dispersal (" + card(e.card) + "): " + e.amount + " food to " + place(e.place);
      case "feeding_over": return "Feeding over — round " + e.round;
      case "deck_exhausted": return "The deck ran out: round " + e.last_round + " is the last";
      case "game_over": return "Game over";
      default: return null;
    }
  }

  /* What the last action changed: species new or different since the step before, and the common food. */
  function mark(board, before, view) {
    var old = {};
    before.seats.forEach(function (seat) { seat.species.forEach(function (sp) { old[sp.id] = JSON.stringify(sp); }); });
    view.seats.forEach(function (seat) {
      seat.species.forEach(function (sp) {
        if (old[sp.id] !== JSON.stringify(sp)) board.querySelector("[data-species='" + sp.id + "']").classList.add("changed");
      });
    });
    [["water", "watering_hole"], ["cliff", "cliff"]].forEach(function (pair) {
      var node = board.querySelector(".pile." + pair[0]);
      if (node && before[pair[1]] !== view[pair[1]]) node.classList.add("changed");
    });
  }

  Ludus.games.evolution = { draw: draw, describe: describe, mark: mark };
})();
