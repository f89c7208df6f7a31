// Prikaz ruke: one step of the hand at a time (the deal, each trick, the result), stepped with the buttons or the
// ← → keys. Without this script every step is on the page, one under another.
(function () {
  "use strict";
  function start(replay) {
    var steps = Array.prototype.slice.call(replay.querySelectorAll("li.step"));
    var controls = replay.querySelector(".controls");
    var where = replay.querySelector(".controls output");
    if (!steps.length || !controls) { return; }
    var current = 0;
    var wanted = window.location.hash.replace("#", "");
    steps.forEach(function (step, i) { if (step.id === wanted) { current = i; } });
    function show(index) {
      current = Math.max(0, Math.min(steps.length - 1, index));
      steps.forEach(function (step, i) { step.classList.toggle("current", i === current); });
      where.textContent = (current + 1) + " / " + steps.length + " · " + steps[current].getAttribute("data-label");
      replay.querySelector("button.prev").disabled = current === 0;
      replay.querySelector("button.next").disabled = current === steps.length - 1;
      if (window.history && window.history.replaceState) { window.history.replaceState(null, "", "#" + steps[current].id); }
    }
    replay.classList.add("js");
    controls.hidden = false;
    replay.querySelector("button.prev").addEventListener("click", function () { show(current - 1); });
    replay.querySelector("button.next").addEventListener("click", function () { show(current + 1); });
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) { return; }
      var tag = event.target && event.target.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") { return; }
      if (event.key === "ArrowRight") { show(current + 1); event.preventDefault(); }
      if (event.key === "ArrowLeft") { show(current - 1); event.preventDefault(); }
    });
    show(current);
  }
  document.querySelectorAll("section.replay").forEach(start);
})();
