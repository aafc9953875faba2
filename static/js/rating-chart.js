/*
 * Rating-history chart (uPlot). Reads the JSON a page embeds with json_script:
 *   {kind: "elo"|"vekn", label, dates: ["2024-05-01", ...], events: [...], event_ids: [...],
 *    ratings: [...], changes: [...], and for Elo lists start, today, ranked_from, ranked_after}
 * and draws it into [data-rating-chart="<id of that JSON>"]. Without JavaScript the box stays
 * hidden and the page's tables carry the same history.
 *
 * A rating changes only at events, so it is drawn as steps: from the start rating, just before the
 * first event, to today. The axis always spans some months, so one event is not a dot at the edge.
 *
 * Its words come from the box's data-text-* attributes, in the page's language (players/_participant.html);
 * English when one is missing. Dates and numbers follow the page's <html lang>.
 */
(function () {
  "use strict";

  // The page's colours (site.css), so the chart follows the light or dark scheme.
  function colour(name, fallback) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
  }
  var ACCENT = colour("--accent", "#8a1c2b");
  var LANGUAGE = document.documentElement.lang || "en";
  var dateText = new Intl.DateTimeFormat(LANGUAGE === "en" ? "en-GB" : LANGUAGE, {
    day: "numeric",
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  });
  var changeText = new Intl.NumberFormat(LANGUAGE === "en" ? "en-GB" : LANGUAGE, {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
    useGrouping: false,
  });

  // The month and day names of the time axis in the page's language (uPlot's own are English).
  function dateNames(locale) {
    function names(count, day, options) {
      var format = new Intl.DateTimeFormat(locale, Object.assign({ timeZone: "UTC" }, options));
      var list = [];
      for (var i = 0; i < count; i++) list.push(format.format(day(i)));
      return list;
    }
    function month(i) {
      return new Date(Date.UTC(2000, i, 1));
    }
    function weekday(i) {
      return new Date(Date.UTC(2000, 0, 2 + i)); // 2 Jan 2000 was a Sunday, uPlot's first day
    }
    return {
      MMMM: names(12, month, { month: "long" }),
      MMM: names(12, month, { month: "short" }),
      WWWW: names(7, weekday, { weekday: "long" }),
      WWW: names(7, weekday, { weekday: "short" }),
    };
  }

  // A word of the chart: the box's data-text-<name> (in its dataset: textName), else the English given.
  function text(words, name, english) {
    return (words && words["text" + name.charAt(0).toUpperCase() + name.slice(1)]) || english;
  }

  function signed(value) {
    if (Math.abs(value) < 0.005) return "±0";
    return (value > 0 ? "+" : "\u2212") + changeText.format(Math.abs(value));
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

  var DAY = 86400;
  var YEAR = 365 * DAY;

  function seconds(day) {
    return Date.parse(day + "T00:00:00Z") / 1000;
  }

  // The points drawn: the start rating just before the first event, each event, and today (the last rating holds).
  function series(data) {
    var points = data.dates.map(function (day, i) {
      return { x: seconds(day), rating: data.ratings[i], event: data.events[i], id: data.event_ids[i], change: data.changes[i] };
    });
    if (data.start != null && points.length) {
      var first = points[0].x;
      var last = data.today ? seconds(data.today) : points[points.length - 1].x;
      var before = Math.max(7 * DAY, Math.round((last - first) * 0.03));
      points.unshift({
        x: first - before,
        rating: data.start,
        event: text(data.words, "start", "Start rating"),
        when: text(data.words, "beforeFirst", "Before the first event"),
        id: null,
        change: null,
      });
    }
    if (data.today && points.length && seconds(data.today) > points[points.length - 1].x) {
      var now = points[points.length - 1];
      points.push({ x: seconds(data.today), rating: now.rating, event: text(data.words, "today", "Today"), id: null, change: null });
    }
    return points;
  }

  // At least three months shown, the points in the middle when they span less.
  function timeRange(points) {
    var min = points[0].x;
    var max = points[points.length - 1].x;
    var pad = Math.max(0, (90 * DAY - (max - min)) / 2);
    return [min - pad - DAY, max + pad + DAY];
  }

  function tooltip(plot, points, tip) {
    var i = plot.cursor.idx;
    if (i == null) {
      tip.hidden = true;
      return;
    }
    var point = points[i];
    tip.replaceChildren();
    var when = document.createElement("div");
    when.className = "chart-tip-date";
    when.textContent = point.when || dateText.format(new Date(point.x * 1000));
    var what = document.createElement("div");
    what.className = "chart-tip-event";
    what.textContent = point.event;
    var value = document.createElement("div");
    value.className = "chart-tip-rating";
    var strong = document.createElement("strong");
    strong.textContent = point.rating;
    value.append(strong);
    if (point.change != null) value.append(" ", document.createTextNode("(" + signed(point.change) + ")"));
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

  // The first ranked event, as a dashed line: from there the player is in the ranked list.
  function rankedMarker(data, colour) {
    return function (u) {
      if (!data.ranked_from) return;
      var x = Math.round(u.valToPos(seconds(data.ranked_from), "x", true));
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
      var ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = colour;
      ctx.fillStyle = colour;
      ctx.setLineDash([4, 4]);
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.font = 11 * devicePixelRatio + "px system-ui, sans-serif";
      ctx.fillText(text(data.words, "ranked", "ranked (" + data.ranked_after + " matches)"), x + 4, u.bbox.top + 12 * devicePixelRatio);
      ctx.restore();
    };
  }

  // "All" or "Last 12 months", above the chart.
  function rangeChoice(box, plot, points) {
    var all = timeRange(points);
    var last = points[points.length - 1].x;
    if (last - all[0] <= YEAR) return;
    var bar = document.createElement("div");
    bar.className = "chart-range";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", text(box.dataset, "timeShown", "Time shown"));
    [
      [text(box.dataset, "all", "All"), all],
      [text(box.dataset, "lastYear", "Last 12 months"), [last - YEAR, last + DAY]],
    ].forEach(function (choice, n) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = choice[0];
      button.setAttribute("aria-pressed", n === 0 ? "true" : "false");
      button.addEventListener("click", function () {
        bar.querySelectorAll("button").forEach(function (b) {
          b.setAttribute("aria-pressed", b === button ? "true" : "false");
        });
        plot.setScale("x", { min: choice[1][0], max: choice[1][1] });
      });
      bar.append(button);
    });
    box.before(bar);
  }

  function draw(box, data) {
    var points = data.kind === "elo" ? series(data) : data.dates.map(function (day, i) {
      return { x: seconds(day), rating: data.ratings[i], event: data.events[i], id: data.event_ids[i], change: data.changes[i] };
    });
    var xs = points.map(function (point) {
      return point.x;
    });
    var ys = points.map(function (point) {
      return point.rating;
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
      paths: uPlot.paths.stepped({ align: 1 }),
      value: function (u, v) {
        return v == null ? "" : String(v);
      },
    };

    var axis = {
      stroke: colour("--muted", "#5b6475"),
      grid: { stroke: colour("--line", "#eceef2"), width: 1 },
      ticks: { stroke: colour("--line", "#dde1e8"), width: 1 },
    };
    var names = LANGUAGE === "en" ? null : dateNames(LANGUAGE);
    var plot = new uPlot(
      {
        width: width,
        fmtDate: function (template) {
          return names ? uPlot.fmtDate(template, names) : uPlot.fmtDate(template);
        },
        height: chartHeight(width),
        tzDate: function (ts) {
          return uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC");
        },
        legend: { show: false },
        scales: {
          x: { time: true, auto: false, range: timeRange(points) },
          y: { range: ratingRange(data.kind) },
        },
        cursor: { points: { size: 10, fill: ACCENT }, drag: { x: true, y: false } },
        series: [{}, line],
        axes: [Object.assign({}, axis), Object.assign({ size: 52 }, axis)],
        hooks: {
          setCursor: [
            function (u) {
              tooltip(u, points, tip);
            },
          ],
          draw: [rankedMarker(data, colour("--muted", "#5b6475"))],
        },
      },
      [xs, ys],
      box
    );
    plot.over.appendChild(tip);
    rangeChoice(box, plot, points);

    // A click on a point opens its event.
    var eventUrl = box.dataset.eventUrl;
    plot.over.addEventListener("click", function () {
      var i = plot.cursor.idx;
      var id = i == null ? null : points[i].id;
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
      data.words = box.dataset;
      if (data.dates && data.dates.length) draw(box, data);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
