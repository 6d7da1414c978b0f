/* Marine on the board: the hex earth (terrain, elements on corners, species per animal, thriving), the action
   display, the Evolution card slots, and the VP track with the players' scores and the elements' target markers. */
(function () {
  "use strict";
  var Ludus = (window.Ludus = window.Ludus || { games: {} });
  var d = function () { return Ludus.dom; };
  var SIZE = 46, SQRT3 = Math.sqrt(3);
  var TERRAIN = {
    "Land": ["#e9dcae", "Land"], "Kelp Forest": ["#b7e0a8", "Kelp"], "Coral Reef": ["#fbc9cf", "Reef"],
    "Seamount": ["#d0c8ec", "Seamount"], "Seagrass Meadow": ["#d9f2c2", "Seagrass"], "Sand Plain": ["#f6e8c6", "Sand"],
    "Open Ocean": ["#bcd9fb", "Ocean"], "Hydrothermal Vent": ["#fed7aa", "Vent"],
  };
  var ELEMENT = {
    Algae: ["Al", "#15803d"], Gastropods: ["Ga", "#92400e"], Plankton: ["Pl", "#0e7490"],
    Sponges: ["Sp", "#c2410c"], Sun: ["Su", "#a16207"], Worms: ["Wo", "#be185d"],
  };
  var SEAT_COLOURS = ["#1d4ed8", "#b91c1c", "#047857", "#7c3aed", "#b45309", "#0e7490"];

  function centre(q, r) { return [SIZE * SQRT3 * (q + r / 2), SIZE * 1.5 * r]; }
  function corner(q, r, side) { var c = centre(q, r); return [c[0], c[1] + (side === "N" ? -SIZE : SIZE)]; }
  function hexPoints(cx, cy) {
    var points = [];
    for (var i = 0; i < 6; i++) {
      var angle = Math.PI / 180 * (60 * i - 90);
      points.push((cx + SIZE * Math.cos(angle)).toFixed(1) + "," + (cy + SIZE * Math.sin(angle)).toFixed(1));
    }
    return points.join(" ");
  }

  function earth(view, ctx) {
    var svg = d().svg;
    var xs = [], ys = [];
    view.tiles.forEach(function (t) { var c = centre(t.hex[0], t.hex[1]); xs.push(c[0]); ys.push(c[1]); });
    var pad = SIZE + 14;
    var minX = Math.min.apply(null, xs) - pad, minY = Math.min.apply(null, ys) - pad;
    var width = Math.max.apply(null, xs) + pad - minX, height = Math.max.apply(null, ys) + pad - minY;
    var root = svg("svg", { viewBox: [minX, minY, width, height].map(function (v) { return v.toFixed(0); }).join(" "),
      role: "img", "aria-labelledby": "earth-title" });
    root.appendChild(svg("title", { id: "earth-title", text: "The earth: " + view.tiles.length + " tiles" }));
    view.tiles.forEach(function (tile) { root.appendChild(hexTile(tile, view, ctx)); });
    (view.elements || []).forEach(function (e) {
      var p = corner(e[0], e[1], e[2]), info = ELEMENT[e[3]] || [e[3].slice(0, 2), "#334155"];
      root.appendChild(svg("g", { class: "element", "data-element": e[3], "data-corner": e.slice(0, 3).join(",") }, [
        svg("title", { text: e[3] + " at corner " + e.slice(0, 3).join(",") }),
        svg("circle", { cx: p[0], cy: p[1], r: 11, fill: "#ffffff", stroke: info[1], "stroke-width": 3 }),
        svg("text", { x: p[0], y: p[1] + 4, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: "#111827", text: info[0] }),
      ]));
    });
    return root;
  }

  function hexTile(tile, view, ctx) {
    var svg = d().svg, c = centre(tile.hex[0], tile.hex[1]), t = TERRAIN[tile.terrain] || ["#e5e7eb", tile.terrain];
    var group = svg("g", { class: "tile", "data-hex": tile.hex.join(",") }, [
      svg("title", { text: tile.terrain + " [" + tile.hex.join(", ") + "]: " + tile.species.map(function (n, s) {
        return (view.animals[s] || "seat " + (s + 1)) + " " + n + (tile.thriving[s] ? " (thriving)" : "");
      }).join(", ") }),
      svg("polygon", { points: hexPoints(c[0], c[1]), fill: t[0], stroke: "#475569", "stroke-width": 1.5 }),
      svg("text", { x: c[0], y: c[1] - 22, "text-anchor": "middle", "font-size": 10, fill: "#1f2937", class: "terrain",
        text: t[1] }),
      svg("text", { x: c[0], y: c[1] - 10, "text-anchor": "middle", "font-size": 10, fill: "#374151", class: "hex-label",
        text: tile.hex[0] + "," + tile.hex[1] }),
    ]);
    // Terrain and coordinates at the top, the species discs below in rows of up to three: all clear of the element
    // discs on the north and south corners.
    var present = [];
    tile.species.forEach(function (n, seat) { if (n > 0) present.push(seat); });
    var perRow = present.length > 4 ? 3 : 2;
    present.forEach(function (seat, i) {
      var row = Math.floor(i / perRow), inRow = Math.min(perRow, present.length - row * perRow), k = i % perRow;
      var x = c[0] + (k - (inRow - 1) / 2) * (perRow === 3 ? 22 : 24), y = c[1] + 6 + row * 19;
      var colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
      group.appendChild(svg("circle", { cx: x, cy: y, r: 9, fill: colour, stroke: tile.thriving[seat] ? "#facc15" : "#ffffff",
        "stroke-width": tile.thriving[seat] ? 3 : 1.5 }));
      group.appendChild(svg("text", { x: x, y: y + 4, "text-anchor": "middle", "font-size": 11, "font-weight": 700,
        fill: "#ffffff", text: String(tile.species[seat]) }));
    });
    return group;
  }

  function animalsLegend(view, ctx) {
    var el = d().el;
    return el("ul", { class: "seats legend-row" }, view.animals.map(function (animal, seat) {
      return el("li", { class: "seat-" + seat }, [el("span", { class: "dot", "aria-hidden": "true" }),
        d().seatName(ctx, seat) + ": " + animal + " · " + view.pawns[seat] + " pawn(s) left · supply " + view.species_supply[seat]]);
    }));
  }

  var SPACES = [["speciation", 3], ["migration", 3], ["wanderlust", 2], ["evolution", 5], ["domination", 3]];

  function actionDisplay(view, ctx) {
    var el = d().el, box = el("div", { class: "display-grid", "data-display": "" });
    SPACES.forEach(function (pair) {
      for (var k = 1; k <= pair[1]; k++) {
        var id = pair[0] + "_" + k, taken = view.display[id];
        var marker = pair[0] === "evolution" && view.markers ? " · " + (view.markers[k - 1] || "") : "";
        box.appendChild(el("div", { class: "space" + (taken ? " taken seat-" + taken[0] : ""), "data-space": id }, [
          el("strong", { text: d().humanize(pair[0]) + " " + k }), marker,
          el("div", {}, taken ? [el("span", { class: "dot", "aria-hidden": "true" }),
            "Seat " + (taken[0] + 1) + (taken[1] !== "pawn" ? " (" + taken[1] + ")" : "")] : [el("span", { class: "muted", text: "free" })]),
        ]));
      }
    });
    return box;
  }

  function effectText(effect) { return d().humanize(effect[0]) + " " + effect.slice(1).join(" "); }

  function slots(view) {
    var el = d().el, box = el("div", { class: "slots" });
    view.slots.forEach(function (slot, i) {
      box.appendChild(el("div", { class: "slot", "data-slot": i + 1 }, slot ? [
        el("span", { class: "muted small", text: "Slot " + (i + 1) }), el("strong", { text: slot.card }),
        el("div", { text: slot.effects.map(effectText).join(", ") }),
        slot.event && slot.event.length ? el("div", { class: "muted", text: "event: " + slot.event.map(effectText).join(", ") }) : null,
      ] : [el("span", { class: "muted", text: "Slot " + (i + 1) + ": empty" })]));
    });
    box.appendChild(el("div", { class: "pile" }, [el("span", { class: "n", text: String(view.deck_count) }), "in deck",
      view.asteroid_taken ? el("div", { class: "fault", text: "Asteroid taken!" }) : null]));
    return box;
  }

  /* Label lanes: seats sorted by score, each label in the first lane where it clears the last label by `gap`. */
  function lanes(xs, gap) {
    var order = xs.map(function (x, seat) { return seat; }).sort(function (a, b) { return xs[a] - xs[b] || a - b; });
    var ends = [], lane = [];
    order.forEach(function (seat) {
      var k = 0;
      while (ends[k] !== undefined && xs[seat] - ends[k] < gap) k++;
      ends[k] = xs[seat];
      lane[seat] = k;
    });
    return lane;
  }

  /* The track's top: the final scores once known (so it never rescales), else a round number that only grows. */
  function trackTop(view, ctx, targets) {
    var needed = Math.max.apply(null, [20].concat(view.scores, ctx.finalScores || [],
      targets.map(function (t) { return t[1].target; })));
    var top = needed <= 50 ? 50 : needed <= 100 ? 100 : Math.ceil(needed / 100) * 100;
    ctx.vpTop = Math.max(ctx.vpTop || 0, top);
    return ctx.vpTop;
  }

  function vpTrack(view, ctx) {
    var svg = d().svg, el = d().el;
    var targets = Object.keys(view.special_pawns || {}).map(function (name) { return [name, view.special_pawns[name]]; });
    var top = trackTop(view, ctx, targets);
    // Drawn at the board's own width, so its text keeps its size on a phone instead of shrinking with a wide drawing.
    var W = Math.max(300, Math.min(900, ctx.boardWidth || 720)), left = 20, right = 24, scale = (W - left - right) / top;
    var xs = view.scores.map(function (score) { return left + score * scale; });
    var lane = lanes(xs, 46), laneCount = Math.max.apply(null, [1].concat(lane.map(function (k) { return k + 1; })));
    var barY = 16 + laneCount * 16, shift = barY - 40;
    var root = svg("svg", { viewBox: "0 0 " + W + " " + (160 + shift), role: "img", "aria-labelledby": "vp-title", class: "vp-svg",
      width: W, "data-top": top });
    root.appendChild(svg("title", { id: "vp-title", text: "VP track: scores " + view.scores.join(", ") +
      "; target markers " + targets.map(function (t) { return t[0] + " " + t[1].target; }).join(", ") }));
    root.appendChild(svg("rect", { class: "track", x: left, y: barY, width: W - left - right, height: 14, fill: "#e2e8f0", rx: 4 }));
    var tick = top <= 50 ? 10 : top <= 100 ? 20 : top <= 300 ? 50 : 100;
    for (var v = 0; v <= top; v += tick) {
      var x = left + v * scale;
      root.appendChild(svg("line", { x1: x, x2: x, y1: barY - 2, y2: barY + 16, stroke: "#64748b" }));
      root.appendChild(svg("text", { class: "tick", x: x, y: barY + 30, "text-anchor": "middle", "font-size": 12, fill: "#334155", text: String(v) }));
    }
    view.scores.forEach(function (score, seat) {
      var x = xs[seat], colour = SEAT_COLOURS[seat % SEAT_COLOURS.length], y = barY - 6 - lane[seat] * 16;
      root.appendChild(svg("g", { class: "vp-marker seat-" + seat, "data-seat": seat, "data-lane": lane[seat] }, [
        svg("line", { x1: x, x2: x, y1: y, y2: barY, stroke: colour, "stroke-width": 2 }),
        svg("polygon", { points: [x, barY + 2, x - 5, barY - 6, x + 5, barY - 6].join(" "), fill: colour }),
        svg("text", { x: x + 4, y: y - 2, "font-size": 12, "font-weight": 700, fill: colour, text: "S" + (seat + 1) + " " + score }),
      ]));
    });
    // The target markers on their own scale below: they stay small while the scores run into the hundreds.
    var placed = targets.filter(function (t) { return t[1].target > 0; })
      .sort(function (a, b) { return a[1].target - b[1].target; });
    var topT = Math.max(20, Math.ceil((Math.max.apply(null, [0].concat(placed.map(function (t) { return t[1].target; }))) + 1) / 5) * 5);
    topT = ctx.vpTopT = Math.max(ctx.vpTopT || 0, topT);  // grows, never shrinks: markers do not jump
    var scaleT = (W - left - right) / topT;
    root.appendChild(svg("text", { class: "tick", x: left, y: 88 + shift, "font-size": 11, fill: "#334155", text: "target markers" }));
    root.appendChild(svg("rect", { class: "track", x: left, y: 94 + shift, width: W - left - right, height: 8, fill: "#e2e8f0", rx: 3 }));
    for (var tv = 0; tv <= topT; tv += 5) {
      var tx = left + tv * scaleT;
      root.appendChild(svg("line", { x1: tx, x2: tx, y1: 92 + shift, y2: 104 + shift, stroke: "#64748b" }));
      root.appendChild(svg("text", { class: "tick", x: tx, y: 116 + shift, "text-anchor": "middle", "font-size": 11, fill: "#334155", text: String(tv) }));
    }
    placed.forEach(function (t, k) {
      var x = left + t[1].target * scaleT, info = ELEMENT[t[0]] || [t[0].slice(0, 2), "#334155"], y = 128 + shift + (k % 3) * 12;
      root.appendChild(svg("g", { class: "target-marker", "data-element": t[0] }, [
        svg("title", { text: t[0] + " target marker at " + t[1].target }),
        svg("line", { x1: x, x2: x, y1: 102 + shift, y2: y - 5, stroke: info[1], "stroke-width": 1 }),
        svg("rect", { x: x - 5, y: y - 5, width: 10, height: 10, transform: "rotate(45 " + x + " " + y + ")",
          fill: info[1], stroke: "#fff", "stroke-width": 1 }),
        svg("text", { class: "ink", x: x + 8, y: y + 4, "font-size": 11, "font-weight": 700, fill: "#111827", text: info[0] + " " + t[1].target }),
      ]));
    });
    var legend = el("ul", { class: "plain small" }, targets.map(function (t) {
      var p = t[1];
      return el("li", { "data-target": t[0] }, [el("strong", { text: t[0] }), ": target " + p.target +
        (p.controller === null || p.controller === undefined ? ", no controller" : ", controlled by Seat " + (p.controller + 1)) +
        " (pawn: " + p.place + ")"]);
    }));
    return el("div", { class: "vptrack-box" }, [root, legend]);
  }

  function scoreboard(view, ctx) {
    var el = d().el;
    return el("div", { class: "scores" }, view.scores.map(function (score, seat) {
      var parts = view.score_parts ? view.score_parts[seat] : null;
      return el("div", { class: "score seat-" + seat, "data-seat": seat, "data-animal": view.animals[seat] }, [
        el("div", {}, [d().seatLabel(ctx, seat), " · " + view.animals[seat]]),
        el("span", { class: "n player-score", "data-score": score, text: String(score) }), " VP",
        parts ? el("div", { class: "muted small", text: Object.keys(parts).map(function (k) { return k + " " + parts[k]; }).join(" · ") }) : null,
      ]);
    }));
  }

  function section(title, body) {
    var el = d().el;
    return el("section", { class: "marine-part" }, [el("h3", { text: title }), body]);
  }

  function draw(board, frame, ctx) {
    var el = d().el, view = frame.view;
    board.appendChild(el("p", { class: "muted" }, ["Round ", el("strong", { text: String(view.round) }), " · ",
      view.phase === "over" ? "game over" : d().humanize(view.phase), " · first player: " + d().seatName(ctx, view.first_player)]));
    board.appendChild(animalsLegend(view, ctx));
    board.appendChild(scoreboard(view, ctx));
    // The earth fits the board's width on any screen: no sideways scroll hides part of it.
    var frameNode = el("div", { class: "earth-frame" }, [earth(view, ctx)]);
    board.appendChild(el("div", { class: "marine" }, [
      el("div", { class: "earth" }, [frameNode, el("p", { class: "note", text:
        "Circles: species per animal, in the seat's colour; a yellow ring marks thriving species. " +
        "Corner discs: elements (Al Algae, Ga Gastropods, Pl Plankton, Sp Sponges, Su Sun, Wo Worms)." })]),
      section("VP track", vpTrack(view, ctx)),
      section("Action display", actionDisplay(view, ctx)),
      section("Evolution cards", slots(view)),
    ]));
  }

  /* Every event in plain words; hexes as (q, r), the labels drawn on the map; seats counted from 1. */
  function hex(h) { return "(" + h[0] + ", " + h[1] + ")"; }
  function cornerName(c) { return hex(c) + " " + (c[2] === "N" ? "north" : "south") + " corner"; }

  function describe(event, ctx) {
    var seat = function (n) { return d().seatName(ctx, n); };
    var who = typeof event.seat === "number" ? seat(event.seat) + ": " : "";
    var vps = function (list) {
      return list.length ? list.map(function (p) { return seat(p[0]) + " +" + p[1] + " VP"; }).join(", ") : "nobody scores";
    };
    var e = event;
    switch (e.event) {
      case "placed": return who + "places a " + (e.pawn === "pawn" ? "pawn" : e.pawn + " pawn") + " on " + d().humanize(e.space);
      case "moved": return who + "moves a species from " + hex(e.source) + " to " + hex(e.target);
      case "element": return who + "puts " + e.element + " on " + cornerName(e.corner);
      case "new_tile": return who + "adds a " + e.terrain + " tile at " + hex(e.tile);
      case "evolution_score": return who + "scores the tile at " + hex(e.tile) + ": " + vps(e.vp);
      case "final_score": return "Final scoring of " + hex(e.tile) + ": " + vps(e.vp);
      case "card_taken": return who + "takes " + e.card + " from slot " + e.slot;
      case "card_dealt": return e.card + " is dealt to slot " + e.slot;
      case "card_discarded": return (typeof e.seat === "number" ? who + "discards " : "Slot " + e.slot + ": ") + e.card +
        (typeof e.seat === "number" ? "" : " is discarded");
      case "domination": return who + "dominates " + e.element + " (value " + e.value + ", target " + e.target + ")";
      case "speciation": return who + "speciates with " + e.element + " at " + cornerName(e.corner) + ": " +
        e.added.map(function (a) { return "+" + a[2] + " at " + hex(a); }).join(", ");
      case "species": return who + "+" + e.added + " species at " + hex(e.tile);
      case "removed": return who + "removes a species of " + seat(e.rival) + " at " + hex(e.tile);
      case "vp": return who + "+" + e.vp + " VP";
      case "all_gain": return "Every species on " + e.terrain + " grows by " + e.amount;
      case "all_lose": return "Every species on " + e.terrain + " shrinks by " + e.amount;
      case "asteroid": return who + "takes the Asteroid";
      case "round": return "Round " + e.round + " begins; first player " + seat(e.first_player);
      case "game_over": return "Game over" + (e.scores ? ": " + e.scores.map(function (v, s) { return seat(s) + " " + v + " VP"; }).join(", ") : "");
      default: return null;
    }
  }

  /* What the last action changed: tiles new or different since the step before (species, elements, thriving). */
  function mark(board, before, view) {
    var old = {}, corners = {};
    before.tiles.forEach(function (t) { old[t.hex.join(",")] = JSON.stringify(t); });
    (before.elements || []).forEach(function (e) { corners[e.join(",")] = true; });
    view.tiles.forEach(function (t) {
      var key = t.hex.join(",");
      if (old[key] !== JSON.stringify(t)) board.querySelector(".tile[data-hex='" + key + "']").classList.add("changed");
    });
    Array.prototype.forEach.call(board.querySelectorAll(".element"), function (node, i) {
      if (!corners[(view.elements[i] || []).join(",")]) node.classList.add("changed");
    });
  }

  /* One option of a decision in the game's words (docs/rules/marine.md, "Decisions a bot sees"): hexes as (q, r) like
     the labels on the map, slots and spaces counted from 1; and what it touches on the board. */
  function option(o, decision, ctx) {
    var tile = function (h) { return ".tile[data-hex='" + h[0] + "," + h[1] + "']"; };
    var cornerMark = function (c) { return ".element[data-corner='" + c.join(",") + "']"; };
    var said = function (text, marks) { return { text: text, marks: marks || [] }; };
    switch (decision.kind) {
      case "place":
        return o[1] ? said(d().humanize(o[0]) + " " + o[1], [".space[data-space='" + o[0] + "_" + o[1] + "']"])
          : said(d().humanize(o[0]), [".space[data-space^='" + o[0] + "_']"]);
      case "speciate": case "wanderlust_corner": case "card_corner":
        return said(cornerName(o), [cornerMark(o), tile(o)]);
      case "move": return o === "done" ? said("Done moving")
        : said("Move a species from " + hex(o[0]) + " to " + hex(o[1]), [tile(o[0]), tile(o[1])]);
      case "wanderlust_move": return o === "done" ? said("Done moving") : said("Move a species from " + hex(o), [tile(o)]);
      case "wanderlust_stack": return said("The top tile of stack " + (o + 1));
      case "wanderlust_hex": return said("The new tile at " + hex(o), [tile(o)]);
      case "evolution_tile": return said("Score the tile at " + hex(o), [tile(o)]);
      case "card_species_tile": return said("Add species at " + hex(o), [tile(o)]);
      case "evolution_card": return said("The card in slot " + o, [".slot[data-slot='" + o + "']"]);
      case "wanderlust_element": case "card_element": return said(o, [".element[data-element='" + o + "']"]);
      case "dominate": return said("Dominate " + o, [".element[data-element='" + o + "']"]);
      case "card_remove": return said("Remove a species of the " + o, [".score[data-animal='" + o + "']"]);
      default: return null;
    }
  }

  Ludus.games.marine = { draw: draw, describe: describe, mark: mark, option: option };
})();
