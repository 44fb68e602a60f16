// Strata charts: reads the JSON the server embedded in #chart-data and draws
// it with uPlot (served from /static; no network access needed). The tables
// on the page hold the same numbers, so the page works without this file.
(function () {
  "use strict";
  var el = document.getElementById("chart-data");
  if (!el || typeof uPlot === "undefined") { return; }
  var data = JSON.parse(el.textContent);
  var kind = el.getAttribute("data-kind");
  var box = document.getElementById(kind === "job" ? "chart-job" : "chart-overview");
  if (!box || !data.x || data.x.length === 0) {
    if (box) { box.textContent = "No data to chart in this window."; box.style.minHeight = "0"; }
    return;
  }
  function size() { return { width: Math.max(320, box.clientWidth), height: 320 }; }
  // Times in the server's zone (as in the tables), ISO dates and a 24-hour
  // clock; a date is added under the first tick of each day.
  var tz = data.tz;
  try { if (tz) { uPlot.tzDate(new Date(0), tz); } } catch (e) { tz = ""; }
  function inZone(ts) { return tz ? uPlot.tzDate(new Date(ts * 1e3), tz) : new Date(ts * 1e3); }
  var day = 86400;
  var isoTicks = [
    // tick step, label, then added when the year / month / day / hour / minute / second changed, mode
    [365 * day, "{YYYY}", null, null, null, null, null, null, 1],
    [28 * day, "{YYYY}-{MM}", "\n{YYYY}", null, null, null, null, null, 1],
    [day, "{YYYY}-{MM}-{DD}", null, null, null, null, null, null, 1],
    [3600, "{HH}:{mm}", "\n{YYYY}-{MM}-{DD}", null, "\n{YYYY}-{MM}-{DD}", null, null, null, 1],
    [60, "{HH}:{mm}", "\n{YYYY}-{MM}-{DD}", null, "\n{YYYY}-{MM}-{DD}", null, null, null, 1],
    [1, "{HH}:{mm}:{ss}", "\n{YYYY}-{MM}-{DD}", null, "\n{YYYY}-{MM}-{DD}", null, null, null, 1]
  ];
  var stamp = uPlot.fmtDate(data.step === "day" ? "{YYYY}-{MM}-{DD}" : "{YYYY}-{MM}-{DD} {HH}:{mm}");
  var xSeries = { value: function (u, v) { return v == null ? "" : stamp(inZone(v)); } };
  var xAxis = { values: isoTicks, space: 70 }; // room for HH:MM:SS labels
  if (data.step === "day") { xAxis.incrs = [day, 2 * day, 7 * day, 14 * day, 28 * day, 91 * day, 365 * day]; }
  var opts, series;
  if (kind === "job") {
    series = [data.x, data.util, data.power];
    opts = {
      series: [xSeries, { label: "Mean utilization (%)", stroke: "#0b5cad", width: 2, scale: "%" },
                   { label: "Power (W)", stroke: "#c2410c", width: 2, scale: "W" }],
      axes: [xAxis, { scale: "%", label: "%" }, { scale: "W", label: "W", side: 1, grid: { show: false } }]
    };
  } else {
    var bars = uPlot.paths && uPlot.paths.bars ? uPlot.paths.bars({ size: [0.6, 40] }) : undefined;
    series = [data.x, data.kwh, data.idle_kwh, data.gpuh];
    opts = {
      series: [xSeries, { label: "Energy (kWh)", stroke: "#0b5cad", fill: "rgba(11,92,173,0.25)", paths: bars, scale: "kWh" },
                   { label: "Idle-GPU energy (kWh)", stroke: "#b91c1c", fill: "rgba(185,28,28,0.35)", paths: bars, scale: "kWh" },
                   { label: "GPU-hours", stroke: "#15803d", width: 2, scale: "GPUh" }],
      axes: [xAxis, { scale: "kWh", label: "kWh" }, { scale: "GPUh", label: "GPU-hours", side: 1, grid: { show: false } }]
    };
  }
  if (kind !== "job" && data.from && data.to) {
    opts.scales = { x: { time: true, range: [data.from, data.to] } };
  }
  var s = size();
  opts.width = s.width; opts.height = s.height;
  if (tz) { opts.tzDate = inZone; }
  var plot = new uPlot(opts, series, box);
  box.uplot = plot; // for tests: the drawn tick labels are in plot.axes[0]._values
  window.addEventListener("resize", function () { plot.setSize(size()); });
})();
