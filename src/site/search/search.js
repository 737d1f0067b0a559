// ccwiki search. Loads the index by script tags (so it works from file://),
// then ranks pages with the rules of src/site/search: a weight for a title
// match (once per term) and one per field (tool name, file path, text, tool
// output) per matching block (at most max_hits per field and term), summed
// over terms; ties go to knowledge,
// then to the newest. The numbers and the tokenizer come from the spec
// that search/index.js hands over (written from src/site/search/spec.rs).
(function () {
  "use strict";
  var script = document.currentScript;
  var base = script ? script.src.replace(/static\/search\.js([?#].*)?$/, "") : "";
  var spec = null;
  var docs = [];
  var expected = -1;
  var loaded = 0;
  var started = false;
  var pending = null;

  function lower(s) { return String(s).toLowerCase(); }

  function prepare(d) {
    d.tl = lower(d.t || "");
    d.hl = (d.h || []).map(lower);
    d.nl = (d.n || []).map(function (n) { return [lower(n[0]), n[1]]; });
    d.fl = (d.f || []).map(lower);
    d.xl = (d.x || []).map(function (x) { return lower(x[1]); });
    d.ol = (d.o || []).map(lower);
  }

  function count(list, term) {
    var n = 0;
    for (var i = 0; i < list.length && n < spec.max_hits; i++) if (list[i].indexOf(term) !== -1) n++;
    return n;
  }

  function score(d, terms) {
    var total = 0, w = spec.weights;
    terms.forEach(function (t) {
      var tools = 0;
      d.nl.forEach(function (n) { if (n[0].indexOf(t) !== -1) tools += n[1]; });
      if (d.tl.indexOf(t) !== -1) total += w.t;
      if (d.hl.some(function (h) { return h.indexOf(t) !== -1; })) total += w.h;
      total += w.n * Math.min(tools, spec.max_hits);
      total += w.f * count(d.fl, t);
      total += w.x * count(d.xl, t);
      total += w.o * count(d.ol, t);
    });
    return total;
  }

  function terms(q) {
    var out = [];
    if (!spec) return out;
    lower(q).split(new RegExp(spec.split, "u")).forEach(function (t) { if (t && out.indexOf(t) === -1) out.push(t); });
    return out;
  }

  function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  function search(q, limit) {
    var ts = terms(q);
    if (!ts.length) return [];
    var hits = [];
    docs.forEach(function (d) {
      var s = score(d, ts);
      if (s > 0) hits.push({ doc: d, score: s });
    });
    hits.sort(function (a, b) {
      return (b.score - a.score) ||
        ((a.doc.k === "m" ? 0 : 1) - (b.doc.k === "m" ? 0 : 1)) ||
        (b.doc.s - a.doc.s) || cmp(a.doc.t, b.doc.t) || cmp(a.doc.u, b.doc.u);
    });
    return hits.slice(0, limit).map(function (h) {
      var sn = snippet(h.doc, ts);
      return { title: h.doc.t, url: h.doc.u, kind: h.doc.k, project: h.doc.p || null,
               date: h.doc.d || null, score: h.score, snippet: sn.text, anchor: sn.anchor, terms: ts };
    });
  }

  function snippet(d, ts) {
    var cands = [];
    (d.x || []).forEach(function (x) { cands.push([x[0], x[1]]); });
    (d.f || []).forEach(function (f) { cands.push(["", f]); });
    (d.o || []).forEach(function (o) { cands.push(["", o]); });
    (d.n || []).forEach(function (n) { cands.push(["", n[0]]); });
    var best = null, bestN = 0;
    cands.forEach(function (c) {
      var l = lower(c[1]);
      var n = ts.filter(function (t) { return l.indexOf(t) !== -1; }).length;
      if (n > bestN) { best = c; bestN = n; }
    });
    if (!best) return { text: "", anchor: null };
    var chars = Array.from(best[1]);
    var low = chars.map(function (c) { return c.toLowerCase().charAt(0) || c; });
    var first = -1;
    ts.forEach(function (t) {
      var needle = Array.from(t);
      for (var i = 0; i + needle.length <= low.length; i++) {
        var ok = true;
        for (var j = 0; j < needle.length; j++) if (low[i + j] !== needle[j]) { ok = false; break; }
        if (ok) { if (first === -1 || i < first) first = i; break; }
      }
    });
    if (first < 0) first = 0;
    var start = Math.max(0, first - spec.snippet_before);
    var end = Math.min(chars.length, start + spec.snippet_chars);
    var text = chars.slice(start, end).join("").split(/\s+/).filter(Boolean).join(" ");
    if (start > 0) text = "…" + text;
    if (end < chars.length) text += "…";
    return { text: text, anchor: best[0] || null };
  }

  // Text with each term wrapped in <mark>, built as DOM nodes: never innerHTML.
  function highlighted(text, ts) {
    var frag = document.createDocumentFragment();
    var l = lower(text), i = 0;
    while (i < text.length) {
      var at = -1, len = 0;
      ts.forEach(function (t) {
        var p = l.indexOf(t, i);
        if (p !== -1 && (at === -1 || p < at)) { at = p; len = t.length; }
      });
      if (at === -1) { frag.appendChild(document.createTextNode(text.slice(i))); break; }
      if (at > i) frag.appendChild(document.createTextNode(text.slice(i, at)));
      var m = document.createElement("mark");
      m.textContent = text.slice(at, at + len);
      frag.appendChild(m);
      i = at + len;
    }
    return frag;
  }

  function load() {
    if (started) return;
    started = true;
    inject("search/index.js");
  }

  function inject(path) {
    var s = document.createElement("script");
    s.src = base + path;
    document.head.appendChild(s);
  }

  function ready() { return expected >= 0 && loaded >= expected; }

  window.ccwikiSearch = {
    spec: function (s) { spec = s; },
    shards: function (names) {
      expected = names.length;
      // Knowledge, then this page's project, then the rest: results from
      // the first shards show while the others load.
      var first = script && script.getAttribute("data-first");
      var rank = function (n) { return n === "knowledge" ? 0 : first && n.indexOf(first) === 0 ? 1 : 2; };
      names.slice().sort(function (a, b) { return rank(a) - rank(b); })
        .forEach(function (n) { inject("search/" + n + ".js"); });
      if (!names.length) refresh();
    },
    add: function (list) {
      list.forEach(prepare);
      Array.prototype.push.apply(docs, list);
      loaded++;
      refresh();
    },
    search: search,
    ready: ready,
  };

  var form, input, panel;

  function refresh() {
    if (pending !== null && input) show(pending);
  }

  function show(q) {
    pending = q;
    if (!panel) return;
    panel.textContent = "";
    if (!terms(q).length) { panel.hidden = true; return; }
    panel.hidden = false;
    var results = search(q, 20);
    var status = document.createElement("p");
    status.className = "result-meta";
    status.setAttribute("role", "status");
    status.textContent = results.length
      ? results.length + (results.length === 20 ? "+" : "") + " result" + (results.length === 1 ? "" : "s") + (ready() ? "" : " so far…")
      : (ready() ? "No results." : "Loading the index…");
    panel.appendChild(status);
    if (!results.length) return;
    var ol = document.createElement("ol");
    results.forEach(function (r) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.className = "result-title";
      // Anchors are relative to the page: "#p3", or "2/index.html#p120" for
      // a turn on a later page of a long session.
      a.href = r.anchor ? new URL(r.anchor, base + r.url).href : base + r.url;
      a.textContent = r.title;
      li.appendChild(a);
      var meta = document.createElement("div");
      meta.className = "result-meta";
      meta.textContent = [r.kind === "m" ? "knowledge" : "session", r.project, r.date].filter(Boolean).join(" · ");
      li.appendChild(meta);
      if (r.snippet) {
        var sn = document.createElement("div");
        sn.className = "result-snippet";
        sn.appendChild(highlighted(r.snippet, r.terms));
        li.appendChild(sn);
      }
      ol.appendChild(li);
    });
    panel.appendChild(ol);
  }

  function init() {
    form = document.querySelector("form.search");
    if (!form) return;
    input = form.querySelector("input[type=search]");
    panel = document.createElement("div");
    panel.className = "search-results";
    panel.id = "search-results";
    panel.hidden = true;
    form.parentNode.insertBefore(panel, form.nextSibling);
    input.setAttribute("aria-controls", panel.id);
    // No keyboard to press "/" on a touch screen: say only what the box is.
    if (window.matchMedia && window.matchMedia("(hover: none)").matches) {
      input.placeholder = "Search";
    }
    var timer = null;
    input.addEventListener("focus", load);
    input.addEventListener("input", function () {
      load();
      clearTimeout(timer);
      timer = setTimeout(function () { show(input.value); }, 60);
    });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var first = panel.querySelector("a.result-title");
      if (first) window.location.href = first.href;
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { panel.hidden = true; }
      if (e.key === "/" && document.activeElement !== input && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        input.focus();
      }
    });
    var q = new URLSearchParams(window.location.search).get("q");
    if (q) {
      input.value = q;
      load();
      show(q);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
