/* Scroll cues: a table or a strip of rounds wider than the screen says so, and says it again if the window
   changes size. A link to a part of the page folded away in a <details> (a cross-table cell to its table) opens
   it. An elimination bracket draws its lines between rounds. No framework. */
(function () {
  "use strict";
  function cue(box) {
    var overflows = box.scrollWidth > box.clientWidth + 1, hint = box.previousElementSibling;
    var hasHint = hint && hint.classList.contains("scroll-hint");
    box.classList.toggle("overflows", overflows);
    if (overflows && !hasHint) {
      hint = document.createElement("p");
      hint.className = "scroll-hint";
      hint.textContent = "Scroll sideways for more →";
      box.parentNode.insertBefore(hint, box);
    } else if (!overflows && hasHint) {
      hint.remove();
    }
  }
  function cueAll() { Array.prototype.forEach.call(document.querySelectorAll(".table-wrap, .rounds"), cue); }
  function unfold() {
    var target = location.hash.length > 1 && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    var folded = target && target.closest("details:not([open])");
    if (!folded) return;
    folded.open = true;
    cueAll();
    target.scrollIntoView();
  }
  /* The bracket's lines: for each set with a data-from (the sets and byes of the round before whose entrants sit at
     it), a stub out of each of those, a join down the middle of the gap between the rounds from the highest centre to
     the lowest, and a stub into the set. Placed in the bracket's own box, so they scroll with it. */
  function line(box, kind, left, top, size) {
    var span = document.createElement("span");
    span.className = "join join-" + kind;
    span.setAttribute("aria-hidden", "true");
    span.style.left = left + "px";
    span.style.top = top + "px";
    span.style[kind === "h" ? "width" : "height"] = Math.max(0, size) + "px";
    return box.appendChild(span);
  }
  function joinSet(box, set) {
    var origin = box.getBoundingClientRect(), dx = box.scrollLeft - origin.left, dy = box.scrollTop - origin.top;
    var place = function (node) {
      var r = node.getBoundingClientRect();
      return { left: r.left + dx, right: r.right + dx, middle: (r.top + r.bottom) / 2 + dy };
    };
    var to = place(set), from = set.getAttribute("data-from").split(" ").map(function (id) {
      return document.getElementById(id);
    }).filter(Boolean).map(place);
    if (!from.length) return;
    var gap = (Math.max.apply(null, from.map(function (f) { return f.right; })) + to.left) / 2;
    var middles = from.map(function (f) { return f.middle; }).concat([to.middle]);
    var high = Math.min.apply(null, middles), low = Math.max.apply(null, middles);
    from.forEach(function (f) { line(box, "h", f.right, f.middle - 1, gap - f.right + 1); });
    line(box, "v", gap - 1, high - 1, low - high + 2).setAttribute("data-to", set.id);
    line(box, "h", gap, to.middle - 1, to.left - gap);
  }
  function joinBracket(box) {
    Array.prototype.forEach.call(box.querySelectorAll(".join"), function (old) { old.remove(); });
    if (!box.offsetParent) return;  // folded away: drawn when it opens
    Array.prototype.forEach.call(box.querySelectorAll("[data-from]"), function (set) { joinSet(box, set); });
  }
  function watchBracket(box) {
    var redraw = function () { joinBracket(box); };
    if (window.ResizeObserver) {
      var watcher = new ResizeObserver(redraw);
      Array.prototype.forEach.call(box.querySelectorAll(".table"), function (set) { watcher.observe(set); });
      watcher.observe(box);
    }
    redraw();
  }
  document.addEventListener("DOMContentLoaded", function () {
    cueAll();
    unfold();
    Array.prototype.forEach.call(document.querySelectorAll(".rounds.bracket"), watchBracket);
  });
  window.addEventListener("resize", cueAll);
  window.addEventListener("hashchange", unfold);
})();
