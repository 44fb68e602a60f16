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
  var opts, series;
  if (kind === "job") {
    series = [data.x, data.util, data.power];
    opts = {
      series: [{}, { label: "Mean utilization (%)", stroke: "#0b5cad", width: 2, scale: "%" },
                   { label: "Power (W)", stroke: "#c2410c", width: 2, scale: "W" }],
      axes: [{}, { scale: "%", label: "%" }, { scale: "W", label: "W", side: 1, grid: { show: false } }]
    };
  } else {
    var bars = uPlot.paths && uPlot.paths.bars ? uPlot.paths.bars({ size: [0.6, 40] }) : undefined;
    series = [data.x, data.kwh, data.idle_kwh, data.gpuh];
    opts = {
      series: [{}, { label: "Energy (kWh)", stroke: "#0b5cad", fill: "rgba(11,92,173,0.25)", paths: bars, scale: "kWh" },
                   { label: "Idle-GPU energy (kWh)", stroke: "#b91c1c", fill: "rgba(185,28,28,0.35)", paths: bars, scale: "kWh" },
                   { label: "GPU-hours", stroke: "#15803d", width: 2, scale: "GPUh" }],
      axes: [{}, { scale: "kWh", label: "kWh" }, { scale: "GPUh", label: "GPU-hours", side: 1, grid: { show: false } }]
    };
  }
  if (kind !== "job" && data.from && data.to) {
    opts.scales = { x: { time: true, range: [data.from, data.to] } };
  }
  var s = size();
  opts.width = s.width; opts.height = s.height;
  var plot = new uPlot(opts, series, box);
  window.addEventListener("resize", function () { plot.setSize(size()); });
})();
