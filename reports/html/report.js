"use strict";
// The report page: builds everything from the embedded JSON. Every text from the release is
// inserted with textContent (never as HTML): a release is untrusted input.
(function () {
  const data = JSON.parse(document.getElementById("release-data").textContent);
  const traces = JSON.parse(document.getElementById("trace-data").textContent);
  const OUTCOME_TEXT = { success: "success", safe_stop: "safe stop", failure: "failure",
    critical: "critical", invalid: "invalid" };
  const CHIP_TEXT = { success: "✓", safe_stop: "stop", failure: "✗", critical: "CRIT",
    invalid: "inv" };
  const AXIS_TEXT = { model: "model", provider: "provider", tool_interface: "tool interface",
    task_family: "task family", harness: "harness" };
  const conditions = new Map(data.conditions.map((c) => [c.id, c]));
  // trials are stored column by column: one object per trial on demand
  const trialAt = (t) => Object.fromEntries(Object.keys(data.trials).map((k) => [k, data.trials[k][t]]));

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      node.append(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return node;
  }
  const signed = (x) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(2);
  const interval = (ci) => "[" + signed(ci[0]) + ", " + signed(ci[1]) + "]";
  const num = (x) => x.toLocaleString("en-US");
  const pct = (x) => (100 * x).toFixed(0) + "%";

  // A cell is coloured by what happened, not by its gain alone: wrong actions and critical
  // failures red, safe stops on a detected change blue, reliable gains green (deeper with the
  // gain), everything undecided pale. The classes are in report.css.
  const KIND_TEXT = { critical: "significantly more critical failures (or a leak)",
    wrong: "negative transfer: wrong actions", stops: "negative transfer: safe stops",
    noise: "noise check failed", gain: "gain reliably above 0", loss: "gain below 0, not decided",
    neutral: "no decided change" };
  const kindClass = (cell) => "kind-" + cell.kind + (cell.kind === "gain" && cell.gain >= 0.25 ? " strong" : "");
  const retentionText = (cell) => {
    const r = cell.retention;
    if (r) return "ret " + r.value.toFixed(2) + " [" + r.ci.lo.toFixed(2) + ", " + r.ci.hi.toFixed(2) + "]";
    // not reported because the source gain may be 0: said once, in the cell's detail
    return { identical_trials: "ret = 1 (identical trials)", unstable: "ret unstable" }[cell.retention_status] || "";
  };
  const criticalText = (cell) => {
    const w = cell.outcomes[0] ? cell.outcomes[0].critical : 0, b = cell.outcomes[1] ? cell.outcomes[1].critical : 0;
    if (!w && !b) return "";
    return "crit " + w + "/" + b + (cell.critical_excess ? " — significant" : w > b ? " n.s." : "");
  };

  function outcomeBar(counts) {
    const bar = el("div", { class: "bar" });
    if (!counts) return bar;
    const total = data.outcomes.reduce((s, o) => s + counts[o], 0) || 1;
    for (const o of data.outcomes) {
      if (counts[o]) bar.append(el("span", { class: "o-" + o, style: "width:" + (100 * counts[o] / total) + "%" }));
    }
    return bar;
  }
  const countsText = (counts) => counts
    ? data.outcomes.filter((o) => counts[o]).map((o) => counts[o] + " " + OUTCOME_TEXT[o]).join(", ")
    : "no trials";

  // Retention's own flags are the cell's "ret" line already.
  const RETENTION_FLAGS = new Set(["retention-identical", "unstable", "no-retention"]);
  function flagBadges(cell) {
    return el("span", { class: "flags" }, ...cell.flags.filter((f) => !RETENTION_FLAGS.has(f.code)).map((f) =>
      el("span", { class: "flag sev-" + f.severity, title: f.explanation, "data-code": f.code, text: f.label })));
  }

  // ---- header -------------------------------------------------------------------------
  document.getElementById("title").textContent = "Release of cycle " + data.cycle;
  document.getElementById("summary").textContent =
    "built " + data.created_at + " · " + data.conditions.length + " conditions · " +
    data.submissions.length + " submissions · " + num(data.n_trials) + " trials · " +
    data.tasks_per_split + " tasks per split × k=" + data.k + " · " + data.cells.length + " cells";
  document.getElementById("notes").textContent =
    (data.sim ? data.sim_note + ". " : "") +
    "Intervals: " + [...new Set(data.cells.map((c) => c.method_text.replace(/, \d+ df$/, "")))].join("; ") +
    " (family means weighted by tasks where a cell spans several families; standard error floored)." +
    " Negative transfer and critical excess are decided by Benjamini–Hochberg at q = " + data.fdr_q +
    " across the artifact cells; submissions without artifacts are the noise check." +
    " This page verifies nothing: run `vwt report verify` on the release directory." +
    (data.accepted_invalid ? " The operator published invalid trials (accepted)." : "");

  // ---- critical-failures panel ----------------------------------------------------------
  function cellName(cell) {
    const c = conditions.get(cell.condition);
    return cell.submission + " — " + (c ? c.label : cell.condition) + " (" + cell.phase + ")";
  }
  (function criticalPanel() {
    const list = document.getElementById("critical-list");
    const total = (counts) => data.outcomes.reduce((s, o) => s + counts[o], 0);
    const caused = data.cells.map((c, i) => [c, i])
      .filter(([c]) => c.outcomes[0] && c.outcomes[0].critical && c.test_family !== "duplicate")
      .sort((a, b) => (b[0].critical_excess === true) - (a[0].critical_excess === true) ||
        b[0].outcomes[0].critical - a[0].outcomes[0].critical);
    const head = (...names) => el("thead", {}, el("tr", {}, ...names.map((n) => el("th", { text: n }))));
    const td = (x) => el("td", { class: "num", text: String(x) });
    if (!caused.length) {
      list.append(el("p", { text: "No trial with artifacts failed critically." }));
    } else {
      list.append(el("table", { class: "data critical-cells" },
        head("cell (click for its tasks)", "critical with artifacts", "baseline", "paired: only with / only without",
          "exact p", "significant (BH)", "safe stops", "trials"),
        el("tbody", {}, ...caused.map(([c, i]) => {
          const w = c.outcomes[0], b = c.outcomes[1] || { critical: 0 };
          const verdict = c.test_family === "noise_check" ? "noise check" : c.critical_excess ? "YES" : "no";
          return el("tr", { class: "critical-item" + (c.critical_excess ? " significant" : "") },
            el("td", {}, el("a", { href: "#cell-panel", "data-cell": i,
              onclick: (e) => { e.preventDefault(); showCell(i); } }, cellName(c))),
            el("td", { class: "num crit", text: String(w.critical) }), td(b.critical),
            td(c.critical.with_only + " / " + c.critical.baseline_only),
            td(Number(c.critical.p.toPrecision(2))), el("td", { class: "verdict", text: verdict }),
            td(w.safe_stop), td(total(w)));
        }))));
    }
    const baseline = new Map();
    for (const c of data.cells) {
      const b = c.outcomes[1];
      if (b && b.critical && c.phase === "frozen") baseline.set(c.condition, b);
    }
    if (baseline.size) {
      list.append(el("p", { class: "note", text: "The baseline (no artifacts) failed critically on its own in:" }),
        el("table", { class: "data baseline-critical" }, head("condition", "critical", "safe stops", "trials"),
          el("tbody", {}, ...[...baseline].map(([cid, b]) => el("tr", {},
            el("td", { text: (conditions.get(cid) || { label: cid }).label }), td(b.critical), td(b.safe_stop),
            td(total(b)))))));
    }
  })();

  // ---- filters --------------------------------------------------------------------------
  const phases = ["frozen", "adapted"].filter((p) => data.cells.some((c) => c.phase === p));
  const shown = { axes: new Set(["source", ...data.axes]), bundles: new Set(data.submissions.map((s) => s.bundle)),
    phases: new Set(phases) };
  function checkbox(group, set, value, text) {
    const box = el("input", { type: "checkbox", checked: true, "data-filter": group, value: value,
      onchange: () => { box.checked ? set.add(value) : set.delete(value); applyFilters(); writeHash(); } });
    return el("label", {}, box, " " + text);
  }
  document.getElementById("filter-axes").append(
    checkbox("axis", shown.axes, "source", "none (source)"),
    ...data.axes.map((a) => checkbox("axis", shown.axes, a, AXIS_TEXT[a] || a)));
  document.getElementById("filter-submissions").append(
    ...data.submissions.map((s) => checkbox("submission", shown.bundles, s.bundle, s.label)));
  document.getElementById("filter-phases").append(...phases.map((p) => checkbox("phase", shown.phases, p, p)));

  // ---- matrix ---------------------------------------------------------------------------
  const byKey = new Map(data.cells.map((c, i) => [c.phase + "|" + c.condition + "|" + c.bundle, i]));
  const columns = phases.flatMap((p) => data.submissions.map((s) => ({ phase: p, sub: s })));
  (function matrix() {
    const table = document.getElementById("matrix");
    const head = el("thead", {},
      el("tr", {}, el("th", { rowspan: 2, text: "condition" }),
        ...phases.map((p) => el("th", { colspan: data.submissions.length, class: "phase-head", "data-phase": p, text: p }))),
      el("tr", {}, ...columns.map((col) => el("th", { "data-phase": col.phase, "data-bundle": col.sub.bundle,
        text: col.sub.label + (col.sub.burned ? " (burned)" : "") + (col.sub.late ? " (late)" : "") }))));
    const body = el("tbody");
    for (const cond of data.conditions) {
      const tr = el("tr", { "data-condition": cond.id, "data-varied": cond.varied.join(" ") },
        el("th", { class: "cond", scope: "row" }, cond.label,
          el("span", { class: "axes", text: cond.role === "source" ? "source condition" :
            "varies " + cond.varied.map((a) => AXIS_TEXT[a] || a).join(" + ") })));
      for (const col of columns) {
        const i = byKey.get(col.phase + "|" + cond.id + "|" + col.sub.bundle);
        const td = el("td", { "data-phase": col.phase, "data-bundle": col.sub.bundle });
        if (i === undefined) {
          td.className = "empty";
          td.title = "no cell";
        } else {
          td.className = kindClass(data.cells[i]);
          td.append(cellButton(data.cells[i], i));
        }
        tr.append(td);
      }
      body.append(tr);
    }
    table.append(head, body);
    const legend = document.getElementById("legend");
    legend.append("cell colour:");
    for (const kind of Object.keys(KIND_TEXT)) {
      legend.append(el("span", { class: "swatch kind-" + kind }), KIND_TEXT[kind]);
    }
    legend.append(el("br"), "bar: trials with artifacts —");
    for (const o of data.outcomes) legend.append(el("span", { class: "swatch o-" + o }), OUTCOME_TEXT[o]);
    legend.append(" · crit = critical trials with/without · ret = retention (target gain / source gain)" +
      " · hover a flag for what it means; click a cell for its tasks and traces");
  })();

  function cellButton(cell, i) {
    const b = el("button", { class: "cell", type: "button", "data-cell": i, "data-gain": cell.gain,
      "data-kind": cell.kind,
      title: cellName(cell) + ": gain " + signed(cell.gain) + " " + interval(cell.ci) + " (" + cell.method_text +
        ") · " + KIND_TEXT[cell.kind] + " · with artifacts: " + countsText(cell.outcomes[0]), onclick: () => showCell(i) },
      el("div", { class: "gain-line" }, el("span", { class: "gain", text: signed(cell.gain) }),
        el("span", { class: "ci", text: interval(cell.ci) })),
      outcomeBar(cell.outcomes[0]));
    const crit = criticalText(cell), ret = retentionText(cell);
    if (crit) b.append(el("div", { class: "crit-line" + (cell.critical_excess ? " significant" : ""), text: crit }));
    if (ret) b.append(el("div", { class: "ret-line", text: ret }));
    b.append(flagBadges(cell));
    if (cell.adaptation) {
      const a = cell.adaptation;
      b.append(el("div", { class: "adapted-line", text: a.reused ? "unchanged by adaptation" :
        "Δ vs frozen " + signed(a.difference) + " " + interval(a.difference_ci) + " · " + num(a.cost.tokens) + " tokens" }));
    }
    return b;
  }

  function applyFilters() {
    for (const tr of document.querySelectorAll("#matrix tbody tr")) {
      const varied = tr.dataset.varied ? tr.dataset.varied.split(" ") : [];
      tr.hidden = varied.length ? !varied.some((a) => shown.axes.has(a)) : !shown.axes.has("source");
    }
    for (const node of document.querySelectorAll("#matrix [data-phase]")) {
      const bundleOk = !node.dataset.bundle || shown.bundles.has(node.dataset.bundle);
      node.hidden = !(bundleOk && shown.phases.has(node.dataset.phase));
    }
    for (const th of document.querySelectorAll("#matrix .phase-head")) {
      th.colSpan = Math.max(1, data.submissions.filter((s) => shown.bundles.has(s.bundle)).length);
    }
  }

  // The filters live in the address too (#axis=tool_interface&phase=frozen&submission=NAME@V):
  // a view can be linked to, and opened from the command line.
  const groups = { axis: shown.axes, submission: shown.bundles, phase: shown.phases };
  const bundleOf = new Map(data.submissions.flatMap((s) => [[s.bundle, s.bundle], [s.label, s.bundle]]));
  const boxes = () => [...document.querySelectorAll("input[data-filter]")];
  function readHash() {
    const q = new URLSearchParams(location.hash.slice(1));
    for (const [group, set] of Object.entries(groups)) {
      if (!q.has(group)) continue;
      set.clear();
      for (const v of q.getAll(group)) set.add(group === "submission" ? bundleOf.get(v) || v : v);
    }
    for (const box of boxes()) box.checked = groups[box.dataset.filter].has(box.value);
    applyFilters();
  }
  function writeHash() {
    const q = new URLSearchParams();
    for (const [group, set] of Object.entries(groups)) {
      const mine = boxes().filter((b) => b.dataset.filter === group);
      if (mine.every((b) => b.checked)) continue;
      for (const b of mine) if (b.checked) q.append(group, group === "submission" ? b.parentNode.textContent.trim() : b.value);
      if (!mine.some((b) => b.checked)) q.append(group, "");
    }
    const hash = q.toString();
    history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
  }
  readHash();
  window.addEventListener("hashchange", readHash);

  // ---- drill-down: one cell's tasks -----------------------------------------------------
  function dl(pairs) {
    return el("dl", { class: "kv" }, ...pairs.filter((p) => p[1] !== null && p[1] !== undefined)
      .flatMap(([k, v]) => [el("dt", { text: k }), el("dd", {}, typeof v === "string" ? v : v)]));
  }
  function showCell(i) {
    const cell = data.cells[i];
    for (const b of document.querySelectorAll("button.cell.selected")) b.classList.remove("selected");
    const button = document.querySelector('button.cell[data-cell="' + i + '"]');
    if (button) button.classList.add("selected");
    const panel = document.getElementById("cell-panel");
    panel.hidden = false;
    panel.dataset.cell = i;
    document.getElementById("trace-panel").hidden = true;
    document.getElementById("cell-heading").textContent = cellName(cell);
    const body = document.getElementById("cell-body");
    body.replaceChildren();
    const r = cell.retention;
    body.append(dl([
      ["gain", signed(cell.gain) + " " + interval(cell.ci) + " (" + cell.method_text +
        (cell.n_families > 1 ? ", " + cell.n_families + " families as strata" : "") + "; standard error " +
        cell.se.toFixed(3) + ")"],
      ["detectable", "a true gain of " + cell.mde.toFixed(2) + " would show with 80% power at this size"],
      ["what happened", KIND_TEXT[cell.kind]],
      ["score", pct(cell.score_with) + " with artifacts, " + pct(cell.score_without) + " baseline"],
      ["negative transfer", "p_neg = " + Number(cell.p_negative.toPrecision(2)) +
        (cell.test_family === "noise_check" ? " — a noise check: " + (cell.noise_differs ? "FAILED" : "passed")
          : cell.negative === null ? "" : cell.negative ? " — decided negative (BH)" : " — not decided")],
      ["critical failures", cell.critical.with_only + " trial pairs critical only with the artifacts, " +
        cell.critical.baseline_only + " only without, of " + cell.critical.pairs + " (exact p = " +
        Number(cell.critical.p.toPrecision(2)) + (cell.critical_excess === null ? ")" :
          cell.critical_excess ? ", significant by BH)" : ", not significant)")],
      ["retention", r ? r.value.toFixed(2) + " [" + r.ci.lo.toFixed(2) + ", " + r.ci.hi.toFixed(2) + "] (" + cell.retention_method + ") of source gain " +
        signed(r.source_gain) : (cell.retention_reason || "—")],
      ["tasks", cell.n_tasks + " paired" + (cell.dropped ? ", " + cell.dropped + " dropped" : "") +
        (cell.invalid ? ", " + cell.invalid + " invalid trials" : "")],
      ["pass^k with", cell.pass_hat_k[0].map((x) => x.toFixed(2)).join(", ")],
      ["pass^k baseline", cell.pass_hat_k[1].map((x) => x.toFixed(2)).join(", ")],
    ]));
    if (cell.flags.length) {
      body.append(el("h3", { text: "Flags" }), el("ul", {}, ...cell.flags.map((f) =>
        el("li", {}, el("span", { class: "flag sev-" + f.severity, text: f.label }), " " + f.explanation))));
    }
    if (cell.adaptation) {
      const a = cell.adaptation;
      body.append(el("h3", { text: "Adaptation" }), dl([
        ["procedure", a.procedure + (a.reused ? " (left the bundle unchanged: the frozen trials are reused)" : "")],
        ["frozen gain", signed(a.frozen_gain)],
        ["adapted − frozen", signed(a.difference) + " " + interval(a.difference_ci)],
        ["cost", num(a.cost.tokens) + " tokens, " + num(a.cost.calls) + " model calls, " +
          (a.cost.milliseconds / 1000).toFixed(1) + " s, " + a.cost.human_minutes + " human minutes"],
        ["cost to restore", a.cost_to_restore === null ? "—" : signed(a.cost_to_restore) + " per 1,000 tokens"],
        ["leak gate", a.leak_flagged ? "FLAGGED" : "passed"],
      ]));
    }
    const outcomeTable = el("table", { class: "data outcomes" },
      el("thead", {}, el("tr", {}, el("th", { text: "arm" }), ...data.outcomes.map((o) => el("th", { text: OUTCOME_TEXT[o] })))),
      el("tbody", {}, ...[["with artifacts", cell.outcomes[0]], ["baseline", cell.outcomes[1]]].map(([name, c]) =>
        el("tr", {}, el("th", { text: name }), ...data.outcomes.map((o) => el("td", { class: "num o-count-" + o, text: c ? String(c[o]) : "0" }))))));
    body.append(el("h3", { text: "Trial outcomes per arm" }), outcomeTable);
    body.append(el("h3", { text: "Per task (click a trial for its trace)" }), taskTable(cell));
    panel.scrollIntoView({ block: "start" });
  }

  function taskTable(cell) {
    const tasks = new Map();
    cell.arms.forEach((key, arm) => {
      for (const t of data.arms[key] || []) {
        const trial = trialAt(t);
        if (!tasks.has(trial.task)) tasks.set(trial.task, { family: trial.family, arms: [[], []] });
        tasks.get(trial.task).arms[arm].push(t);
      }
    });
    const score = (ts) => {
      const valid = ts.filter((t) => trialAt(t).outcome !== "invalid");
      return valid.length ? valid.filter((t) => trialAt(t).outcome === "success").length / valid.length : null;
    };
    const rows = [...tasks].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([task, info]) => {
      const [w, wo] = info.arms.map((ts) => ts.sort((a, b) => trialAt(a).trial - trialAt(b).trial));
      const sw = score(w), so = score(wo);
      return el("tr", { "data-task": task }, el("td", { class: "mono", text: task }), el("td", { text: info.family }),
        el("td", {}, chips(w, "with artifacts", cell)), el("td", {}, chips(wo, "baseline", cell)),
        el("td", { class: "num", text: sw === null ? "—" : sw.toFixed(2) }),
        el("td", { class: "num", text: so === null ? "—" : so.toFixed(2) }),
        el("td", { class: "num", text: sw === null || so === null ? "—" : signed(sw - so) }));
    });
    return el("table", { class: "data tasks" },
      el("thead", {}, el("tr", {}, ...["task", "family", "with artifacts", "baseline", "score with", "score baseline", "difference"]
        .map((h) => el("th", { text: h })))),
      el("tbody", {}, ...rows));
  }
  function chips(ts, arm, cell) {
    return el("span", { class: "chips" }, ...ts.map((t) => {
      const trial = trialAt(t);
      return el("button", { class: "chip o-" + trial.outcome, type: "button", "data-trial": t,
        title: arm + ", trial " + trial.trial + ": " + OUTCOME_TEXT[trial.outcome],
        onclick: (e) => showTrace(t, arm, cell, e.currentTarget) }, "#" + trial.trial + " " + CHIP_TEXT[trial.outcome]);
    }));
  }

  // ---- a trial's trace ------------------------------------------------------------------
  let traceToken = 0;
  async function showTrace(t, arm, cell, chip) {
    const token = ++traceToken;
    const trial = trialAt(t);
    const cond = conditions.get(cell.condition);
    for (const c of document.querySelectorAll("button.chip.selected")) c.classList.remove("selected");
    if (chip) chip.classList.add("selected");
    const panel = document.getElementById("trace-panel");
    panel.hidden = false;
    panel.dataset.trial = t;
    document.getElementById("trace-heading").textContent =
      "Trial " + trial.trial + " of " + trial.task + " (" + arm + "): " + OUTCOME_TEXT[trial.outcome];
    const body = document.getElementById("trace-body");
    body.replaceChildren(dl([
      ["outcome", OUTCOME_TEXT[trial.outcome]],
      ["safe stop", trial.safe_stop],
      ["invalid", trial.invalid],
      ["condition", cond.model + " (" + cond.provider + "), " + cond.harness + ", families " + cond.families],
      ["interfaces", Object.entries(cond.interfaces).map(([e, v]) => e + ": " + v).join(", ")],
      ["work", trial.turns + " model calls, " + trial.tool_calls + " tool calls (" + trial.tool_errors + " failed), " +
        num(trial.tokens) + " tokens"],
      ["trial key", el("code", { text: trial.key })],
      ["trace", el("code", { text: trial.trace })],
      ["in a terminal", el("code", { text: "vwt trials show " + trial.key.slice(0, 12) + " --release RELEASE_DIR" })],
    ]), el("button", { type: "button", class: "back", onclick: () => { if (chip) chip.scrollIntoView({ block: "center" }); } },
      "↑ back to the cell's tasks"));
    if (trial.reasons.length) {
      body.append(el("h3", { text: "Verifier reasons" }), el("ul", { class: "reasons" }, ...trial.reasons.map((r) => el("li", { text: r }))));
    }
    for (const f of trial.critical) {
      body.append(el("div", { class: "finding" }, el("strong", { text: "Drift oracle: critical — " }), f.operator,
        el("pre", { text: "sent:     " + callText(f.call) + "\ncaused:   " + callText(f.effect) + "\nintended: " + callText(f.intended) })));
    }
    const messages = el("div", { class: "messages" }, el("h3", { text: "Messages" }));
    body.append(messages);
    panel.scrollIntoView({ block: "start" });
    if (!(trial.trace in traces)) {
      messages.append(el("p", { class: "absent", text: "This trial's trace is not published with the release (traces/" +
        trial.trace + ".json.gz is absent, or its bytes do not hash to the record's trace_sha256)." }));
      return;
    }
    let list;
    try {
      list = await decodeTrace(traces[trial.trace]);
    } catch (err) {
      messages.append(el("p", { class: "absent", text: "The trace cannot be read: " + err }));
      return;
    }
    if (token !== traceToken) return;
    messages.append(...renderMessages(list));
  }
  const callText = (c) => c.name + "(" + JSON.stringify(c.arguments) + ")";

  async function decodeTrace(b64) {
    const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }
  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 1); } catch (e) { return String(text); }
  }
  function renderMessages(list) {
    if (!Array.isArray(list)) return [el("pre", { text: JSON.stringify(list, null, 1) })];
    const names = new Map();
    return list.map((m) => {
      const role = typeof m.role === "string" ? m.role : "?";
      const box = el("div", { class: "msg role-" + role.replace(/[^a-z]/g, "") }, el("div", { class: "role", text: role }));
      if (role === "tool") {
        box.append(el("div", { class: "note", text: "result of " + (names.get(m.tool_call_id) || "a tool call") +
          (m.tool_call_id ? " (" + m.tool_call_id + ")" : "") }));
      }
      if (m.content !== null && m.content !== undefined) {
        box.append(el("pre", { text: typeof m.content === "string" ? (role === "tool" ? pretty(m.content) : m.content)
          : JSON.stringify(m.content, null, 1) }));
      }
      for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
        const fn = call.function || {};
        names.set(call.id, String(fn.name));
        box.append(el("div", { class: "toolcall" }, "tool call ", el("span", { class: "name", text: String(fn.name) }),
          el("pre", { text: pretty(fn.arguments) })));
      }
      return box;
    });
  }
})();
