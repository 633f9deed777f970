// The console's few behaviours, as a file: its Content-Security-Policy runs scripts of
// this origin only, never an inline handler or a javascript: URL. Listeners sit on the
// document, so markup that htmx swaps in later behaves the same.

// <select data-submit-on-change>: choosing submits its form (the language menu; the
// form has a button for browsers without JavaScript).
document.addEventListener("change", (event) => {
  const select = event.target.closest("select[data-submit-on-change]");
  if (select && select.form) {
    select.form.requestSubmit();
  }
});

// <a data-history-back>: back in this tab's history when it has one; otherwise the
// link's own address (the console's home).
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-history-back]");
  if (link && window.history.length > 1) {
    event.preventDefault();
    window.history.back();
  }
});

// <label class="drop-zone"> around a file input: a file dropped on it fills the input
// (browsers drop onto a bare file input already; the zone makes the target larger).
document.addEventListener("dragover", (event) => {
  const zone = event.target.closest(".drop-zone");
  if (zone) {
    event.preventDefault();
    zone.classList.add("dragging");
  }
});
document.addEventListener("dragleave", (event) => {
  const zone = event.target.closest(".drop-zone");
  if (zone) {
    zone.classList.remove("dragging");
  }
});
document.addEventListener("drop", (event) => {
  const zone = event.target.closest(".drop-zone");
  const input = zone && zone.querySelector("input[type=file]");
  if (input && event.dataTransfer && event.dataTransfer.files.length > 0) {
    event.preventDefault();
    zone.classList.remove("dragging");
    input.files = event.dataTransfer.files;
  }
});
