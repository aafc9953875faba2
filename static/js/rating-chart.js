/*
 * Rating-history chart (uPlot). Reads the JSON a page embeds with json_script:
 *   {kind: "elo"|"vekn", label, dates: ["2024-05-01", ...], events: [...], event_ids: [...],
 *    ratings: [...], changes: [...]}
 * and draws it into [data-rating-chart="<id of that JSON>"]. Without JavaScript the box stays
 * hidden and the page's tables carry the same history.
 */
(function () {
  "use strict";

  // The page's colours (site.css), so the chart follows the light or dark scheme.
  function colour(name, fallback) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
  }
  var ACCENT = colour("--accent", "#8a1c2b");
  var dateText = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

  function signed(value) {
    if (Math.abs(value) < 0.005) return "±0";
    return (value > 0 ? "+" : "\u2212") + Math.abs(value).toFixed(2);
  }

  // Pad the rating axis to at least 50 points, so that a few points of change do not look like a cliff.
  function ratingRange(kind) {
    return function (u, min, max) {
      var span = Math.max(max - min, 50);
      var middle = (min + max) / 2;
      var low = Math.floor(middle - span * 0.6);
      if (kind === "vekn") low = Math.max(0, low);
      return [low, Math.ceil(middle + span * 0.6)];
    };
  }

  function chartHeight(width) {
    return Math.round(Math.max(200, Math.min(320, width * 0.45)));
  }

  function tooltip(plot, data, tip) {
    var i = plot.cursor.idx;
    if (i == null) {
      tip.hidden = true;
      return;
    }
    tip.replaceChildren();
    var when = document.createElement("div");
    when.className = "chart-tip-date";
    when.textContent = dateText.format(new Date(data.dates[i] + "T00:00:00Z"));
    var what = document.createElement("div");
    what.className = "chart-tip-event";
    what.textContent = data.events[i];
    var value = document.createElement("div");
    value.className = "chart-tip-rating";
    var strong = document.createElement("strong");
    strong.textContent = data.ratings[i];
    value.append(strong, " ", document.createTextNode("(" + signed(data.changes[i]) + ")"));
    tip.append(when, what, value);
    tip.hidden = false;

    var x = plot.valToPos(plot.data[0][i], "x");
    var y = plot.valToPos(plot.data[1][i], "y");
    var width = plot.over.clientWidth;
    var left = x + 12;
    if (left + tip.offsetWidth > width) left = Math.max(0, x - tip.offsetWidth - 12);
    tip.style.left = left + "px";
    tip.style.top = Math.max(0, y - tip.offsetHeight - 8) + "px";
  }

  function draw(box, data) {
    var xs = data.dates.map(function (day) {
      return Date.parse(day + "T00:00:00Z") / 1000;
    });
    box.hidden = false;
    var width = box.clientWidth;
    var tip = document.createElement("div");
    tip.className = "chart-tip";
    tip.hidden = true;

    var line = {
      label: data.label,
      stroke: ACCENT,
      width: 2,
      fill: "rgba(138, 28, 43, 0.07)",
      points: { show: xs.length <= 60, size: 6, fill: colour("--paper", "#fff") },
      value: function (u, v) {
        return v == null ? "" : String(v);
      },
    };
    if (data.kind === "vekn") line.paths = uPlot.paths.stepped({ align: 1 });

    var axis = {
      stroke: colour("--muted", "#5b6475"),
      grid: { stroke: colour("--line", "#eceef2"), width: 1 },
      ticks: { stroke: colour("--line", "#dde1e8"), width: 1 },
    };
    var plot = new uPlot(
      {
        width: width,
        height: chartHeight(width),
        tzDate: function (ts) {
          return uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC");
        },
        legend: { show: false },
        scales: { x: { time: true }, y: { range: ratingRange(data.kind) } },
        cursor: { points: { size: 10, fill: ACCENT }, drag: { x: true, y: false } },
        series: [{}, line],
        axes: [Object.assign({}, axis), Object.assign({ size: 52 }, axis)],
        hooks: {
          setCursor: [
            function (u) {
              tooltip(u, data, tip);
            },
          ],
        },
      },
      [xs, data.ratings],
      box
    );
    plot.over.appendChild(tip);

    // A click on a point opens its event.
    var eventUrl = box.dataset.eventUrl;
    plot.over.addEventListener("click", function () {
      var i = plot.cursor.idx;
      var id = i == null ? null : data.event_ids[i];
      if (id != null && eventUrl) window.location.href = eventUrl.replace(/\/0\/$/, "/" + id + "/");
    });

    if (window.ResizeObserver) {
      new ResizeObserver(function () {
        var w = box.clientWidth;
        if (w && w !== plot.width) plot.setSize({ width: w, height: chartHeight(w) });
      }).observe(box);
    }
  }

  function start() {
    if (typeof uPlot === "undefined") return;
    document.querySelectorAll("[data-rating-chart]").forEach(function (box) {
      var source = document.getElementById(box.dataset.ratingChart);
      if (!source) return;
      var data = JSON.parse(source.textContent);
      if (data.dates && data.dates.length) draw(box, data);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
