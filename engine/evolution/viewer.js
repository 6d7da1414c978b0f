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
    return el("div", { class: "species" + (sp.avian ? " avian" : ""), "data-species": sp.id, "data-index": index }, [
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
        box.appendChild(el("div", { class: "tcard", title: card.card, "data-card": card.card }, [
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

  /* One rule for every seat of a view, as the score chart's (EvolutionGame.view_scores): the bags count only where
     the view shows every bag; a seat's own bag shows beside its score, not in it. */
  function scoreOf(view, seat) {
    if (view.scores) return { value: view.scores[seat.seat], label: "score" };
    var bags = view.seats.every(function (s) { return typeof s.bag === "number"; });
    return { value: seat.public_score + (bags ? seat.bag : 0), label: bags ? "score so far, bags included" :
      "public score (bags are hidden)" };
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
      el("h3", {}, [el("span", {}, [d().seatLabel(ctx, seat.seat), view.you === seat.seat ? " · you" : null]),
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
    var players = el("div", { class: "players seats-" + view.seats.length });
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

  /* One option of a decision in the game's words (docs/rules/evolution.md, "Decisions a bot sees"): species counted
     from 1 like the board and the event log, cards by name with their food number; and what it touches on the board. */
  var PLACES = { watering_hole: "the Watering Hole", cliff: "the Cliff", bank: "the bank" };
  var USES = { trait: "as a trait", species: "for a new species", avian: "for a new avian species",
    body: "for +1 body size", population: "for +1 population" };
  function option(o, decision, ctx) {
    var seat = decision.seat, own = "[data-seat='" + seat + "'] ";
    var card = function (c) { return cardName(c) + " (" + cardFood(c) + " food)"; };
    var inHand = function (c) { return own + ".tcard[data-card='" + c + "']"; };
    var speciesOf = function (owner, i) { return "[data-seat='" + owner + "'] .species[data-index='" + i + "']"; };
    var place = function (p) { return PLACES[p] || d().humanize(p); };
    var pile = function (p) { return p === "watering_hole" ? [".pile.water"] : p === "cliff" ? [".pile.cliff"] : []; };
    var said = function (text, marks) { return { text: text, marks: marks || [] }; };
    switch (decision.kind) {
      case "food_card": return said(card(o) + " face down as the food card", [inHand(o)]);
      case "play":
        if (o === "done") return said("Done playing cards");
        if (o === "discard_trait") return said("Discard a trait from a species");
        return Array.isArray(o) ? said("Play " + card(o[1]), [inHand(o[1])]) : null;
      case "card_use": return said("Use it " + (USES[o] || d().humanize(o)));
      case "species_side": return said("At the " + o + " end of the row",
        [own + ".species-row > .species:" + (o === "left" ? "first" : "last") + "-child"]);
      case "avian_card": return said(card(o) + " as the second card", [inHand(o)]);
      case "intelligence_card": return said("Discard " + card(o) + " for Intelligence", [inHand(o)]);
      case "negate_card": return said("Pay with " + card(o), [inHand(o)]);
      case "negate_horns": return o === "keep" ? said("Keep the cards: Horns costs the attacker 1 population")
        : said("Pay " + card(o) + " to cancel Horns", [inHand(o)]);
      case "trait_species": case "grow_species": case "discard_trait_species": case "dive_bomb_species":
        return said("Species " + (o + 1), [speciesOf(seat, o)]);
      case "replace_trait": case "discard_trait": return said("Discard " + cardName(o));
      case "trigger_order": return said("Species " + (o[0] + 1) + ": " + o[1] + " first", [speciesOf(seat, o[0])]);
      case "nesting_source": case "dive_bomb_source": return said("From " + place(o), pile(o));
      case "store_fat": return said("Store " + o + " fat");
      case "attack_target": return said("Attack " + d().seatName(ctx, o[0]) + "'s species " + (o[1] + 1),
        [speciesOf(o[0], o[1])]);
      case "feed":
        if (o === "pass") return said("Pass");
        if (!Array.isArray(o)) return null;
        if (o[0] === "seed_dispersal") return said("Seed Dispersal (" + card(o[2]) + "): food to " + place(o[1]), pile(o[1]));
        if (o[0] === "dive_bomb") return said("Dive Bomb (" + card(o[2]) + ") " + o[1] + " feeding", [inHand(o[2])]);
        var how = o[1] === "intelligence" ? " by Intelligence" : o[1] === "attack" ? " by attacking" : " from " + place(o[1]);
        return said("Feed species " + (o[0] + 1) + how, [speciesOf(seat, o[0])].concat(pile(o[1])));
      default: return null;
    }
  }

  Ludus.games.evolution = { draw: draw, describe: describe, mark: mark, option: option };
})();
