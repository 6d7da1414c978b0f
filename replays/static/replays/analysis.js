/* The viewer's analysis strip (docs/analysis.md): ask for a seat's analysis, follow it, mark its decisions on a
   strip of the steps and on the score chart, list the biggest losses (links to their steps), and show each option's
   estimate at the decision the board shows. Talks to /api/matches/ID/analysis/ only; follows the viewer through
   #board's data-step and moves it with #step= links. */
(function () {
  "use strict";
  var SEVERITY = { inaccuracy: 1, mistake: 2, blunder: 3 };
  var POLL_MS = 2000;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (attrs[key] === null || attrs[key] === undefined || attrs[key] === false) return;
      if (key === "text") node.textContent = attrs[key]; else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }
  function percent(x) { return Math.round(x * 100) + " %"; }
  function fixed(x) { return (Math.round(x * 10) / 10).toString(); }

  function Strip(root) {
    this.root = root;
    this.url = root.getAttribute("data-url");
    this.csrf = root.getAttribute("data-csrf");
    var config = JSON.parse(document.getElementById("viewer-config").textContent);
    this.config = config;
    this.ctx = { game: config.game, seats: config.seats, players: config.players, units: config.score_units };
    this.seat = 1;
    this.analyses = [];
    this.timer = null;
  }

  Strip.prototype.start = function () {
    var self = this;
    this.build();
    var board = document.getElementById("board");
    if (board) {
      new MutationObserver(function () { self.drawStep(); })
        .observe(board, { attributes: true, attributeFilter: ["data-step"] });
    }
    var chart = document.getElementById("score-chart-svg");
    if (chart) new MutationObserver(function () { self.markChart(); }).observe(chart, { childList: true });
    this.load();
  };

  Strip.prototype.build = function () {
    var self = this, seats = el("select", { id: "analysis-seat" });
    this.config.seats.forEach(function (seat) {
      seats.appendChild(el("option", { value: seat.seat + 1, text: "Seat " + (seat.seat + 1) + " (" + seat.label + ")" }));
    });
    seats.addEventListener("change", function () { self.seat = Number(seats.value); self.draw(); });
    this.games = el("input", { id: "analysis-games", type: "number", min: 1, max: 50, value: 8, inputmode: "numeric" });
    var ask = el("button", { type: "submit", id: "analysis-ask", text: "Analyse" });
    var form = el("form", { class: "analysis-form", id: "analysis-form" }, [
      el("label", { for: "analysis-seat", text: "Seat" }), seats,
      el("label", { for: "analysis-games", text: "Games per option" }), this.games,
      this.root.getAttribute("data-signed-in") === "1" ? ask : null]);
    form.addEventListener("submit", function (e) { e.preventDefault(); self.ask(); });
    this.status = el("p", { class: "note", id: "analysis-status", "aria-live": "polite" });
    this.marks = el("div", { class: "analysis-marks", id: "analysis-marks", role: "list",
      "aria-label": "Marked decisions along the steps" });
    this.summary = el("p", { id: "analysis-summary" });
    this.losses = el("ol", { class: "analysis-losses", id: "analysis-losses" });
    this.options = el("div", { id: "analysis-options" });
    this.root.textContent = "";
    this.root.appendChild(el("h2", { id: "analysis-h", text: "Analysis" }));
    [form, this.status, this.marks, this.summary, this.losses, this.options].forEach(function (n) {
      self.root.appendChild(n);
    });
    this.root.hidden = false;
  };

  Strip.prototype.load = function () {
    var self = this;
    return fetch(this.url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
      .then(function (answer) {
        if (!answer.ok) { self.say(answer.body.detail || "No analysis to show.", true); return; }
        self.analyses = answer.body.analyses;
        self.draw();
      })
      .catch(function (error) { self.say("Could not load the analysis: " + error.message, true); });
  };

  Strip.prototype.ask = function () {
    var self = this;
    this.say("Asking for the analysis…");
    fetch(this.url, { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": this.csrf },
      body: JSON.stringify({ seat: this.seat, games: Number(this.games.value) }) })
      .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
      .then(function (answer) {
        if (!answer.ok) {
          var body = answer.body, first = Object.keys(body)[0];
          self.say("No analysis: " + (body.detail || (first ? body[first][0] || body[first] : "refused")), true);
          return;
        }
        self.analyses = [answer.body].concat(self.analyses.filter(function (a) { return a.id !== answer.body.id; }));
        self.chosen = answer.body.id;
        self.draw();
      });
  };

  Strip.prototype.say = function (text, bad) {
    this.status.textContent = text;
    this.status.classList.toggle("bad", !!bad);
  };

  /* The analysis shown: the one just asked for, else the newest of the chosen seat. */
  Strip.prototype.current = function () {
    var self = this, asked = this.analyses.filter(function (a) { return a.id === self.chosen && a.seat === self.seat; });
    return asked[0] || this.analyses.filter(function (a) { return a.seat === self.seat; })[0] || null;
  };

  Strip.prototype.draw = function () {
    var self = this, analysis = this.current();
    clearTimeout(this.timer);
    if (this.analyses.some(function (a) { return a.status === "queued" || a.status === "running"; })) {
      this.timer = setTimeout(function () { self.load(); }, POLL_MS);
    }
    if (!analysis) {
      this.say("Seat " + this.seat + " has not been analysed yet" +
        (this.root.getAttribute("data-signed-in") === "1" ? ": Analyse plays every option out and marks each decision."
          : ". Log in to ask for it."));
      this.analysis = null;
    } else {
      this.analysis = analysis;
      this.say(analysis.status === "failed" ? "The analysis failed: " + analysis.error :
        "Seat " + analysis.seat + " by " + analysis.bot + ", " + analysis.games + " games per option: " +
        analysis.done + " of " + analysis.total + " decisions analysed (" + analysis.status + ")" +
        (analysis.games < 3 ? "; fewer than 3 games per option: estimates only, no marks" : ""),
        analysis.status === "failed");
    }
    this.drawMarks();
    this.drawSummary();
    this.markChart();
    this.drawStep();
  };

  Strip.prototype.marked = function () {
    return this.analysis ? this.analysis.decisions.filter(function (d) { return d.mark; }) : [];
  };

  Strip.prototype.drawMarks = function () {
    var known = window.Ludus && Ludus.viewer ? Ludus.viewer.steps : 0, self = this;
    var steps = Math.max(1, known - 1);
    this.marks.textContent = "";
    this.marks.hidden = !this.analysis;
    clearTimeout(this.marksTimer);
    if (this.analysis && known < 2) {  // the viewer has not read the match's length yet: place the marks once it has
      this.marks.hidden = true;
      this.marksTimer = setTimeout(function () { self.drawMarks(); }, 200);
      return;
    }
    this.marked().forEach(function (d) {
      var link = el("a", { href: "#step=" + d.step, class: "analysis-mark mark-" + d.mark, role: "listitem",
        title: "Step " + d.step + ": " + d.mark, "aria-label": "Step " + d.step + ": " + d.mark,
        style: "left: " + (100 * d.step / steps).toFixed(2) + "%" });
      this.marks.appendChild(link);
    }, this);
  };

  Strip.prototype.drawSummary = function () {
    var a = this.analysis;
    this.losses.textContent = "";
    if (!a) { this.summary.textContent = ""; return; }
    var counts = ["blunder", "mistake", "inaccuracy"].map(function (m) {
      var n = a.marks[m];
      return n + " " + m + (n === 1 ? "" : "s");
    });
    this.summary.textContent = "Seat " + a.seat + ": " + counts.join(", ") + " in " + a.done + " decisions." +
      (a.marks.blunder + a.marks.mistake + a.marks.inaccuracy ? " The biggest losses:" : "");
    var worst = this.marked().slice().sort(function (x, y) {
      return y.loss.score.loss - x.loss.score.loss || y.loss.wins.loss - x.loss.wins.loss || x.step - y.step;
    }).slice(0, 5);
    worst.forEach(function (d) {
      this.losses.appendChild(el("li", { class: "mark-" + d.mark }, [
        el("a", { href: "#step=" + d.step, text: "Step " + d.step }),
        document.createTextNode(" (" + d.kind.replace(/_/g, " ") + "): " + d.mark + ", gave up " +
          fixed(d.loss.score.loss) + " points and " + percent(d.loss.wins.loss) + " of wins")]));
    }, this);
  };

  /* Marks on the viewer's score chart: a line at each marked step, coloured by severity, placed by the chart's own
     axes (the horizontal axis line spans steps 0 to the last; the vertical one, the plot's height). */
  Strip.prototype.markChart = function () {
    var chart = document.querySelector("#score-chart-svg svg");
    if (!chart) return;
    Array.prototype.forEach.call(chart.querySelectorAll(".analysis-chart-mark"), function (n) { n.remove(); });
    var n = (window.Ludus && Ludus.viewer && Ludus.viewer.scores) ? Ludus.viewer.scores.length : 0;
    var axes = Array.prototype.slice.call(chart.querySelectorAll("line.axis"));
    var across = axes.filter(function (l) { return l.getAttribute("y1") === l.getAttribute("y2"); }).pop();
    var up = axes.filter(function (l) { return l.getAttribute("x1") === l.getAttribute("x2"); }).pop();
    if (n < 2 || !across || !up) return;
    var left = Number(across.getAttribute("x1")), right = Number(across.getAttribute("x2"));
    var top = Number(up.getAttribute("y1")), bottom = Number(up.getAttribute("y2"));
    this.marked().forEach(function (d) {
      var x = left + d.step * (right - left) / (n - 1);
      var line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      line.setAttribute("class", "analysis-chart-mark mark-" + d.mark);
      line.setAttribute("x1", x); line.setAttribute("x2", x);
      line.setAttribute("y1", top); line.setAttribute("y2", bottom);
      line.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "title")).textContent =
        "Step " + d.step + ": " + d.mark;
      chart.appendChild(line);
    });
  };

  /* At the decision the board shows (step N: the decision just taken), each option's estimate. */
  Strip.prototype.drawStep = function () {
    var board = document.getElementById("board"), box = this.options;
    box.textContent = "";
    if (!this.analysis || !board) return;
    var step = Number(board.getAttribute("data-step"));
    var d = this.analysis.decisions.filter(function (x) { return x.step === step; })[0];
    if (!d) return;
    var ctx = this.ctx, rows = d.options.slice().sort(function (x, y) { return y.score - x.score || y.wins - x.wins; });
    var table = el("table", { class: "analysis-options", id: "analysis-options-table" }, [
      el("caption", { text: "Step " + step + ": each option played out (" + (d.mark ? d.mark : "no mark") + ")" }),
      el("thead", {}, [el("tr", {}, ["Option", "Expected score", "Win rate", "Games"].map(function (h) {
        return el("th", { scope: "col", text: h }); }))])]);
    var body = el("tbody");
    rows.forEach(function (o) {
      var words = o.events.length && window.Ludus && Ludus.describeEvent
        ? o.events.map(function (e) { return Ludus.describeEvent(e, ctx); }).join("; ") : "option " + o.option;
      var tags = (o.option === d.played ? " (played)" : "") + (o.option === d.best ? " (best)" : "");
      body.appendChild(el("tr", { class: o.option === d.played ? "played" : o.option === d.best ? "best" : null }, [
        el("td", { text: "#" + o.option + " " + words + tags }), el("td", { text: fixed(o.score) }),
        el("td", { text: percent(o.wins) }), el("td", { text: String(o.games) })]));
    });
    table.appendChild(body);
    box.appendChild(el("div", { class: "table-wrap", tabindex: 0, role: "region",
      "aria-label": "Options at step " + step }, [table]));
  };

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("analysis-strip");
    if (!root || !document.getElementById("viewer-config")) return;
    var strip = new Strip(root);
    window.Ludus = window.Ludus || { games: {} };
    window.Ludus.analysis = strip;
    strip.start();
  });
})();
