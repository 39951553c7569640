(function () {
  "use strict";
  function openHash() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (e) { return; }
    var el = id && document.getElementById(id);
    if (el && el.tagName === "DETAILS") {
      el.open = true;
      el.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", openHash);
  openHash();

  var list = document.getElementById("cases");
  var form = document.getElementById("filters");
  if (!list || !form) {
    return;
  }
  form.hidden = false;
  var rows = Array.prototype.slice.call(list.querySelectorAll("details.case"));
  var shown = document.getElementById("shown");
  function value(name) {
    var el = form.elements.namedItem(name);
    return el ? el.value : "";
  }
  function apply() {
    var st = value("status"), sc = value("scenario"), tg = value("tag"), q = value("q").toLowerCase();
    var n = 0;
    rows.forEach(function (r) {
      var d = r.dataset;
      var ok = (!st || d.status === st || (st === "!pass" && d.status !== "pass")) && (!sc || d.scenario === sc) &&
        (!tg || d.tags.split("\n").indexOf(tg) >= 0) &&
        (!q || d.id.toLowerCase().indexOf(q) >= 0 || d.query.toLowerCase().indexOf(q) >= 0);
      r.hidden = !ok;
      if (ok) {
        n++;
      }
    });
    shown.textContent = n + " of " + rows.length + " cases shown";
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  apply();

  // The headers sort only with the script: say so by the pointer.
  var head = document.getElementById("cases-head");
  if (head) {
    head.classList.add("sortable");
  }
  var buttons = Array.prototype.slice.call(document.querySelectorAll("#cases-head button[data-key]"));
  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      var key = b.dataset.key, num = b.dataset.type === "num";
      var dir = b.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      buttons.forEach(function (o) { o.removeAttribute("aria-sort"); });
      b.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      var sorted = rows.map(function (r, i) { return { r: r, i: i }; });
      sorted.sort(function (x, y) {
        var a = x.r.dataset[key], c = y.r.dataset[key], d;
        if (num) {
          d = parseFloat(a) - parseFloat(c);
        } else {
          d = a < c ? -1 : a > c ? 1 : 0;
        }
        return d * dir || x.i - y.i;
      });
      sorted.forEach(function (s) { list.appendChild(s.r); });
    });
  });
})();
