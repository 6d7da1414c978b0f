/* Scroll cues: a table or a strip of rounds wider than the screen says so, and says it again if the window
   changes size. No framework. */
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
  document.addEventListener("DOMContentLoaded", cueAll);
  window.addEventListener("resize", cueAll);
})();
