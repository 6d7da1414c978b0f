/* Scroll cues: a table or a strip of rounds wider than the screen says so, and says it again if the window
   changes size. A link to a part of the page folded away in a <details> (a cross-table cell to its table) opens
   it. No framework. */
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
  document.addEventListener("DOMContentLoaded", function () { cueAll(); unfold(); });
  window.addEventListener("resize", cueAll);
  window.addEventListener("hashchange", unfold);
})();
