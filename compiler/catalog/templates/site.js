// pipec docs: filter a catalog table as you type (every word must match one of a row's terms), and say what matched.
// Works from file:// and any static server; no network.
(function () {
  "use strict";
  function words(text) { return text.toLowerCase().split(/\s+/).filter(Boolean); }

  function setUp(input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    if (!table) { return; }
    var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr[data-terms]"));
    var items = rows.map(function (row) {
      return { row: row, terms: JSON.parse(row.getAttribute("data-terms")), matched: row.querySelector(".matched") };
    });
    var hits = input.parentNode.querySelector(".hits") || document.querySelector(".hits");
    var none = table.parentNode.querySelector(".none");

    function apply() {
      var query = words(input.value);
      var shown = 0;
      items.forEach(function (item) {
        var found = [];
        var ok = query.every(function (word) {
          var hit = item.terms.filter(function (t) { return String(t[1]).toLowerCase().indexOf(word) >= 0; });
          found = found.concat(hit);
          return hit.length > 0;
        });
        item.row.hidden = !ok;
        if (ok) { shown += 1; }
        if (item.matched) {
          item.matched.textContent = "";
          if (ok && query.length) {
            found.filter(function (t) { return t[0] !== "pipeline"; }).slice(0, 6).forEach(function (t) {
              var span = document.createElement("span");
              span.className = "hit";
              span.textContent = t[0] + ": " + t[1];
              item.matched.appendChild(span);
            });
          }
        }
      });
      if (hits) { hits.textContent = query.length ? shown + " of " + items.length + " match" : ""; }
      if (none) { none.hidden = shown > 0; }
    }

    input.addEventListener("input", apply);
    var q = new URLSearchParams(window.location.search).get("q");
    if (q && input.id === "search") { input.value = q; }
    apply();
  }

  Array.prototype.forEach.call(document.querySelectorAll("input[data-filter]"), setUp);
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.key === "/" && !(target instanceof HTMLInputElement)) {
      var box = document.querySelector("input[data-filter]") || document.querySelector(".jump input");
      if (box) { event.preventDefault(); box.focus(); }
    }
  });
}());
