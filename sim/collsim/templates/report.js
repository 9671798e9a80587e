// In <head>: count what fails to load (a blocked or missing resource); after load,
// mark each plot rendered when its SVG has a size and drawn content, and record its
// rendered height and how many lines it draws in how many distinct colours, so that a
// browser (and the test that opens the page headless) can tell that every plot
// rendered, none runs too tall, no two lines share a colour, and nothing failed.
var collsimLoadFailures = 0;
document.addEventListener('securitypolicyviolation', function () { collsimLoadFailures++; });
window.addEventListener('error', function () { collsimLoadFailures++; }, true);
window.addEventListener('load', function () {
  var figures = document.querySelectorAll('figure.plot'), rendered = 0, tallest = 0,
      clashes = 0, series = 0;
  figures.forEach(function (figure) {
    var svg = figure.querySelector('svg');
    var box = svg ? svg.getBoundingClientRect() : null;
    var ok = !!box && box.width > 50 && box.height > 50 &&
             svg.querySelectorAll('path, use, text').length > 0;
    figure.setAttribute('data-rendered', ok ? 'yes' : 'no');
    rendered += ok ? 1 : 0;
    if (box) {
      figure.setAttribute('data-height', String(Math.round(box.height)));
      tallest = Math.max(tallest, box.height);
    }
    var lines = svg ? svg.querySelectorAll('g[id*="-series-"]') : [], colors = {};
    lines.forEach(function (line) {
      var path = line.querySelector('path');
      if (path) { colors[getComputedStyle(path).stroke] = true; }
    });
    var distinct = Object.keys(colors).length;
    figure.setAttribute('data-series', String(lines.length));
    figure.setAttribute('data-series-colors', String(distinct));
    series += lines.length;
    clashes += distinct < lines.length ? 1 : 0;
  });
  document.querySelectorAll('img').forEach(function (img) {
    if (!img.complete || img.naturalWidth === 0) { collsimLoadFailures++; }
  });
  // the summary opens the page: above every plot and table, inside the first screen
  var summary = document.querySelector('p.summary'), first = document.querySelector('figure, table');
  var summaryTop = summary ? summary.getBoundingClientRect().top : -1;
  document.body.setAttribute('data-summary-top', String(Math.round(summaryTop)));
  document.body.setAttribute('data-summary-first', String(!!summary && (!first ||
      summary.getBoundingClientRect().bottom <= first.getBoundingClientRect().top)));
  document.body.setAttribute('data-plots', String(figures.length));
  document.body.setAttribute('data-rendered', String(rendered));
  document.body.setAttribute('data-tallest-plot', String(Math.round(tallest)));
  document.body.setAttribute('data-series', String(series));
  document.body.setAttribute('data-color-clashes', String(clashes));
  document.body.setAttribute('data-load-failures', String(collsimLoadFailures));
});
