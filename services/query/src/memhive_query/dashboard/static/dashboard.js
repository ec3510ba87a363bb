// The dashboard's only script of its own (the pages' Content-Security-Policy runs no inline
// script): on a wide screen the filter panel starts open; on a phone it stays folded under
// the search box until asked for.
document.addEventListener("DOMContentLoaded", function () {
  if (!window.matchMedia("(min-width: 48rem)").matches) return;
  document.querySelectorAll("details[data-open-wide]").forEach(function (panel) {
    panel.open = true;
  });
});
