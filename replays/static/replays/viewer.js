/* Ludus replay viewer: fetches frames in chunks, draws them with the game's module, keeps controls, the decision
   panel and the event log in step. Live matches poll the log for progress. No framework, no build step. */
(function () {
  "use strict";
  var Ludus = (window.Ludus = window.Ludus || { games: {} });

  /* ---- small DOM helpers, shared with the game modules ---- */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }
  var SVGNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, children) {
    var node = document.createElementNS(SVGNS, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }
  function setAttrs(node, attrs) {
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key === "text") node.textContent = value;
      else if (key === "class") node.setAttribute("class", value);
      else node.setAttribute(key, value === true ? "" : String(value));
    });
  }
  function append(node, children) {
    (Array.isArray(children) ? children : children === undefined ? [] : [children]).forEach(function (child) {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    });
  }
  function seatName(ctx, seat) {
    var info = ctx.seats[seat];
    return "Seat " + (seat + 1) + (info ? " (" + info.label + ")" : "");
  }
  function humanize(text) { return String(text).replace(/_/g, " "); }
  /* "1 point", "14 points", "3 VP": the game's score unit, one and many (engine.registry.viewer_of). */
  function points(ctx, n) { return n + " " + ctx.units[n === 1 ? 0 : 1]; }
  function isScalar(value) { return value === null || typeof value !== "object"; }
  function short(value) {
    if (value === null || value === undefined) return "";
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every(isScalar)) return value.join(" ");  // ["card", "Horns:3"]
    if (Array.isArray(value) && value.every(function (v) { return Array.isArray(v) && v.every(isScalar); })) {
      return value.map(function (v) { return "[" + v.join(", ") + "]"; }).join(" ");  // [[q, r], [q, r]]
    }
    return JSON.stringify(value);
  }
  /* The seat's name as a node: the bot's label kept whole ("greedy-2@1" never breaks at its hyphen). */
  function seatLabel(ctx, seat) {
    var info = ctx.seats[seat];
    return el("span", { class: "seat-name" }, ["Seat " + (seat + 1) + (info ? " " : ""),
      info ? el("span", { class: "bot-name", text: "(" + info.label + ")" }) : null]);
  }
  Ludus.dom = { el: el, svg: svg, seatName: seatName, seatLabel: seatLabel, humanize: humanize, short: short,
    points: points };

  /* One option of a decision in the game's own words, and what it touches on the board (CSS selectors inside the
     board): the game's option(option, decision, ctx) when it has one, else the raw value. */
  function describeOption(option, decision, ctx) {
    var game = Ludus.games[ctx.game];
    var custom = game && game.option ? game.option(option, decision, ctx) : null;
    return custom || { text: short(option), marks: [] };
  }
  Ludus.describeOption = describeOption;

  /* ---- the generic event description; games may override describe(event, ctx) ---- */
  function describeEvent(event, ctx) {
    var game = Ludus.games[ctx.game];
    var custom = game && game.describe ? game.describe(event, ctx) : null;
    if (custom) return custom;
    var parts = [];
    Object.keys(event).forEach(function (key) {
      if (key === "event" || key === "seat") return;
      parts.push(humanize(key) + " " + short(event[key]));
    });
    var who = typeof event.seat === "number" ? seatName(ctx, event.seat) + ": " : "";
    return who + humanize(event.event || "event") + (parts.length ? " — " + parts.join(", ") : "");
  }
  Ludus.describeEvent = describeEvent;

  function Viewer(config) {
    this.cfg = config;
    this.ctx = { game: config.game, seats: config.seats, players: config.players, units: config.score_units };
    this.chunk = config.chunk || 40;
    this.chartMark = null;  // the score chart's keyboard marker (bindChartKeys), a step while the chart has the focus
    this.view = config.view;
    this.views = config.views;
    this.status = config.status;
    this.frames = {};      // view -> {step: frame}
    this.pending = {};     // view:chunk -> promise
    this.logEntries = [];  // by step - 1
    this.steps = 0;
    this.step = 0;
    this.timer = null;
    this.shownStep = -1;
    this.finished = false;
    this.follow = config.status === "running";
    this.maxFaults = config.max_faults || 3;
    this.revealed = this.watched();
  }

  /* No spoilers (docs/architecture.md#replays): a finished match not yet watched to its end keeps its result, the
     scores after the shown step and the header's final ranks out of sight until the reader ticks "Show result". The
     browser remembers a match watched to its end. */
  Viewer.prototype.watched = function () {
    try { return window.localStorage.getItem("ludus:watched:" + this.cfg.match) === "1"; } catch (e) { return false; }
  };

  Viewer.prototype.reveal = function (shown) {
    if (shown === this.revealed) return;
    this.revealed = shown;
    try {
      if (shown) window.localStorage.setItem("ludus:watched:" + this.cfg.match, "1");
      else window.localStorage.removeItem("ludus:watched:" + this.cfg.match);
    } catch (e) { /* private browsing: remembered for this page only */ }
    this.showSpoilers();
    this.drawScores();
  };

  Viewer.prototype.spoilerFree = function () { return this.finished && !this.revealed; };

  Viewer.prototype.showSpoilers = function () {
    var box = this.$("show-result-box"), hide = this.spoilerFree();
    box.hidden = !this.finished;
    this.$("show-result").checked = !hide;
    this.$("seat-list").classList.toggle("spoiler-hidden", hide);
  };

  Viewer.prototype.$ = function (id) { return document.getElementById(id); };

  Viewer.prototype.start = function () {
    var self = this;
    this.bindControls();
    this.fillViews();
    var link = this.readLink();
    window.addEventListener("hashchange", function () {
      var again = self.readLink();
      if (again.step === null && again.view === null) return;
      self.pause();
      self.follow = false;
      self.go(again.step === null ? self.step : again.step);
    });
    return this.pollLog().then(function () {
      var start = link.step !== null ? link.step : self.follow ? Math.max(0, self.steps - 1) : 0;
      if (link.step !== null) self.follow = false;
      return self.go(start);
    });
  };

  /* Deep links: #step=N&view=V opens step N (the Nth decision and the board after it) in view V, if allowed. */
  Viewer.prototype.readLink = function () {
    var params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
    var step = params.get("step"), view = params.get("view");
    if (view !== null && this.views.indexOf(view) >= 0 && view !== this.view) {
      this.view = view;
      this.fillViews();
    }
    return { step: step !== null && /^\d+$/.test(step) ? Number(step) : null, view: view };
  };

  Viewer.prototype.writeLink = function () {
    var hash = "#step=" + this.step + (this.view ? "&view=" + this.view : "");
    if (window.location.hash !== hash) history.replaceState(null, "", hash);
  };

  Viewer.prototype.fillViews = function () {
    var select = this.$("view-select"), self = this;
    select.textContent = "";
    if (this.views.indexOf(this.view) < 0) {
      this.view = this.views.indexOf("omniscient") >= 0 ? "omniscient" : (this.views[0] || null);
    }
    select.parentNode.hidden = !this.views.length;
    this.views.forEach(function (v) {
      var label = v === "omniscient" ? "Everything (omniscient)" : v === "public" ? "Public (what every seat sees)"
        : "As " + seatName(self.ctx, Number(v));
      select.appendChild(el("option", { value: v, text: label, selected: v === self.view }));
    });
  };

  Viewer.prototype.pollLog = function () {
    var self = this;
    var url = this.cfg.urls.log + "?since=" + this.logEntries.length;
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
      if (!r.ok) throw new Error("log " + r.status);
      return r.json();
    }).then(function (body) {
      body.log.forEach(function (entry) { self.logEntries[entry.step - 1] = entry; });
      self.steps = Math.max(body.steps, self.logEntries.length + 1);
      // Once over, a view's frames carry every seat's choice: those read while it ran are read again.
      if (body.finished && !self.finished && self.shownStep >= 0) { self.frames = {}; self.pending = {}; }
      self.finished = body.finished;
      self.outcome = body.outcome || null;
      self.forfeited = body.forfeited || null;
      self.setStatus(body.status);
      if (body.views.join() !== self.views.join()) {
        var before = self.view;
        self.views = body.views;
        self.fillViews();
        if (self.view !== before && self.shownStep >= 0) self.go(self.step);
      }
      if (body.finished && body.outcome) self.showOutcome();
      self.showSpoilers();
      self.renderLogEntries();
      self.findFaults();
      self.updateRange();
      if (self.shownStep >= 0) self.drawFinal();  // the end may arrive after the last step was drawn
      if (body.status === "running") self.schedulePoll();
      return body;
    });
  };

  Viewer.prototype.schedulePoll = function () {
    var self = this;
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(function () {
      var atEnd = self.step >= self.steps - 1;
      self.pollLog().then(function () {
        if (self.follow && atEnd && self.step < self.steps - 1) self.go(self.steps - 1);
      }).catch(function () { self.schedulePoll(); });
    }, 1000);
  };

  Viewer.prototype.setStatus = function (status) {
    var badge = this.$("match-status");
    this.status = status;
    badge.textContent = status;
    badge.className = "status status-" + status;
    this.$("live-badge").hidden = status !== "running";
  };

  /* The header once the match is over (also when it ends while the page is open): each seat's rank and score, and
     the replay file's link. */
  Viewer.prototype.showOutcome = function () {
    var ctx = this.ctx, outcome = this.outcome;
    Array.prototype.forEach.call(document.querySelectorAll("#seat-list li[data-seat]"), function (item) {
      var seat = Number(item.getAttribute("data-seat")), result = item.querySelector(".result");
      if (!result || outcome.scores[seat] === undefined) return;
      result.textContent = "#" + outcome.ranks[seat] + ", " + points(ctx, outcome.scores[seat]);
      result.hidden = false;
    });
    this.$("download").hidden = false;
  };

  /* Faults from the event log: each seat's faulty steps, and the step from which it forfeited: a process that died
     (died, oom) forfeits at once, any other fault counts, and max_faults of them forfeit (docs/bots.md). A seat that
     never started has no fault step: the outcome says it forfeited from the start. */
  Viewer.prototype.findFaults = function () {
    var self = this, faults = [], forfeitAt = {}, counts = {};
    this.logEntries.forEach(function (entry) {
      if (!entry || !entry.fault) return;
      faults.push(entry);
      counts[entry.seat] = (counts[entry.seat] || 0) + 1;
      if (forfeitAt[entry.seat] === undefined &&
          (/^(died|oom)$/.test(entry.fault) || counts[entry.seat] >= self.maxFaults)) forfeitAt[entry.seat] = entry.step;
    });
    (this.forfeited || []).forEach(function (lost, seat) {
      if (lost && forfeitAt[seat] === undefined) forfeitAt[seat] = 0;
    });
    this.faults = faults;
    this.forfeitAt = forfeitAt;
    this.$("btn-next-fault").hidden = !faults.length;
  };

  Viewer.prototype.nextFault = function () {
    var step = this.step, faults = this.faults || [];
    var next = faults.filter(function (entry) { return entry.step > step; })[0] || faults[0];
    if (!next) return;
    this.pause();
    this.follow = false;
    this.go(next.step);
  };

  Viewer.prototype.fetchChunk = function (view, index) {
    var key = view + ":" + index, self = this;
    if (this.pending[key]) return this.pending[key];
    var start = index * this.chunk;
    // The API's frames (/api/matches/ID/frames/): a seat's view or "public" is its `seat`; the omniscient has none.
    var url = this.cfg.urls.frames + "?start=" + start + "&stop=" + (start + this.chunk) +
      (view === "omniscient" ? "" : "&seat=" + encodeURIComponent(view));
    var promise = fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
      if (!r.ok) throw new Error("frames " + r.status);
      return r.json();
    }).then(function (body) {
      var store = (self.frames[view] = self.frames[view] || {});
      body.frames.forEach(function (frame) { store[frame.step] = frame; });
      delete self.pending[key];  // a live chunk that came back short is fetched again later
      return body;
    }, function (error) { delete self.pending[key]; throw error; });
    this.pending[key] = promise;
    return promise;
  };

  Viewer.prototype.frame = function (step) {
    var store = this.frames[this.view] || {}, self = this;
    if (store[step]) return Promise.resolve(store[step]);
    return this.fetchChunk(this.view, Math.floor(step / this.chunk)).then(function () {
      return (self.frames[self.view] || {})[step] || null;
    });
  };

  Viewer.prototype.go = function (step) {
    var self = this;
    step = Math.max(0, Math.min(step, this.steps - 1));
    this.step = step;
    this.updateRange();
    if (!this.playing) this.writeLink();
    var view = this.view;
    if (!view) { this.drawWithoutView(step); return Promise.resolve(); }
    return this.frame(step).then(function (frame) {
      if (!frame || self.step !== step || self.view !== view) return;
      self.draw(frame);
      var next = Math.floor(step / self.chunk) + 1;
      if (next * self.chunk < self.steps && !(self.frames[view] || {})[next * self.chunk]) {
        self.fetchChunk(view, next).catch(function () {});  // prefetch, for smooth playing
      }
    }).catch(function (error) {
      self.pause();
      var board = self.$("board");
      board.textContent = "";
      board.appendChild(el("p", { class: "alert bad", role: "alert",
        text: "Could not load step " + step + " (" + error.message + "). Try again, or reload the page." }));
    });
  };

  Viewer.prototype.draw = function (frame) {
    var board = this.$("board"), game = Ludus.games[this.cfg.game];
    board.textContent = "";
    this.ctx.boardWidth = board.clientWidth - 24;
    this.ctx.finalScores = this.outcome ? this.outcome.scores : null;
    if (game) game.draw(board, frame, this.ctx);
    else board.appendChild(el("pre", { text: JSON.stringify(frame.view, null, 1) }));
    this.markSeats(board, frame);
    this.loadScores();
    this.drawScores();
    var before = (this.frames[this.view] || {})[frame.step - 1];
    if (game && game.mark && before) game.mark(board, before.view, frame.view);
    board.setAttribute("aria-busy", "false");
    board.setAttribute("data-step", frame.step);
    board.setAttribute("data-view", this.view);
    this.shownStep = frame.step;
    if (this.finished && frame.step === this.steps - 1 && !this.revealed) this.reveal(true);  // watched to the end
    this.drawDecision(frame);
    this.drawBranchForm(frame);
    this.drawStderr(frame.step);
    this.syncLog();
    this.drawFinal();
  };

  /* The board marks the seat whose decision the panel shows (it just acted) and tags the seat to act next. */
  Viewer.prototype.markSeats = function (board, frame) {
    var self = this, acted = frame.decided ? frame.decided.seat : null, next = frame.decision ? frame.decision.seat : null;
    Array.prototype.forEach.call(board.querySelectorAll(".player[data-seat], .score[data-seat]"), function (node) {
      var seat = Number(node.getAttribute("data-seat"));
      node.classList.toggle("active", seat === acted);
      node.classList.toggle("next", seat === next);
      var heading = node.querySelector("h3, div");
      heading = heading && (heading.firstElementChild || heading);
      if (heading && seat === acted) heading.appendChild(el("span", { class: "seat-tag", text: "just played" }));
      if (heading && seat === next) heading.appendChild(el("span", { class: "seat-tag next", text: "to play" }));
      var fault = self.faultTag(seat, frame.step);
      node.classList.toggle("forfeited", !!fault && fault.forfeited);
      if (fault) node.setAttribute("data-fault", fault.forfeited ? "forfeited" : "faulty");
      if (heading && fault) heading.appendChild(el("span", { class: "seat-tag fault", text: fault.text }));
    });
  };

  /* A seat's faults up to a step, as its card says them: "forfeited at step 12 (died)" or "2 faults". */
  Viewer.prototype.faultTag = function (seat, step) {
    var mine = (this.faults || []).filter(function (entry) { return entry.seat === seat && entry.step <= step; });
    var at = (this.forfeitAt || {})[seat];
    if (at !== undefined && at <= step) {
      var cause = mine.length ? mine[mine.length - 1].fault : "did not start";
      return { forfeited: true, text: "forfeited " + (at ? "at step " + at : "from the start") + " (" + humanize(cause) +
        "): plays the default" };
    }
    if (!mine.length) return null;
    return { forfeited: false, text: mine.length + " fault" + (mine.length === 1 ? "" : "s") + " (" +
      humanize(mine[mine.length - 1].fault) + ")" };
  };

  /* The score chart under the scrubber: each seat's score after every step in the current view; a click goes there.
     Fetched once per view of a finished match; while it runs, again every ten steps and when it ends. */
  Viewer.prototype.loadScores = function () {
    var self = this, view = this.view, key = view + ":" + (this.finished ? "end" : Math.floor(this.steps / 10));
    if (!view || this.scoresKey === key) return;
    this.scoresKey = key;
    fetch(this.cfg.urls.scores + "?view=" + encodeURIComponent(view), { headers: { Accept: "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error("scores " + r.status); return r.json(); })
      .then(function (body) { if (self.view === view) { self.scores = body.scores; self.drawScores(); } })
      .catch(function () { self.scoresKey = null; });
  };

  /* The chart: axes with round ticks, each seat's line in its colour, a legend with the scores at the shown step, a
     dashed line at that step, and a tooltip under the pointer. Drawn at the box's own width, so its text keeps its
     size. While a finished match is not watched to its end (spoilerFree) the lines stop at the shown step. */
  var CHART_H = 160, CHART_M = { left: 40, right: 12, top: 20, bottom: 30 };
  function niceStep(span, count) {
    var raw = span / count, power = Math.pow(10, Math.floor(Math.log10(raw)));
    return [1, 2, 5, 10].map(function (k) { return k * power; }).filter(function (k) { return k >= raw; })[0];
  }

  Viewer.prototype.drawScores = function () {
    var box = this.$("score-chart-svg"), all = this.scores || [], self = this, ctx = this.ctx;
    if (this.scores) this.$("score-chart").hidden = all.length < 2;  // its room is kept while it loads: nothing jumps
    if (all.length < 2) return;
    var shownTo = this.spoilerFree() ? Math.min(this.step, all.length - 1) : all.length - 1;
    var data = all.slice(0, shownTo + 1), last = all.length - 1;
    var width = Math.max(280, box.clientWidth || 600), left = CHART_M.left, right = width - CHART_M.right;
    var top = CHART_M.top, bottom = CHART_H - CHART_M.bottom;
    var high = Math.max.apply(null, [5].concat(data.map(function (row) { return Math.max.apply(null, row); })));
    var yStep = niceStep(high, 4), yTop = Math.ceil(high / yStep) * yStep;
    var x = function (step) { return left + step * (right - left) / last; };
    var y = function (v) { return bottom - Math.max(0, v) * (bottom - top) / yTop; };
    var root = svg("svg", { width: width, height: CHART_H, viewBox: "0 0 " + width + " " + CHART_H, role: "img",
      "aria-label": "Scores after each step up to step " + shownTo + ": " + data[shownTo].map(function (v, s) {
        return seatName(ctx, s) + " " + v; }).join(", ") });
    for (var v = 0; v <= yTop; v += yStep) {
      root.appendChild(svg("line", { class: "grid", x1: left, x2: right, y1: y(v), y2: y(v) }));
      root.appendChild(svg("text", { class: "tick", x: left - 6, y: y(v) + 4, "text-anchor": "end", text: String(v) }));
    }
    var xStep = niceStep(last, Math.max(2, Math.floor((right - left) / 70)));
    for (var t = 0; t <= last; t += xStep) {
      root.appendChild(svg("line", { class: "axis", x1: x(t), x2: x(t), y1: bottom, y2: bottom + 4 }));
      root.appendChild(svg("text", { class: "tick", x: x(t), y: bottom + 16, "text-anchor": "middle", text: String(t) }));
    }
    root.appendChild(svg("line", { class: "axis", x1: left, x2: right, y1: bottom, y2: bottom }));
    root.appendChild(svg("line", { class: "axis", x1: left, x2: left, y1: top, y2: bottom }));
    root.appendChild(svg("text", { class: "axis-label", x: right, y: CHART_H - 2, "text-anchor": "end", text: "step" }));
    root.appendChild(svg("text", { class: "axis-label", x: 2, y: 11, text: ctx.units[1] }));
    data[0].forEach(function (_, seat) {
      root.appendChild(svg("polyline", { class: "score-line seat-" + seat, "data-seat": seat, fill: "none",
        points: data.map(function (row, step) { return x(step).toFixed(1) + "," + y(row[seat]).toFixed(1); }).join(" ") }));
    });
    var now = Math.min(this.step, last);
    root.appendChild(svg("line", { id: "score-chart-now", x1: x(now), x2: x(now), y1: top, y2: bottom }));
    var hover = svg("line", { class: "hover", y1: top, y2: bottom, visibility: "hidden" });
    root.appendChild(hover);
    var stepAt = function (e) {
      var rect = root.getBoundingClientRect();
      return Math.max(0, Math.min(last, Math.round((e.clientX - rect.left - left) / (right - left) * last)));
    };
    var tip = this.$("score-tip");
    // The marker and its tooltip at a step, `px` from the chart's left edge; the same words go to screen readers.
    var mark = function (step, px) {
      var row = data[step], rect = root.getBoundingClientRect(), words = ["Step " + step];
      hover.setAttribute("x1", x(step));
      hover.setAttribute("x2", x(step));
      hover.setAttribute("visibility", "visible");
      tip.textContent = "";
      tip.appendChild(el("strong", { text: words[0] }));
      if (row) row.forEach(function (value, seat) {
        words.push("Seat " + (seat + 1) + ": " + points(ctx, value));
        tip.appendChild(el("div", { class: "seat-" + seat }, [el("span", { class: "dot", "aria-hidden": "true" }),
          words[words.length - 1]]));
      }); else {
        words.push("not shown yet (Show result)");
        tip.appendChild(el("div", { class: "muted", text: words[1] }));
      }
      tip.style.left = Math.max(0, Math.min(px + 12, rect.width - 150)) + "px";
      tip.hidden = false;
      return words.join(", ");
    };
    // From the keyboard (bindChartKeys): the marker where the keys left it, in the chart's own scale.
    this.markChart = function (step) {
      var said = mark(step, x(step) * root.getBoundingClientRect().width / width);
      if (self.$("score-said").textContent !== said) self.$("score-said").textContent = said;
    };
    this.chartSteps = last;
    root.addEventListener("mousemove", function (e) { mark(stepAt(e), e.clientX - root.getBoundingClientRect().left); });
    root.addEventListener("mouseleave", function () {
      if (self.chartMark !== null) { self.markChart(self.chartMark); return; }
      hover.setAttribute("visibility", "hidden");
      tip.hidden = true;
    });
    root.addEventListener("click", function (e) {
      self.pause();
      self.follow = false;
      self.go(stepAt(e));
    });
    box.textContent = "";
    box.appendChild(root);
    if (this.chartMark !== null) this.markChart(this.chartMark = Math.min(this.chartMark, last));
    this.drawLegend(data);
  };

  /* The chart from the keyboard: focused, it shows the marker at the shown step; ← → (and ↓ ↑) move it a step,
     Page Up / Page Down ten, Home / End to either end, and Enter or space goes there, like a click. Its keys stay its
     own while it has the focus (the viewer's ← → would step the game instead). */
  Viewer.prototype.bindChartKeys = function () {
    var self = this, box = this.$("score-chart-svg"), moves = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1,
      ArrowDown: -1, PageUp: 10, PageDown: -10 };
    box.addEventListener("focus", function () {
      if (!self.markChart) return;
      self.chartMark = Math.min(self.step, self.chartSteps);
      self.markChart(self.chartMark);
    });
    box.addEventListener("blur", function () {
      self.chartMark = null;
      self.$("score-tip").hidden = true;
      var hover = box.querySelector(".hover");
      if (hover) hover.setAttribute("visibility", "hidden");
    });
    box.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey || self.chartMark === null) return;
      var at = self.chartMark;
      if (moves[e.key]) at += moves[e.key];
      else if (e.key === "Home") at = 0;
      else if (e.key === "End") at = self.chartSteps;
      else if (e.key === "Enter" || e.key === " ") { self.pause(); self.follow = false; self.go(at); }
      else return;
      e.preventDefault();
      e.stopPropagation();
      self.chartMark = Math.max(0, Math.min(self.chartSteps, at));
      self.markChart(self.chartMark);
    });
  };

  Viewer.prototype.drawLegend = function (data) {
    var list = this.$("score-legend"), ctx = this.ctx, row = data[Math.min(this.step, data.length - 1)];
    list.textContent = "";
    row.forEach(function (value, seat) {
      list.appendChild(el("li", { class: "seat-" + seat, "data-seat": seat }, [
        el("span", { class: "swatch-line", "aria-hidden": "true" }), seatLabel(ctx, seat), ": ",
        el("strong", { text: points(ctx, value) })]));
    });
  };

  Viewer.prototype.drawWithoutView = function (step) {
    var board = this.$("board");
    board.textContent = "";
    board.appendChild(el("p", { class: "muted", id: "board-hidden",
      text: "While the match runs, only the owners of its bots see the board. The event log follows the game live; " +
        "the whole game opens here once it is over." }));
    board.setAttribute("aria-busy", "false");
    board.setAttribute("data-step", step);
    this.shownStep = step;
    this.$("decision").textContent = "";
    this.$("score-chart").hidden = true;
    var entry = this.logEntries[step - 1];
    this.$("decision-line").textContent = entry ? "Seat " + (entry.seat + 1) + " " + humanize(entry.kind || "") : "";
    this.syncLog();
    this.drawFinal();
  };

  /* The decision that led to the shown step: who, what kind, how long, any fault, and its options in the game's words
     (the chosen one highlighted); then who decides next, with the options when this view may see them. Pointing at
     or focusing an option marks what it touches on the board. */
  Viewer.prototype.drawDecision = function (frame) {
    var box = this.$("decision"), ctx = this.ctx, d = frame.decided, line = this.$("decision-line");
    box.textContent = "";
    line.textContent = "";
    if (!d) {
      box.appendChild(el("p", { class: "muted", text: "The start of the game: no decision yet." }));
      line.appendChild(document.createTextNode("The start of the game"));
    } else {
      var chosen = d.options && d.choice !== undefined ? describeOption(d.options[d.choice], d, ctx).text : null;
      box.appendChild(el("p", { class: "seat-" + d.seat }, [
        el("span", { class: "dot", "aria-hidden": "true" }), el("strong", {}, [seatLabel(ctx, d.seat)]),
        " — " + humanize(d.kind || "decision"),
        d.ms !== undefined && d.ms !== null ? el("span", { class: "muted", text: " · " + d.ms + " ms" }) : null,
      ]));
      if (d.prompt) box.appendChild(el("p", { class: "muted", text: d.prompt }));
      if (d.fault) box.appendChild(el("p", { class: "fault", id: "decision-fault", text: "Fault: " + humanize(d.fault) + " — the default (first option) was played" }));
      if (d.options) box.appendChild(this.optionList(d, d.choice, "Options"));
      else box.appendChild(el("p", { class: "muted", id: "decision-hidden", text: this.hiddenChoice(d) }));
      line.appendChild(el("span", { class: "seat-" + d.seat }, [el("span", { class: "dot", "aria-hidden": "true" }),
        el("strong", { text: "Seat " + (d.seat + 1) })]));
      line.appendChild(document.createTextNode(" " + (chosen || humanize(d.kind || "decision")) +
        (d.fault ? " · fault: " + humanize(d.fault) : "")));
    }
    var next = frame.decision;
    box.appendChild(el("p", { class: "next" }, next ? ["Next: ", el("strong", {}, [seatLabel(ctx, next.seat)]),
      " — " + humanize(next.kind)] : [el("strong", { text: "Game over." })]));
    if (next && next.options) {
      box.appendChild(el("details", { class: "next-options" }, [
        el("summary", { text: next.options.length + " option" + (next.options.length === 1 ? "" : "s") + " to choose from" }),
        this.optionList(next, null, "Next options")]));
    }
  };

  /* What a view without the options can truly say about the choice. */
  Viewer.prototype.hiddenChoice = function (d) {
    var everything = this.views.indexOf("omniscient") >= 0 && this.view !== "omniscient";
    if (d.choice === undefined) {
      return "Its options and its choice stay hidden from this view while the match runs (they could tell its hand); " +
        "the events in the log say what it did.";
    }
    return "It chose option " + (d.choice + 1) + " of a list this view does not show (it could tell its hand)" +
      (everything ? "; the view “Everything” shows them." : ".");
  };

  Viewer.prototype.optionList = function (decision, choice, label) {
    var ctx = this.ctx, board = this.$("board");
    var list = el("ol", { class: "options", "aria-label": label });
    decision.options.forEach(function (option, i) {
      var said = describeOption(option, decision, ctx), chosen = i === choice;
      var item = el("li", { class: chosen ? "chosen" : null, "aria-current": chosen ? "true" : null, tabindex: 0,
        "data-option": i }, [el("span", { class: "n", text: (i + 1) + "." }), " " + said.text,
        chosen ? el("span", { class: "chosen-tag", text: " ← chosen" }) : null]);
      var mark = function (on) {
        (said.marks || []).forEach(function (selector) {
          Array.prototype.forEach.call(board.querySelectorAll(selector), function (node) {
            node.classList.toggle("option-mark", on);
          });
        });
      };
      item.addEventListener("mouseenter", function () { mark(true); });
      item.addEventListener("mouseleave", function () { mark(false); });
      item.addEventListener("focus", function () { mark(true); });
      item.addEventListener("blur", function () { mark(false); });
      list.appendChild(item);
    });
    return list;
  };

  /* "Branch from here" (docs/branches.md): the form branches at the shown step; its move may be replaced by any
     option of the decision that made it, when this view shows them. */
  Viewer.prototype.drawBranchForm = function (frame) {
    var step = this.$("branch-step"), force = this.$("branch-force");
    if (!step || !force) return;
    step.value = frame.step;
    force.textContent = "";
    var d = frame.decided;
    var ctx = this.ctx, said = function (i) { return (i + 1) + ". " + describeOption(d.options[i], d, ctx).text; };
    force.appendChild(el("option", { value: "", text: d && d.options && d.choice !== undefined ?
      "as played (" + said(d.choice) + ")" : "as played" }));
    (d && d.options ? d.options : []).forEach(function (option, i) {
      force.appendChild(el("option", { value: String(i), text: said(i) }));
    });
    force.disabled = !(d && d.options);
    this.$("branch-what").textContent = "Keeps steps 1 to " + frame.step + " (or replaces step " + frame.step +
      " by the move chosen below); the bots play on from there, unrated.";
  };

  /* The seat logs this user may read (their own bots', or all for staff): the lines written at the shown step. */
  Viewer.prototype.fetchStderr = function () {
    var self = this, urls = this.cfg.seat_logs || {};
    if (!this.stderr) {
      this.stderr = Promise.all(Object.keys(urls).map(function (seat) {
        return fetch(urls[seat], { headers: { Accept: "application/json" } }).then(function (r) {
          if (!r.ok) throw new Error("seat log " + r.status);
          return r.json();
        });
      }));
    }
    return this.stderr;
  };

  Viewer.prototype.drawStderr = function (step) {
    var self = this, panel = this.$("stderr-panel");
    if (!Object.keys(this.cfg.seat_logs || {}).length || this.status === "running") return;
    this.fetchStderr().then(function (logs) {
      if (self.shownStep !== step) return;
      var box = self.$("stderr");
      box.textContent = "";
      logs.forEach(function (log) {
        var text = step === 0 ? log.start : log.steps[String(step)];
        box.appendChild(el("p", { class: "seat-" + log.seat }, [el("span", { class: "dot", "aria-hidden": "true" }),
          el("strong", { text: seatName(self.ctx, log.seat) }), step === 0 ? " at start-up" : " at step " + step]));
        box.appendChild(text ? el("pre", { class: "log stderr", "data-seat": log.seat, tabindex: 0, text: text })
          : el("p", { class: "muted", text: "nothing written" + (step === 0 ? "" : " at this step") }));
      });
      panel.hidden = false;
    }).catch(function (error) {
      self.$("stderr").textContent = "Could not load the log (" + error.message + ").";
      panel.hidden = false;
    });
  };

  Viewer.prototype.renderLogEntries = function () {
    var list = this.$("eventlog"), ctx = this.ctx, self = this;
    for (var i = list.children.length; i < this.logEntries.length; i++) {
      var entry = this.logEntries[i];
      if (!entry) break;
      var events = el("ul", { class: "plain" });
      entry.events.forEach(function (event) { events.appendChild(el("li", { text: describeEvent(event, ctx) })); });
      var button = el("button", { type: "button", class: "step", "data-step": entry.step, text: String(entry.step),
        "aria-label": "Go to step " + entry.step });
      button.addEventListener("click", function (e) { self.pause(); self.go(Number(e.currentTarget.getAttribute("data-step"))); });
      var item = el("li", { class: "seat-" + entry.seat, "data-step": entry.step }, [
        button, el("strong", { text: seatName(ctx, entry.seat) }), " " + humanize(entry.kind || ""),
        entry.ms !== null && entry.ms !== undefined ? el("span", { class: "muted", text: " · " + entry.ms + " ms" }) : null,
        entry.fault ? el("span", { class: "faulty", text: " · fault: " + humanize(entry.fault) }) : null,
        events,
      ]);
      list.appendChild(item);
    }
    this.syncLog();
  };

  Viewer.prototype.syncLog = function () {
    var list = this.$("eventlog"), step = this.shownStep, current = null;
    for (var i = 0; i < list.children.length; i++) {
      var item = list.children[i], s = Number(item.getAttribute("data-step"));
      item.hidden = s > step;
      item.classList.toggle("current", s === step);
      if (s === step) current = item;
    }
    if (current) list.scrollTop = current.offsetTop - list.offsetTop - list.clientHeight + current.offsetHeight + 8;
  };

  Viewer.prototype.drawFinal = function () {
    var panel = this.$("final-panel"), box = this.$("final-scores"), ctx = this.ctx, self = this;
    var atEnd = this.finished && this.outcome && this.shownStep === this.steps - 1;
    panel.hidden = !atEnd;
    if (!atEnd) return;
    box.textContent = "";
    var ranks = this.outcome.ranks, order = ranks.map(function (_, seat) { return seat; });
    // The final score's parts, where the game's view gives them (Evolution: food, population, traits).
    var last = (this.frames[this.view] || {})[this.shownStep], parts = last && last.view && last.view.score_parts;
    order.sort(function (a, b) { return ranks[a] - ranks[b] || a - b; });  // the winner first, on any screen
    order.forEach(function (seat) {
      var score = self.outcome.scores[seat], lost = self.forfeited && self.forfeited[seat];
      box.appendChild(el("div", { class: "score seat-" + seat, "data-seat": seat, "data-score": score, "data-rank": ranks[seat] }, [
        el("div", {}, [el("strong", { class: "rank", text: "#" + ranks[seat] + " " }), seatLabel(ctx, seat)]),
        el("span", { class: "n", text: String(score) }), " " + points(ctx, score).split(" ")[1],
        lost ? " (forfeited)" : null,
        parts && parts[seat] ? el("div", { class: "muted small score-parts", text: Object.keys(parts[seat]).map(function (k) {
          return k.replace(/_/g, " ") + " " + parts[seat][k]; }).join(" + ") }) : null,
      ]));
    });
  };

  Viewer.prototype.updateRange = function () {
    var range = this.$("scrub"), last = Math.max(0, this.steps - 1);
    range.max = last;
    range.value = this.step;
    range.setAttribute("aria-valuetext", "step " + this.step + " of " + last);
    this.$("jump").max = last;
    if (document.activeElement !== this.$("jump")) this.$("jump").value = this.step;
    this.$("step-counter").textContent = this.step + " / " + last;
    this.drawStepMarks(last);
  };

  /* The faults on the step bar, in the faulty seat's colour: a forfeit as a bar to the end, a fault as a tick. */
  Viewer.prototype.drawStepMarks = function (last) {
    var box = this.$("step-marks"), self = this, key = last + ":" + (this.faults || []).length;
    if (this.marksKey === key) return;
    this.marksKey = key;
    box.textContent = "";
    var at = function (step) { return (last ? step / last * 100 : 0).toFixed(2) + "%"; };
    Object.keys(this.forfeitAt || {}).forEach(function (seat) {
      var step = self.forfeitAt[seat], bar = el("span", { class: "forfeit-bar seat-" + seat, "data-seat": seat,
        title: "Seat " + (Number(seat) + 1) + " plays the default from step " + step });
      bar.style.left = at(step);
      bar.style.right = "0";
      box.appendChild(bar);
    });
    (this.faults || []).forEach(function (entry) {
      var mark = el("span", { class: "fault-mark seat-" + entry.seat, "data-step": entry.step,
        title: "Step " + entry.step + ": Seat " + (entry.seat + 1) + ", " + humanize(entry.fault) });
      mark.style.left = at(entry.step);
      mark.addEventListener("click", function () { self.pause(); self.follow = false; self.go(entry.step); });
      box.appendChild(mark);
    });
  };

  Viewer.prototype.play = function () {
    var self = this;
    if (this.step >= this.steps - 1) this.go(0);
    this.$("btn-play").textContent = "⏸ Pause";
    this.$("btn-play").setAttribute("aria-label", "Pause");
    this.playing = true;
    var tick = function () {
      if (!self.playing) return;
      if (self.step >= self.steps - 1) {
        if (self.status !== "running") { self.pause(); return; }
        self.timer = setTimeout(tick, Number(self.$("speed").value));
        return;
      }
      self.go(self.step + 1).then(function () {
        self.timer = setTimeout(tick, Number(self.$("speed").value));
      });
    };
    this.timer = setTimeout(tick, Number(this.$("speed").value));
  };

  Viewer.prototype.pause = function () {
    this.playing = false;
    if (this.shownStep >= 0) this.writeLink();
    clearTimeout(this.timer);
    this.$("btn-play").textContent = "▶ Play";
    this.$("btn-play").setAttribute("aria-label", "Play");
  };

  Viewer.prototype.toggle = function () { if (this.playing) this.pause(); else this.play(); };

  Viewer.prototype.stepBy = function (delta) {
    this.pause();
    this.follow = false;
    return this.go(this.step + delta);
  };

  Viewer.prototype.bindControls = function () {
    var self = this;
    this.$("btn-first").addEventListener("click", function () { self.pause(); self.follow = false; self.go(0); });
    this.$("btn-prev").addEventListener("click", function () { self.stepBy(-1); });
    this.$("btn-next").addEventListener("click", function () { self.stepBy(1); });
    this.$("btn-last").addEventListener("click", function () { self.pause(); self.follow = true; self.go(self.steps - 1); });
    this.$("btn-play").addEventListener("click", function () { self.toggle(); });
    this.$("btn-next-fault").addEventListener("click", function () { self.nextFault(); });
    this.$("show-result").addEventListener("change", function (e) { self.reveal(e.target.checked); });
    this.bindChartKeys();
    var width = window.innerWidth;
    window.addEventListener("resize", function () {
      if (window.innerWidth === width) return;  // a phone's toolbar sliding away changes only the height
      width = window.innerWidth;
      self.drawScores();
    });
    this.$("scrub").addEventListener("input", function (e) {
      self.pause();
      self.follow = Number(e.target.value) >= self.steps - 1;
      self.go(Number(e.target.value));
    });
    this.$("jump-form").addEventListener("submit", function (e) {
      e.preventDefault();
      self.pause();
      self.go(Number(self.$("jump").value) || 0);
    });
    this.$("view-select").addEventListener("change", function (e) {
      self.view = e.target.value;
      self.go(self.step);
    });
    // Space plays or pauses wherever the focus is, except where it types, opens a list or folds a panel out (a
    // summary: "Branch from here"): a focused button (the last one clicked) or the scrubber would otherwise take it
    // as "press me again". The score chart keeps its own keys (bindChartKeys).
    var spaceIsOurs = function (target) {
      var tag = (target && target.tagName) || "";
      return !/^(SELECT|TEXTAREA|SUMMARY)$/.test(tag) && !(tag === "INPUT" && target.type !== "range");
    };
    document.addEventListener("keydown", function (e) {
      var tag = (e.target && e.target.tagName) || "";
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === " " && spaceIsOurs(e.target)) { if (!e.repeat) self.toggle(); }
      else if (/^(INPUT|SELECT|TEXTAREA)$/.test(tag)) return;
      else if (e.key === "ArrowRight") { self.stepBy(1); }
      else if (e.key === "ArrowLeft") { self.stepBy(-1); }
      else if (e.key === "Home") { self.pause(); self.follow = false; self.go(0); }
      else if (e.key === "End") { self.pause(); self.follow = true; self.go(self.steps - 1); }
      else if (e.key === "f" || e.key === "F") { self.nextFault(); }
      else return;
      e.preventDefault();
    });
    document.addEventListener("keyup", function (e) {
      if (e.key === " " && spaceIsOurs(e.target) && (e.target.tagName || "") === "BUTTON") e.preventDefault();
    });
  };

  Ludus.Viewer = Viewer;
  document.addEventListener("DOMContentLoaded", function () {
    var node = document.getElementById("viewer-config");
    if (!node || !document.getElementById("board")) return;
    var viewer = new Viewer(JSON.parse(node.textContent));
    Ludus.viewer = viewer;
    viewer.start().catch(function (error) {
      var board = document.getElementById("board");
      board.textContent = "";
      board.appendChild(el("p", { class: "alert bad", role: "alert", text: "Could not load the game: " + error.message }));
    });
  });
})();
