/* gec-meta page (gec_meta/report/html.py): draws the JSON in #gm-data; hand-written, no library,
   no request: tables, SVG plots, sorting and filtering.  Every number is printed as text. */
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("gm-data").textContent);
  const app = document.getElementById("app");
  const SHORT = { pearson: "r", spearman: "ρ", spa: "SPA", pairwise_accuracy: "PA", acc_eq: "acc_eq", pdp: "PDP" };

  // ------------------------------------------------------------------ helpers
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false)
      e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    return e;
  }
  const NS = "http://www.w3.org/2000/svg";
  function sv(tag, attrs, ...kids) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const k of kids.flat()) if (k !== null && k !== undefined)
      e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    return e;
  }
  function num(v) { return typeof v === "number" ? v : (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : null); }
  // Counts print as integers; every other number with 3 (or d) decimals, also when JSON made 0.0 an integer.
  const COUNTS = new Set(["pairs", "groups", "rank", "cluster", "scored", "outranks", "k", "start_rank", "end_rank",
                          "samples", "sentence", "group", "real_systems", "systems"]);
  function fmt(v, d, key) {
    if (v === null || v === undefined || v === "") return "–";
    if (typeof v === "string") return v;           // nan, inf (JSON has none), or text
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (Number.isInteger(v) && (d === "int" || COUNTS.has(key))) return String(v);
    return v.toFixed(typeof d === "number" ? d : 3);
  }
  function csvCell(v) { const s = v === null || v === undefined ? "" : String(v); return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s; }
  function download(name, text) {
    return el("a", { class: "dl", download: name, href: "data:text/csv;charset=utf-8," + encodeURIComponent(text) }, "⤓ " + name);
  }
  function h(level, text) { return el("h" + level, {}, text); }
  function note(text) { return el("p", { class: "note" }, text); }

  /* A sortable table.  cols: [{key, label, text?, value(row), show(row)->Node|string, cls(row)}].
     Sorting: a button in each header (Enter/Space), aria-sort says the order. */
  function table(cols, rows, opts) {
    opts = opts || {};
    const state = { key: opts.sortKey || null, dir: opts.sortDir || 1 };
    const wrap = el("div", { class: "scroll" });
    const t = el("table", { "data-table": opts.name || "" });
    const thead = el("thead"), tbody = el("tbody");
    t.append(thead, tbody);
    if (opts.foot) t.append(el("tfoot", {}, opts.foot));
    function draw() {
      const sorted = rows.slice();
      if (state.key !== null) {
        const c = cols.find(c => c.key === state.key);
        sorted.sort((a, b) => {
          let x = c.value ? c.value(a) : a[c.key], y = c.value ? c.value(b) : b[c.key];
          x = num(x) ?? x; y = num(y) ?? y;
          const bad = v => v === null || v === undefined || (typeof v === "number" && isNaN(v));
          if (bad(x) || bad(y)) return bad(x) - bad(y);
          return (x < y ? -1 : x > y ? 1 : 0) * state.dir;
        });
      }
      thead.replaceChildren(el("tr", {}, cols.map(c => el("th", {
        class: c.text ? "text" : null, scope: "col", title: c.title || null,
        "aria-sort": state.key === c.key ? (state.dir > 0 ? "ascending" : "descending") : "none"
      }, el("button", {
        type: "button", "data-key": c.key, onclick: () => {
          state.dir = state.key === c.key ? -state.dir : (c.text ? 1 : -1); state.key = c.key; draw();
          // the header was redrawn: keep the keyboard focus on this column's button
          thead.querySelector(`button[data-key="${CSS.escape(c.key)}"]`).focus();
        }
      }, c.label)))));
      tbody.replaceChildren(...sorted.map(r => el("tr", { "data-row": r._id === undefined ? null : r._id }, cols.map(c => {
        const v = c.value ? c.value(r) : r[c.key];
        return el("td", { class: [c.text ? "text" : "", c.cls ? c.cls(r) : ""].join(" ").trim() || null,
                          "data-col": c.key, "data-v": typeof v === "number" ? String(v) : null },
                  c.show ? c.show(r) : fmt(v, c.digits, c.key));
      }))));
    }
    draw();
    wrap.append(t);
    const csv = [cols.map(c => csvCell(c.label)).join(",")].concat(rows.map(r => cols.map(c => {
      const v = c.value ? c.value(r) : r[c.key]; return csvCell(typeof v === "object" && v !== null ? JSON.stringify(v) : v);
    }).join(","))).join("\n") + "\n";
    const box = el("div", {}, wrap);
    if (opts.csvName) box.append(download(opts.csvName, csv));
    return box;
  }

  function checkboxes(legend, values, chosen, onchange, labels) {
    return el("fieldset", {}, el("legend", {}, legend), values.map(v => el("label", {},
      el("input", { type: "checkbox", value: v, checked: chosen.has(v), "data-filter": legend,
                    onchange: e => { e.target.checked ? chosen.add(v) : chosen.delete(v); onchange(); } }),
      " " + (labels ? labels[v] : v))));
  }

  // ------------------------------------------------------------------ plots (SVG)
  function scale(lo, hi, a, b) { if (!(hi > lo)) { lo -= 1; hi += 1; } return v => a + (v - lo) / (hi - lo) * (b - a); }
  function extent(xs) { const f = xs.filter(Number.isFinite); return [Math.min(...f), Math.max(...f)]; }
  function axes(svg, W, H, m, xs, ys, xl, yl) {
    const [x0, x1] = extent(xs), [y0, y1] = extent(ys);
    const pad = (a, b) => (b - a) * 0.06 || 1;
    const X = scale(x0 - pad(x0, x1), x1 + pad(x0, x1), m, W - 10), Y = scale(y0 - pad(y0, y1), y1 + pad(y0, y1), H - m, 10);
    const g = sv("g", { class: "axis" });
    g.append(sv("line", { x1: m, y1: H - m, x2: W - 10, y2: H - m }), sv("line", { x1: m, y1: 10, x2: m, y2: H - m }));
    for (const [v, p] of [[x0, X(x0)], [x1, X(x1)]]) g.append(sv("text", { x: p, y: H - m + 14, "text-anchor": "middle" }, fmtTick(v)));
    for (const [v, p] of [[y0, Y(y0)], [y1, Y(y1)]]) g.append(sv("text", { x: m - 4, y: p + 4, "text-anchor": "end" }, fmtTick(v)));
    g.append(sv("text", { x: (m + W) / 2, y: H - 4, "text-anchor": "middle" }, xl));
    g.append(sv("text", { x: 12, y: H / 2, transform: `rotate(-90 12 ${H / 2})`, "text-anchor": "middle" }, yl));
    svg.append(g);
    return [X, Y];
  }
  function fmtTick(v) { return Math.abs(v) >= 1000 ? v.toExponential(2) : v.toFixed(3); }
  function scatter(points, xl, yl) {   // points: [{x, y, label}]
    const W = 560, H = 380, m = 50;
    const svg = sv("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${yl} against ${xl}` });
    const [X, Y] = axes(svg, W, H, m, points.map(p => p.x), points.map(p => p.y), xl, yl);
    for (const p of points) {
      svg.append(sv("circle", { cx: X(p.x), cy: Y(p.y), r: 4, fill: "#24323f" }, sv("title", {}, `${p.label}: ${fmt(p.x, 4)}, ${fmt(p.y, 4)}`)));
      svg.append(sv("text", { x: X(p.x) + 6, y: Y(p.y) - 4 }, p.label));
    }
    return svg;
  }
  function lines(series, xl, yl) {   // series: [{name, pts: [[x, y]]}]
    const W = 560, H = 300, m = 50, dash = ["", "6 3", "2 2", "8 2 2 2"];
    const svg = sv("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${yl} by ${xl}` });
    const all = series.flatMap(s => s.pts);
    const [X, Y] = axes(svg, W, H, m, all.map(p => p[0]), all.map(p => p[1]), xl, yl);
    series.forEach((s, i) => {
      const pts = s.pts.filter(p => Number.isFinite(p[1]));
      svg.append(sv("polyline", { points: pts.map(p => `${X(p[0])},${Y(p[1])}`).join(" "), fill: "none", stroke: "#24323f",
                                  "stroke-dasharray": dash[i % 4], "stroke-width": 1.5 }));
      pts.forEach(p => svg.append(sv("circle", { cx: X(p[0]), cy: Y(p[1]), r: 2.5 }, sv("title", {}, `${s.name} ${p[0]}: ${fmt(p[1])}`))));
      svg.append(sv("line", { x1: W - 150, x2: W - 120, y1: 20 + 14 * i, y2: 20 + 14 * i, stroke: "#24323f", "stroke-dasharray": dash[i % 4] }));
      svg.append(sv("text", { x: W - 115, y: 24 + 14 * i }, s.name));
    });
    return svg;
  }
  function bars(items, chance) {   // items: [{label, value, cluster}]: one bar per metric, value printed
    const m = Math.min(360, 20 + 6.5 * Math.max(...items.map(i => i.label.length))), W = m + 420, row = 18, H = items.length * row + 30;
    const svg = sv("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "values by metric" });
    const vals = items.map(i => i.value).concat(chance === null || chance === undefined ? [] : [chance]);
    const lo = Math.min(0, ...vals), hi = Math.max(...vals);
    const X = scale(lo, hi, m, W - 70);
    const shade = k => ["#6fae6f", "#a9d3a0", "#d9e8c9", "#ececec"][Math.min(k, 4) - 1];
    items.forEach((it, i) => {
      const y = 10 + i * row;
      svg.append(sv("text", { x: m - 6, y: y + 12, "text-anchor": "end" }, it.label));
      svg.append(sv("rect", { x: Math.min(X(0), X(it.value)), y: y + 2, width: Math.abs(X(it.value) - X(0)), height: row - 5,
                              fill: shade(it.cluster), stroke: "#555" }));
      svg.append(sv("text", { x: Math.max(X(0), X(it.value)) + 4, y: y + 12 }, `${fmt(it.value)} [${it.cluster}]`));
    });
    if (chance !== null && chance !== undefined) {
      svg.append(sv("line", { x1: X(chance), x2: X(chance), y1: 4, y2: H - 16, stroke: "#a33", "stroke-dasharray": "4 3" }));
      svg.append(sv("text", { x: X(chance), y: H - 4, "text-anchor": "middle" }, `chance ${fmt(chance)}`));
    }
    return svg;
  }

  // ------------------------------------------------------------------ word diff (edits highlighted)
  function diff(src, hyp) {   // LCS over whitespace tokens: [[op, token]] with op " " | "+" | "-"
    const a = src.split(/\s+/).filter(Boolean), b = hyp.split(/\s+/).filter(Boolean);
    const n = a.length, m = b.length, L = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--)
      L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    const out = []; let i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] === b[j]) { out.push([" ", a[i]]); i++; j++; }
      else if (i < n && (j === m || L[i + 1][j] >= L[i][j + 1])) out.push(["-", a[i++]]);  // deletion first
      else out.push(["+", b[j++]]);
    }
    return out;
  }
  function marked(src, hyp) {
    const span = el("span", { class: "txt" });
    diff(src, hyp).forEach(([op, tok], k) => {
      if (k) span.append(" ");
      span.append(op === "+" ? el("ins", {}, tok) : op === "-" ? el("del", {}, tok) : tok);
    });
    return span;
  }

  // ------------------------------------------------------------------ page frame and routing
  const views = D.kind === "leaderboard"
    ? [["board", "Leaderboard"], ["task", "Task"], ["robustness", "Robustness"], ["about", "Signature & config"]]
    : [["summary", "Summary"], ["run", "Task"], ["sentences", "Sentences"], ["robustness", "Robustness"], ["about", "Signature & config"]];
  function route() {
    const parts = location.hash.replace(/^#/, "").split("/").map(decodeURIComponent);  // task names hold "/"
    return { view: views.some(v => v[0] === parts[0]) ? parts[0] : views[0][0], args: parts.slice(1) };
  }
  function frame(r) {
    const nav = el("nav", {}, views.map(([k, label]) => el("a", { href: "#" + k, "aria-current": r.view === k ? "page" : null }, label)));
    return el("header", {}, el("h1", {}, D.title || "gec-meta"), nav);
  }
  function render() {
    const r = route();
    const main = el("main", { id: "view-" + r.view, "data-view": r.view });
    try {
      (D.kind === "leaderboard" ? BOARD : REPORT)[r.view](main, r.args);
    } catch (err) {
      main.append(el("div", { class: "problems", role: "alert" }, "This view cannot be drawn: " + err.message));
    }
    app.replaceChildren(frame(r), main);
    document.title = (D.title || "gec-meta") + " — " + views.find(v => v[0] === r.view)[1];
  }
  window.addEventListener("hashchange", render);

  // ------------------------------------------------------------------ leaderboard
  function taskName(t) { return `${t.benchmark}/${t.target}/${t.statistic}`; }
  function taskLabel(t) { return t.level === "system" ? `${t.benchmark} ${t.target} ${SHORT[t.statistic]}` : `${t.benchmark} ${SHORT[t.statistic]} (${t.target})`; }
  const F = { aggs: null, benchmarks: null, stats: null, metric: "" };
  const BOARD = {
    board(main) {
      const boards = D.boards;
      const all = boards[0];
      F.aggs = F.aggs || new Set(boards.map(b => b.aggregation));
      F.benchmarks = F.benchmarks || new Set(all.benchmarks);
      F.stats = F.stats || new Set(all.tasks.map(t => t.statistic));
      const stats = [...new Set(all.tasks.map(t => t.statistic))];
      const out = el("div", { id: "board-tables" });
      const controls = el("div", { class: "controls noprint" },
        el("label", {}, "Metric ", el("input", { type: "search", id: "metric-filter", value: F.metric, placeholder: "filter metrics",
                                                    oninput: e => { F.metric = e.target.value; draw(); } })),
        checkboxes("aggregations", boards.map(b => b.aggregation), F.aggs, draw),
        checkboxes("benchmarks", all.benchmarks, F.benchmarks, draw),
        checkboxes("statistics", stats, F.stats, draw, SHORT));
      main.append(h(2, "Leaderboard"),
        note("Each cell: the value and [k], the metric's significance cluster on that task (PERM-BOTH; 1 = top; shading repeats it). " +
             "# is the global rank (weighted average of the cluster ranks). Click a cell for its task; a column header sorts."),
        controls, out, el("p", {}, download("leaderboard.csv", D.csv["leaderboard.csv"])));
      function draw() {
        out.replaceChildren();
        for (const b of boards.filter(b => F.aggs.has(b.aggregation))) {
          const tasks = b.tasks.filter(t => F.benchmarks.has(t.benchmark) && F.stats.has(t.statistic));
          const cells = {}; b.cells.forEach(c => { cells[c.task + "\u0000" + c.metric] = c; });
          const q = F.metric.trim().toLowerCase();
          const rows = b.metrics.map((m, i) => ({ _id: m, metric: m, label: b.labels[m], rank: i + 1,
            avg_rank: b.global_ranking.average_rank[m], avg_value: b.global_ranking.average_value[m] }))
            .filter(r => !q || r.label.toLowerCase().includes(q) || r.metric.toLowerCase().includes(q));
          const cols = [{ key: "rank", label: "#" }, { key: "label", label: "metric", text: true },
                        { key: "avg_rank", label: "avg rank" }, { key: "avg_value", label: "avg value" }];
          for (const [set, sections] of Object.entries(b.robustness || {}))
            cols.push({ key: "fooled:" + set, label: `fooled by (${set})`, text: true,
                        value: r => (sections[r.metric].fooled_by || []).join(", ") || "none" });
          for (const t of tasks) {
            const name = taskName(t);
            cols.push({ key: name, label: taskLabel(t), title: name, value: r => cells[name + "\u0000" + r.metric].value,
                        cls: r => "k" + Math.min(3, cells[name + "\u0000" + r.metric].cluster),
                        show: r => { const c = cells[name + "\u0000" + r.metric];
                          return el("a", { href: `#task/${encodeURIComponent(b.aggregation)}/${encodeURIComponent(name)}` },
                                    fmt(c.value), " ", el("span", { class: "k" }, `[${c.cluster}]`)); } });
          }
          const chance = cols.map(c => {
            const t = tasks.find(t => taskName(t) === c.key);
            const cs = t ? b.metrics.map(m => cells[c.key + "\u0000" + m].chance).filter(v => v !== null && v !== undefined) : [];
            return el("td", {}, cs.length ? fmt(Math.min(...cs)) + (fmt(Math.max(...cs)) !== fmt(Math.min(...cs)) ? "–" + fmt(Math.max(...cs)) : "")
                                           : (c.key === "label" ? "chance level" : ""));
          });
          out.append(h(3, `Aggregation: ${b.aggregation} (${rows.length} of ${b.metrics.length} metrics, ${tasks.length} of ${b.tasks.length} tasks)`),
            table(cols, rows, { name: "board-" + b.aggregation, csvName: `leaderboard_${b.aggregation}.csv`, foot: el("tr", {}, chance) }));
        }
      }
      draw();
    },
    task(main, args) {
      const b = D.boards.find(b => b.aggregation === args[0]) || D.boards[0];
      const t = b.tasks.find(t => taskName(t) === args[1]) || b.tasks[0];
      const name = taskName(t);
      main.append(h(2, `Task ${name} (aggregation ${b.aggregation})`),
        el("div", { class: "controls noprint" }, el("label", {}, "Task ", el("select", {
          onchange: e => { location.hash = "#task/" + encodeURIComponent(b.aggregation) + "/" + encodeURIComponent(e.target.value); } },
          b.tasks.map(x => el("option", { value: taskName(x), selected: taskName(x) === name }, taskName(x)))))));
      const cells = b.cells.filter(c => c.task === name);
      const items = cells.map(c => ({ label: b.labels[c.metric], value: c.value, cluster: c.cluster, metric: c.metric, c }))
        .sort((x, y) => y.value - x.value);
      const chances = cells.map(c => c.chance).filter(v => v !== null && v !== undefined);
      const cfg = D.config || {};
      main.append(note(`${t.level} level, ${t.statistic}; clusters by PERM-BOTH permutation tests` +
        (cfg.permutations ? ` (${cfg.permutations} permutations, seed ${cfg.seed}, a new cluster where p ≤ ${cfg.alpha})` : "") +
        ". Bars are shaded by cluster; the value and [cluster] are printed."), bars(items, chances.length ? Math.max(...chances) : null));
      const rows = items.map(it => ({ _id: it.metric, metric: it.label, value: it.value, cluster: it.cluster,
                                      epsilon: it.c.epsilon, chance: it.c.chance }));
      const cols = [{ key: "metric", label: "metric", text: true }, { key: "value", label: SHORT[t.statistic] || t.statistic },
                    { key: "cluster", label: "cluster" }];
      if (rows.some(r => r.epsilon !== null && r.epsilon !== undefined)) cols.push({ key: "epsilon", label: "ε*" });
      if (chances.length) cols.push({ key: "chance", label: "chance" });
      main.append(table(cols, rows, { name: "task", csvName: "task.csv" }));
      const sys = (b.system_scores || {})[t.benchmark];
      if (t.level !== "system") return;
      if (!sys) { main.append(note("The system scores behind this task are not in this page (a board rendered from its CSV; leaderboard.json has them).")); return; }
      const metric = args[2] && sys.metrics[args[2]] ? args[2] : items[0].metric;
      const plot = el("div", { id: "task-scatter" });
      main.append(h(3, `System scores against ${t.target}`), el("div", { class: "controls noprint" }, el("label", {}, "Metric ", el("select", {
        id: "task-metric", onchange: e => { location.hash = ["#task", b.aggregation, name, e.target.value].map((x, i) => i ? encodeURIComponent(x) : x).join("/"); } },
        b.metrics.map(m => el("option", { value: m, selected: m === metric }, b.labels[m]))))), plot);
      const pts = sys.systems.map((s, i) => ({ label: s, x: sys.human[t.target][i], y: sys.metrics[metric][i] }));
      plot.append(scatter(pts, `human ${t.target}`, `${b.labels[metric]} (${b.aggregation})`),
                  h(3, `Pairwise agreement (✓ same order, ✗ opposite, = a tie on one side)`), agreement(pts));
    },
    robustness(main) {
      main.append(h(2, "Robustness: each attack's rank among all systems (1 = best; † = fooled: above every real system)"));
      let any = false;
      for (const b of D.boards) for (const [set, sections] of Object.entries(b.robustness || {})) {
        any = true;
        const attacks = Object.keys(Object.values(sections)[0].attacks);
        const rows = b.metrics.map(m => ({ _id: m, metric: b.labels[m], ...Object.fromEntries(attacks.map(a => [a, sections[m].attacks[a]])) }));
        const cols = [{ key: "metric", label: "metric", text: true }].concat(attacks.map(a => ({ key: a, label: a, value: r => r[a].rank,
          show: r => { const s = sections[b.metrics[0]].system_scores; const n = sections[r._id].system_scores ? Object.keys(sections[r._id].system_scores).length : null;
            return el("span", { class: r[a].fooled ? "fooled" : null }, `${r[a].rank}${n ? " of " + n : ""}${r[a].fooled ? "†" : ""}`); } })));
        main.append(h(3, `${set}, aggregation ${b.aggregation}`), table(cols, rows, { name: `robustness-${b.aggregation}`, csvName: `robustness_${b.aggregation}.csv` }));
      }
      if (!any) main.append(note("This board has no robustness set."));
    },
    about(main) {
      main.append(h(2, "Signature and config"), el("pre", {}, D.preamble || "(no preamble: rendered from a CSV)"),
                  h(3, "Board config"), el("pre", {}, D.config ? JSON.stringify(D.config, null, 1) : "(not recorded: rendered from a CSV)"));
    },
  };

  // ------------------------------------------------------------------ run / sweep report
  const R = { metrics: null, datasets: null, aggs: null };
  function runLabel(run) { const r = run.result; return `${r.metric} / ${r.dataset} ${r.setting || ""} / ${r.aggregation || ""}`.trim(); }
  function problems(main) {
    const lines = (D.problems || []).concat(D.runs.flatMap(r => r.notes.map(n => `${r.path}: ${n}`)));
    if (lines.length) main.append(el("div", { class: "problems", role: "alert", id: "problems" }, el("strong", {}, "Missing or unreadable:"),
                                     el("ul", {}, lines.map(l => el("li", {}, l)))));
  }
  function pickRun(main, view, args) {
    if (!D.runs.length) { main.append(note("No run to show.")); return null; }
    const run = D.runs[Number(args[0])] || D.runs[0];
    main.append(el("div", { class: "controls noprint" }, el("label", {}, "Run ", el("select", { id: "run-select",
      onchange: e => { location.hash = `#${view}/${e.target.value}`; } },
      D.runs.map(r => el("option", { value: r.id, selected: r.id === run.id }, `${r.path} (${runLabel(r)})`))))));
    return run;
  }
  const SYS = ["pearson", "spearman", "pairwise_accuracy", "pairwise_accuracy_random", "spa"];
  const SEN = ["accuracy", "accuracy_random", "kendall", "acc_eq", "acc_eq_random", "tau_eq", "epsilon", "pdp", "tau_b", "tau_c", "tau_23", "acc_23", "acc_23_random", "pairs"];
  const LABEL = { pairwise_accuracy: "PA", pairwise_accuracy_random: "PA chance", acc_eq_random: "acc_eq chance", accuracy_random: "acc chance",
                  acc_23_random: "acc_23 chance", pearson: "r", spearman: "ρ", spa: "SPA", pdp: "PDP" };
  const REPORT = {
    summary(main) {
      main.append(h(2, `Summary of ${D.folder}`));
      problems(main);
      if (!D.runs.length) return;
      const res = D.runs.map(r => r.result);
      R.metrics = R.metrics || new Set(res.map(r => r.metric));
      R.datasets = R.datasets || new Set(res.map(r => r.dataset));
      R.aggs = R.aggs || new Set(res.map(r => r.aggregation));
      const out = el("div", {});
      main.append(el("div", { class: "controls noprint" },
        checkboxes("metrics", [...new Set(res.map(r => r.metric))], R.metrics, draw),
        checkboxes("datasets", [...new Set(res.map(r => r.dataset))], R.datasets, draw),
        checkboxes("aggregations", [...new Set(res.map(r => r.aggregation))], R.aggs, draw)), out,
        el("p", {}, Object.entries(D.csv || {}).map(([n, t]) => download(n, t))));
      function draw() {
        const runs = D.runs.filter(r => R.metrics.has(r.result.metric) && R.datasets.has(r.result.dataset) && R.aggs.has(r.result.aggregation));
        const key = [{ key: "metric", label: "metric", text: true, show: r => el("a", { href: `#run/${r.run}` }, r.metric) },
                     { key: "dataset", label: "dataset", text: true }, { key: "setting", label: "setting", text: true },
                     { key: "aggregation", label: "aggregation", text: true }];
        const srows = runs.flatMap(run => Object.entries(run.result.system || {}).map(([hn, c], i) => ({
          _id: `${run.id}:${hn}`, run: run.id, ...pick(run.result), human: hn, ...c,
          ci: c.ci ? `[${fmt(c.ci.pearson[0])}, ${fmt(c.ci.pearson[1])}]` : null })));
        const scols = key.concat([{ key: "human", label: "human", text: true }], SYS.filter(s => srows.some(r => s in r)).map(s => ({ key: s, label: LABEL[s] || s })),
          srows.some(r => r.ci) ? [{ key: "ci", label: "r 95% CI", text: true }] : []);
        const trows = runs.flatMap(run => Object.entries(run.result.sentence || {}).map(([a, c]) => ({ _id: `${run.id}:${a}`, run: run.id, ...pick(run.result), aspect: a, ...c })));
        const tcols = key.concat([{ key: "aspect", label: "aspect", text: true }], SEN.filter(s => trows.some(r => s in r)).map(s => ({ key: s, label: LABEL[s] || s })));
        out.replaceChildren(h(3, `System level (${srows.length} rows)`), table(scols, srows, { name: "system", csvName: "system.csv" }),
          h(3, `Sentence level (${trows.length} rows)`), trows.length ? table(tcols, trows, { name: "sentence", csvName: "sentence.csv" }) : note("No sentence-level results."),
          note("Significance clusters compare metrics with each other: the leaderboard (gec-meta leaderboard --html) computes them; a sweep's runs are shown side by side."));
      }
      function pick(r) { return { metric: r.metric, dataset: r.dataset, setting: r.setting, aggregation: r.aggregation }; }
      draw();
    },
    run(main, args) {
      main.append(h(2, "Task: metric against the human system scores"));
      const run = pickRun(main, "run", args);
      if (!run) return;
      const r = run.result, ds = D.datasets[run.dataset] || null;
      main.append(el("p", {}, el("code", {}, r.signature || "(no signature)")));
      if (run.notes.length) main.append(el("div", { class: "problems", role: "alert" }, run.notes.join(" ")));
      if (!ds || ds.error) main.append(el("div", { class: "problems", role: "alert" },
        "The dataset's human system scores and texts cannot be loaded" + (ds && ds.error ? ": " + ds.error : "") + "; only results.json's numbers are shown."));
      for (const [hn, c] of Object.entries(r.system || {})) {
        main.append(h(3, `${hn}: r ${fmt(c.pearson)}, ρ ${fmt(c.spearman)}` + (c.spa !== undefined ? `, SPA ${fmt(c.spa)}` : "") +
                    (c.pairwise_accuracy !== undefined ? `, PA ${fmt(c.pairwise_accuracy)} (chance ${fmt(c.pairwise_accuracy_random)})` : "")));
        if (c.ci) main.append(note(`95% bootstrap intervals (${c.ci.samples} resamples of the sentences): r [${fmt(c.ci.pearson[0])}, ${fmt(c.ci.pearson[1])}], ρ [${fmt(c.ci.spearman[0])}, ${fmt(c.ci.spearman[1])}]`));
        const human = ds && !ds.error && ds.human[hn];
        if (human && r.system_scores) {
          const pts = ds.systems.map((s, i) => ({ label: s, x: human[i], y: num(r.system_scores[s]) })).filter(p => p.y !== null && p.y !== undefined);
          main.append(scatter(pts, `human ${hn}`, `${r.metric} (${r.aggregation})`));
          main.append(h(3, `Pairwise agreement with ${hn} (✓ same order, ✗ opposite, = a tie on one side)`), agreement(pts));
        }
        const rows = r.system_scores ? Object.entries(r.system_scores).map(([s, v]) => ({ _id: s, system: s, metric: v,
          human: human ? human[ds.systems.indexOf(s)] : null })) : [];
        if (rows.length) main.append(table([{ key: "system", label: "system", text: true }, { key: "metric", label: "metric score", digits: 4 },
          { key: "human", label: `human ${hn}`, digits: 4 }], rows, { name: "systems-" + hn, csvName: `system_scores_${hn}.csv`, sortKey: "metric", sortDir: -1 }));
      }
      for (const [what, xkey, xl] of [["window", "start_rank", "window start (human rank)"], ["top_k", "k", "K (top systems by human score)"]]) {
        if (!r[what]) continue;
        main.append(h(3, what === "window" ? "Window analysis" : "Top-K"));
        for (const [hn, rows] of Object.entries(r[what])) {
          main.append(el("div", {}, lines([{ name: "r", pts: rows.map(x => [x[xkey], num(x.pearson)]) }, { name: "ρ", pts: rows.map(x => [x[xkey], num(x.spearman)]) }], xl, `correlation with ${hn}`)),
            table(Object.keys(rows[0]).map(k => ({ key: k, label: LABEL[k] || k })), rows, { name: `${what}-${hn}`, csvName: `${what}_${hn}.csv` }));
        }
      }
    },
    sentences(main, args) {
      main.append(h(2, "Sentences: where the metric and the humans disagree most"));
      const run = pickRun(main, "sentences", args);
      if (!run) return;
      const ds = D.datasets[run.dataset];
      if (!ds || ds.error) { main.append(el("div", { class: "problems", role: "alert" }, "The dataset's texts cannot be loaded" + (ds && ds.error ? ": " + ds.error : "") + ".")); }
      if (!run.sentence_scores) { main.append(el("div", { class: "problems", role: "alert" }, "This run has no sentence_scores.tsv.")); return; }
      const ss = run.sentence_scores;
      const detail = el("div", { id: "sentence-detail" });
      function show(n, pair) {
        detail.replaceChildren(h(3, `Sentence ${n}` + (pair ? `: humans prefer ${pair.better} to ${pair.worse}, the metric the other way` : "")));
        if (!ds || ds.error) { detail.append(note("(texts not loadable)")); return; }
        const src = ds.sources[n];
        detail.append(el("div", { class: "sent", "data-role": "source" }, el("span", { class: "who" }, "source"), src));
        const order = pair ? [pair.better, pair.worse] : ds.systems;
        for (const s of order) {
          const i = ds.systems.indexOf(s), k = ss.systems.indexOf(s);
          detail.append(el("div", { class: "sent", "data-role": "hypothesis", "data-system": s },
            el("span", { class: "who" }, `${s} (metric ${k >= 0 ? fmt(num(ss.scores[k][n]), 4) : "–"})`), marked(src, ds.hypotheses[i][n])));
        }
        ds.references.forEach((ref, j) => detail.append(el("div", { class: "sent", "data-role": "reference" },
          el("span", { class: "who" }, `reference ${ds.reference_names[j] || j}`), marked(src, ref[n]))));
        detail.append(note("Edits against the source: inserted words underlined (ins), deleted words struck through (del)."));
      }
      for (const [aspect, pairs] of Object.entries(run.disagreements || {})) {
        main.append(h(3, `${aspect}: ${pairs.length} most disagreeing judged pairs (largest metric margin first)`));
        const rows = pairs.map((p, i) => ({ _id: i, ...p, margin: p.metric[1] - p.metric[0], h: p.kind === "ranking" ? `rank ${fmt(p.human[0], "int")} vs ${fmt(p.human[1], "int")}` : `${fmt(p.human[0])} > ${fmt(p.human[1])}`,
                                            m: `${fmt(p.metric[0], 4)} < ${fmt(p.metric[1], 4)}` }));
        main.append(table([{ key: "sentence", label: "sentence", show: p => el("button", { type: "button", class: "pair", "data-sentence": p.sentence,
                               onclick: () => show(p.sentence, p) }, String(p.sentence)) },
                           { key: "better", label: "human-preferred", text: true }, { key: "worse", label: "other", text: true },
                           { key: "h", label: "human", text: true }, { key: "m", label: "metric", text: true }, { key: "margin", label: "metric margin", digits: 4 }],
                          rows, { name: "pairs-" + aspect, csvName: `disagreements_${aspect}.csv` }));
      }
      if (!Object.keys(run.disagreements || {}).length) main.append(note("No judged pairs to compare (no sentence-level judgments, or the texts cannot be loaded)."));
      const search = el("input", { type: "search", id: "sentence-search", placeholder: "sentence number or text" });
      const hits = el("div", { id: "search-hits" });
      search.addEventListener("input", () => {
        const q = search.value.trim();
        hits.replaceChildren();
        if (!q) return;
        if (/^\d+$/.test(q)) { if (Number(q) < ss.scores[0].length) show(Number(q)); return; }
        if (!ds || ds.error) return;
        const found = [];
        ds.sources.forEach((s, n) => { if (found.length < 20 && s.toLowerCase().includes(q.toLowerCase())) found.push(n); });
        hits.append(note(`${found.length}${found.length === 20 ? "+" : ""} sentences contain "${q}": `),
                    ...found.map(n => el("button", { type: "button", class: "hit", onclick: () => show(n) }, String(n))));
      });
      main.append(h(3, "Find a sentence"), el("div", { class: "controls" }, el("label", {}, "Sentence ", search)), hits, detail);
      const n = ss.scores[0] ? ss.scores[0].length : 0;
      main.append(h(3, "Per-system sentence scores"), note(`${ss.systems.length} systems × ${n} sentences (sentence_scores.tsv).`),
        table([{ key: "system", label: "system", text: true }, { key: "mean", label: "mean", digits: 4 }, { key: "scored", label: "scored" }],
              ss.systems.map((s, i) => { const v = ss.scores[i].map(num).filter(Number.isFinite);
                return { _id: s, system: s, mean: v.reduce((a, b) => a + b, 0) / (v.length || 1), scored: v.length }; }),
              { name: "sentence-scores", csvName: "sentence_scores_by_system.csv" }));
    },
    robustness(main) {
      main.append(h(2, "Robustness: each attack's rank among all systems"));
      const runs = D.runs.filter(r => r.result.robustness);
      if (!runs.length) { main.append(note("No run in this folder has adversarial systems (dataset.attacks=true, seeda_attack, bea19_dev_attack).")); return; }
      for (const run of runs) {
        const sec = run.result.robustness, n = Object.keys(sec.system_scores).length;
        main.append(h(3, `${runLabel(run)}: fooled by ${sec.fooled_by.join(", ") || "none"}`), note(sec.definition),
          table([{ key: "attack", label: "attack", text: true }, { key: "score", label: "score", digits: 4 }, { key: "rank", label: `rank of ${n}` },
                 { key: "outranks", label: `outranks (of ${sec.real_systems})` }, { key: "fooled", label: "fooled", text: true }],
                Object.entries(sec.attacks).map(([a, x]) => ({ _id: a, attack: a, ...x, fooled: x.fooled ? "yes" : "no" })),
                { name: "robustness-" + run.id, csvName: `robustness_${run.id}.csv` }));
      }
    },
    about(main) {
      main.append(h(2, "Signature and config of every run"));
      problems(main);
      for (const run of D.runs) main.append(h(3, run.path), el("p", {}, el("code", {}, run.result.signature || "(no signature)")),
        el("details", {}, el("summary", {}, "config.yaml"), el("pre", {}, run.config || "(no config.yaml)")));
    },
  };
  function agreement(pts) {   // systems ordered by human score; cell: do the metric and the humans order the pair alike?
    const p = pts.slice().sort((a, b) => b.x - a.x);
    const sign = v => (v > 0) - (v < 0);
    const rows = p.map(a => ({ _id: a.label, system: a.label, ...Object.fromEntries(p.map(b => [b.label, a === b ? "·" :
      sign(a.x - b.x) === 0 || sign(a.y - b.y) === 0 ? "=" : sign(a.x - b.x) === sign(a.y - b.y) ? "✓" : "✗"])) }));
    const agree = rows.reduce((n, r) => n + Object.values(r).filter(v => v === "✓").length, 0) / 2;
    const total = p.length * (p.length - 1) / 2;
    const box = table([{ key: "system", label: "system", text: true }].concat(p.map(b => ({ key: b.label, label: b.label, text: true,
      cls: r => r[b.label] === "✗" ? "bad" : null }))), rows, { name: "agreement" });
    box.prepend(note(`${agree} of ${total} system pairs ordered alike (rows and columns by human score, best first).`));
    return box;
  }

  render();
})();
