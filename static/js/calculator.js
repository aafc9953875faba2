// Progressive enhancement of the rating calculator: the form works without
// this file (a fixed number of rows, a "More rows" button, server-side errors).
// With it, rows are added and removed in place, and the K-value and the 1997
// halvings follow the chosen rules.
(function () {
  "use strict";

  const MAX_ROWS = 48;
  const BAND = "band";
  const FIXED_K_RULES = ["dci-2001"];

  function init(form) {
    const body = form.querySelector("[data-rows]");
    const addButton = form.querySelector("[data-add]");
    const moreRows = form.querySelector("[data-more-rows]");
    const kSelect = form.querySelector("select[name='k']");
    const halvings = form.querySelector("[data-halvings]");

    const rows = () => Array.from(body.querySelectorAll("[data-row]"));

    // Give row `row` the number `number`: names, ids, labels and captions. Each label and caption holds one
    // number, the row's, wherever the page's language puts it ("Remove opponent 3", "Gegner 3 entfernen").
    function renumber(row, number) {
      row.querySelector("[data-row-number]").textContent = number;
      row.querySelectorAll("input, label").forEach((element) => {
        for (const attribute of ["name", "id", "for"]) {
          const value = element.getAttribute(attribute);
          if (value) element.setAttribute(attribute, value.replace(/(opponent|result)\d+/, "$1" + number));
        }
      });
      row.querySelectorAll("[aria-label]").forEach((element) => {
        element.setAttribute("aria-label", element.getAttribute("aria-label").replace(/\d+/, number));
      });
      row.querySelectorAll("label.visually-hidden").forEach((label) => {
        label.textContent = label.textContent.replace(/\d+/, number);
      });
    }

    function refresh() {
      const all = rows();
      all.forEach((row, index) => renumber(row, index + 1));
      all.forEach((row) => { row.querySelector("[data-remove]").disabled = all.length === 1; });
      addButton.disabled = all.length >= MAX_ROWS;
    }

    function addRow() {
      const last = rows().at(-1);
      const row = last.cloneNode(true);
      row.querySelectorAll(".errorlist").forEach((list) => list.remove());
      row.querySelectorAll(".has-error").forEach((cell) => cell.classList.remove("has-error"));
      row.querySelector("input[type='number']").value = "";
      row.querySelectorAll("input[type='radio']").forEach((radio) => { radio.checked = radio.value === "W"; });
      last.after(row);
      refresh();
      row.querySelector("input[type='number']").focus();
    }

    body.addEventListener("click", (event) => {
      const button = event.target.closest("[data-remove]");
      if (!button || rows().length === 1) return;
      const row = button.closest("[data-row]");
      const next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      refresh();
      next.querySelector("input[type='number']").focus();
    });

    // A field this script has just corrected no longer has the error the server gave it.
    function clearError(field) {
      const holder = field.closest(".has-error") || field.parentElement;
      holder.classList.remove("has-error");
      holder.querySelectorAll(".errorlist").forEach((list) => list.remove());
    }

    // K: a number under the 2001 rules, the rating band under the others.
    function followRules() {
      const checked = form.querySelector("input[name='rules']:checked");
      const rules = checked ? checked.value : FIXED_K_RULES[0];
      const fixedK = FIXED_K_RULES.includes(rules);
      for (const option of kSelect.options) option.disabled = fixedK === (option.value === BAND);
      if (kSelect.selectedOptions[0].disabled) {
        kSelect.value = fixedK ? "16" : BAND;
        clearError(kSelect);
      }
      // A disabled fieldset's boxes are not submitted, so other rules never send a halving.
      halvings.disabled = rules !== "dci-1997";
      if (halvings.disabled) {
        halvings.querySelectorAll("input[type='checkbox']").forEach((box) => {
          box.checked = false;
          clearError(box);
        });
      }
    }

    form.addEventListener("change", (event) => {
      if (event.target.name === "rules") followRules();
    });

    if (moreRows) moreRows.hidden = true;
    addButton.hidden = false;
    addButton.addEventListener("click", addRow);
    rows().forEach((row) => { row.querySelector("[data-remove]").hidden = false; });
    refresh();
    followRules();
  }

  document.querySelectorAll("form[data-calculator]").forEach(init);
})();
