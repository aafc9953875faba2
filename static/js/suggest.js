// Names suggested as a player is typed, in every box marked data-suggest (the URL answering JSON).
// A suggestion reads "Name (number)"; in a search box (data-suggest-go) picking one submits the form, which goes
// to that player; in a results form it fills the box, and the number is what is kept.
// Without JavaScript the boxes take what is typed, which finds the same players.
(function () {
  "use strict";
  const PICKED = /\(([^()\s]+)\)$/;
  let boxes = 0;
  for (const input of document.querySelectorAll("input[data-suggest]")) {
    // A box with a list of its own (a player's frequent opponents) shows the suggestions in it instead.
    let list = input.list;
    if (!list) {
      list = document.createElement("datalist");
      boxes += 1;
      list.id = "player-suggestions-" + boxes;
      input.setAttribute("list", list.id);
      input.after(list);
    }
    let timer = null;
    let asked = "";
    input.addEventListener("input", () => {
      const query = input.value.trim();
      if (PICKED.test(query) && [...list.options].some((option) => option.value === query)) {
        if ("suggestGo" in input.dataset && input.form) input.form.requestSubmit();
        return;
      }
      clearTimeout(timer);
      if (query.length < 2 || query === asked) return;
      timer = setTimeout(async () => {
        asked = query;
        try {
          const response = await fetch(input.dataset.suggest + "?q=" + encodeURIComponent(query), {
            headers: { Accept: "application/json" },
          });
          if (!response.ok || input.value.trim() !== query) return;
          const players = await response.json();
          list.replaceChildren(
            ...players.map((player) => {
              const option = document.createElement("option");
              option.value = `${player.name} (${player.number})`;
              return option;
            }),
          );
        } catch (error) {
          // Offline or refused: the box stays a plain search.
        }
      }, 150);
    });
  }
})();
