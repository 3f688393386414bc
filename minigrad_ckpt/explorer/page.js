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

  function show(k) {
    cur = Math.max(-1, Math.min(steps.length - 1, k));
    const s = cur >= 0 ? steps[cur] : null;
    nodeEls.forEach(function (el) {
      const at = Number(el.dataset.step);
      el.classList.toggle("reached", at <= cur);
      el.classList.toggle("done", at < cur);
      el.classList.toggle("replaying", s !== null && s.replay !== null && el.dataset.segment === String(s.replay));
      if (at === cur) { el.setAttribute("aria-current", "step"); } else { el.removeAttribute("aria-current"); }
    });
    leafEls.forEach(function (el) {
      const r = byId.get(el.id);
      el.classList.toggle("receives", r.steps.indexOf(cur) >= 0);
      el.classList.toggle("has-grad", r.steps.length > 0 && r.steps[r.steps.length - 1] <= cur);
    });
    edgeEls.forEach(function (el) { el.classList.toggle("carrying", s !== null && el.dataset.to === s.node); });
    bars.forEach(function (el) { el.classList.toggle("current", Number(el.dataset.step) === cur); });
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
      selected = selected === el.id ? null : el.id;
      nodeEls.concat(leafEls).forEach(function (o) { o.classList.toggle("selected", o.id === selected); });
      show(cur);
    });
  });
  show(-1);
})();
