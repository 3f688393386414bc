// The tape explorer's stepper (inlined into every page it writes).  The graph and the
// ledger chart are already drawn; this script moves through the steps of the backward pass
// recorded in the page's JSON (#tape-data): cur = -1 is "before the first step".
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("tape-data").textContent);
  const steps = data.steps;
  const byId = new Map();
  data.nodes.forEach(function (n) { byId.set(n.id, n); });
  data.leaves.forEach(function (l) { byId.set(l.id, l); });
  const nodeEls = Array.from(document.querySelectorAll("#graph .node"));
  const leafEls = Array.from(document.querySelectorAll("#graph .leaf"));
  const edgeEls = Array.from(document.querySelectorAll("#graph .edge"));
  const bars = Array.from(document.querySelectorAll("#ledger-chart .ledger-bar"));
  const mark = document.getElementById("ledger-mark");
  const info = document.getElementById("step-info");
  const details = document.getElementById("details");
  const position = document.getElementById("position");
  const buttons = {};
  document.querySelectorAll("[data-action]").forEach(function (b) { buttons[b.dataset.action] = b; });
  let cur = -1;
  let selected = null;

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c];
    });
  }
  function bytes(n) {
    if (n === null || n === undefined) { return "not measured"; }
    if (n < 1024) { return n + " B"; }
    if (n < 1048576) { return (n / 1024).toFixed(1) + " KiB"; }
    return (n / 1048576).toFixed(2) + " MiB";
  }
  function shape(s) { return "(" + s.shape.join(", ") + (s.shape.length === 1 ? ",)" : ")"); }
  // An array summary: its elements, or its statistics.
  function summary(s) {
    if (s === null || s === undefined) { return "<em>none</em>"; }
    const head = esc(s.dtype + " " + shape(s));
    if (s.values !== undefined) {
      const v = s.values.join(", ");
      return head + "<br>" + esc(s.shape.length === 0 ? v : "[" + v + "]");
    }
    const of = s.of === "abs" ? " |x|" : "";
    return head + "<br>min" + of + " " + esc(s.min) + ", max" + of + " " + esc(s.max) +
      "<br>mean " + esc(s.mean) + ", norm " + esc(s.norm);
  }
  function label(id) {
    const r = byId.get(id);
    if (!r) { return esc(id); }
    return r.op !== undefined ? esc("#" + r.seq + " " + r.op) : esc(r.name);
  }

  function describeStep(s) {
    const node = byId.get(s.node);
    let html = "<h2>Step " + s.index + ": " + esc(s.op) + " #" + s.seq + "</h2>";
    if (s.replay !== null) {
      html += "<p><strong>Replay:</strong> the values of checkpointed segment " + s.replay +
        " were dropped in the forward pass; this step recomputes them from the segment's kept inputs.</p>";
    }
    html += "<dl><dt>receives</dt><dd>" + summary(s.grad_output) + "</dd>";
    s.grad_inputs.forEach(function (g, i) {
      const e = node.inputs[i];
      const to = e.kind === "constant" ? "a constant" : label(e.ref);
      html += "<dt>sends to " + to + "</dt><dd>" + (g === null ? "<em>nothing</em>" : summary(g)) + "</dd>";
    });
    s.accumulated.forEach(function (a) {
      html += "<dt>leaf " + label(a.leaf) + " gets</dt><dd>" + summary(a.grad) + "</dd>";
    });
    html += "<dt>ledger releases</dt><dd>" + bytes(s.released_bytes) + "</dd>";
    if (s.held_saved !== null) {
      html += "<dt>held after</dt><dd>" + bytes(s.held_saved + s.held_grad) + " (saved " +
        bytes(s.held_saved) + ", gradients " + bytes(s.held_grad) + ")</dd>";
    }
    return html + "</dl>";
  }

  function describeRecord(id) {
    const r = byId.get(id);
    if (r.op === undefined) {
      const got = r.steps.filter(function (k) { return k <= cur; });
      return "<h2>Leaf " + esc(r.name) + "</h2><dl><dt>value</dt><dd>" + summary(r.value) + "</dd>" +
        "<dt>gradient from steps</dt><dd>" + (r.steps.length ? esc(r.steps.join(", ")) : "none") + "</dd>" +
        "<dt>.grad after the pass</dt><dd>" + (got.length === r.steps.length ? summary(r.grad) :
          "<em>written when the last step is taken</em>") + "</dd></dl>";
    }
    let html = "<h2>Node #" + r.seq + " " + esc(r.op) + "</h2><dl>";
    if (r.attrs) { html += "<dt>attributes</dt><dd>" + esc(r.attrs) + "</dd>"; }
    html += "<dt>output</dt><dd>" + esc(r.dtype + " (" + r.shape.join(", ") + ")") + "</dd>";
    r.inputs.forEach(function (e, i) {
      const what = e.kind === "constant" ? "constant" + (e.value ? "<br>" + summary(e.value) : "") : label(e.ref);
      html += "<dt>input " + i + "</dt><dd>" + what + "</dd>";
    });
    html += "<dt>value</dt><dd>" + (r.value ? summary(r.value) : "<em>not kept by the tape</em>") +
      (r.value_from_step !== null ? "<br>(recomputed by the replay at step " + r.value_from_step + ")" : "") + "</dd>";
    if (r.segment !== null) {
      html += "<dt>checkpointed</dt><dd>segment " + r.segment + (r.dropped ? ", values dropped" : "") + "</dd>";
    }
    html += "<dt>backward step</dt><dd>" + r.step + "</dd>";
    if (r.step <= cur) { html += "<dt>gradient</dt><dd>" + summary(steps[r.step].grad_output) + "</dd>"; }
    return html + "</dl>";
  }

  // What changes when the current step moves, found once: a step touches its own node, the edges
  // into it, the leaves it gives to, its bar and the nodes of the segment it replays -- so a move
  // updates those alone, not every element of the graph (a tape of 20,000 ops took a second a click).
  const nodeAt = [];      // step index -> the element of the node backward reaches then
  const edgesInto = new Map();
  const leavesAt = [];    // step index -> the leaf elements it gives a gradient to
  const leavesDoneAt = []; // step index -> the leaf elements whose last gradient arrives then
  const bySegment = new Map();
  nodeEls.forEach(function (el) {
    const at = Number(el.dataset.step);
    if (Number.isInteger(at) && at >= 0) { nodeAt[at] = el; }
    if (el.dataset.segment !== undefined) {
      if (!bySegment.has(el.dataset.segment)) { bySegment.set(el.dataset.segment, []); }
      bySegment.get(el.dataset.segment).push(el);
    }
  });
  edgeEls.forEach(function (el) {
    if (!edgesInto.has(el.dataset.to)) { edgesInto.set(el.dataset.to, []); }
    edgesInto.get(el.dataset.to).push(el);
  });
  leafEls.forEach(function (el) {
    const r = byId.get(el.id);
    r.steps.forEach(function (k) { (leavesAt[k] = leavesAt[k] || []).push(el); });
    if (r.steps.length) { const last = r.steps[r.steps.length - 1]; (leavesDoneAt[last] = leavesDoneAt[last] || []).push(el); }
  });

  // The marks of step k (cur = k or not) on the elements it touches.
  function markStep(k, on) {
    const s = steps[k];
    (leavesAt[k] || []).forEach(function (el) { el.classList.toggle("receives", on); });
    (edgesInto.get(s.node) || []).forEach(function (el) { el.classList.toggle("carrying", on); });
    if (bars[k]) { bars[k].classList.toggle("current", on); }
    if (s.replay !== null) {
      (bySegment.get(String(s.replay)) || []).forEach(function (el) { el.classList.toggle("replaying", on); });
    }
  }
  // Steps lo..hi moved across cur: their nodes' and leaves' states by the new cur.
  function markRange(lo, hi) {
    for (let k = Math.max(lo, 0); k <= hi; k++) {
      const el = nodeAt[k];
      if (el) {
        el.classList.toggle("reached", k <= cur);
        el.classList.toggle("done", k < cur);
        if (k === cur) { el.setAttribute("aria-current", "step"); } else { el.removeAttribute("aria-current"); }
      }
      (leavesDoneAt[k] || []).forEach(function (leaf) { leaf.classList.toggle("has-grad", k <= cur); });
    }
  }

  function show(k) {
    const before = cur;
    cur = Math.max(-1, Math.min(steps.length - 1, k));
    const s = cur >= 0 ? steps[cur] : null;
    if (before >= 0) { markStep(before, false); }
    markRange(Math.min(before, cur), Math.max(before, cur));
    if (s !== null) { markStep(cur, true); }
    mark.setAttribute("data-step", String(cur));
    mark.setAttribute("data-released", s === null || s.released_bytes === null ? "" : String(s.released_bytes));
    mark.setAttribute("data-op", s === null ? "" : s.op);
    mark.setAttribute("data-held", s === null || s.held_saved === null ? "" : String(s.held_saved + s.held_grad));
    const bar = bars[cur];
    mark.setAttribute("x", bar ? bar.getAttribute("x") : mark.dataset.x0);
    mark.setAttribute("visibility", cur >= 0 ? "visible" : "hidden");
    position.textContent = cur < 0 ? "before the first step" : "step " + cur + " of 0\u2013" + (steps.length - 1) +
      ": " + s.op + " #" + s.seq;
    buttons.prev.disabled = buttons.first.disabled = cur < 0;
    buttons.next.disabled = buttons.last.disabled = cur >= steps.length - 1;
    info.innerHTML = s === null ? info.dataset.before : describeStep(s);
    const focus = selected !== null ? selected : s !== null ? s.node : null;
    details.innerHTML = focus === null ? details.dataset.before : describeRecord(focus);
    if (s !== null) {
      const el = document.getElementById(s.node);
      if (el && el.scrollIntoView) { el.scrollIntoView({ block: "nearest", inline: "nearest" }); }
    }
  }

  buttons.next.addEventListener("click", function () { show(cur + 1); });
  buttons.prev.addEventListener("click", function () { show(cur - 1); });
  buttons.first.addEventListener("click", function () { show(-1); });
  buttons.last.addEventListener("click", function () { show(steps.length - 1); });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowRight") { show(cur + 1); }
    if (ev.key === "ArrowLeft") { show(cur - 1); }
  });
  nodeEls.concat(leafEls).forEach(function (el) {
    el.addEventListener("click", function () {
      if (selected !== null) { document.getElementById(selected).classList.remove("selected"); }
      selected = selected === el.id ? null : el.id;
      if (selected !== null) { el.classList.add("selected"); }
      show(cur);
    });
  });
  show(-1);
})();
