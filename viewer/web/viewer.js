// SPDX-License-Identifier: MIT
// viewer.js - the HTML viewer's JavaScript: loads weft.wasm (the reader,
// model, layout and renderer in C), forwards its canvas calls to an HTML
// canvas and the user's input to it.  Everything the trace says reaches
// the page as text (textContent), never as HTML.
//
// One function, WeftViewer.mount(container, options), makes a viewer
// inside a container element: its toolbar, picture and inspector, every
// lookup scoped to it, its own instance of the WebAssembly module (the
// module is compiled once a page and shared; each instance has its own
// memory, since main.c holds one view).  The standalone page of `weft
// html` mounts one on its body; the runtime of `weft html
// --embed-runtime` mounts one on each <div class="weft-viewer"
// data-trace="NAME"> of a page, whose trace a script of `weft html
// --embed` registered.  WeftViewer is the only name this adds to window.
// A standalone page of two runs (`weft html GOOD BAD`) gives its viewer
// both (options trace2, name2): one picture of the two, one above the
// other, as `weft view GOOD BAD` shows them (main.c's pair).
(function () {
  'use strict';
  const api = (window.WeftViewer = window.WeftViewer || {});
  if (api.mount) return; // (the runtime loaded twice)
  const dec = new TextDecoder();
  const enc = new TextEncoder();

  function bytes(b64) {
    const bin = atob(b64);
    const u = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    return u;
  }
  // (deflated by weft html: inflated by the browser)
  const inflate = (u8) => new Response(new Blob([u8]).stream()
    .pipeThrough(new DecompressionStream('deflate'))).arrayBuffer();

  // The compiled module, once for the page: WeftViewer.wasm(coding, b64)
  // gives its bytes, every viewer waits for it and instantiates it.
  let haveModule;
  const module = new Promise((r) => { haveModule = r; });
  api.wasm = function (coding, b64) {
    api.wasm = () => {}; // (once)
    const b = bytes(b64);
    haveModule((coding === 'deflate' ? inflate(b) : Promise.resolve(b))
      .then((x) => WebAssembly.compile(x)));
  };

  // The traces of `weft html --embed` scripts, by name: {name, file,
  // coding, size, data (base64), start, duration (ns, -1: none),
  // counters (names, or null: all)}.  A viewer that asks for one not yet
  // registered waits for it.
  const traces = new Map(), waiting = new Map();
  const text64 = (b) => dec.decode(bytes(b));
  api.trace = function (t) {
    const r = {
      name: text64(t.name), file: text64(t.file), coding: t.coding, size: t.size, data: t.data,
      start: t.start, duration: t.duration,
      counters: t.counters === null || t.counters === undefined ? null : text64(t.counters).split('\n').filter((x) => x),
    };
    traces.set(r.name, r);
    (waiting.get(r.name) || []).forEach((f) => f(r));
    waiting.delete(r.name);
  };
  const traceNamed = (name) => traces.has(name) ? Promise.resolve(traces.get(name))
    : new Promise((f) => { if (!waiting.has(name)) waiting.set(name, []); waiting.get(name).push(f); });
  (api.pending || []).forEach(api.trace); // (registered before the runtime came)
  api.pending = { push: api.trace };

  // A time as the ruler and `weft render --start` write it ("2.5ms",
  // "120us", "1.2s"; a bare number is seconds), in ns; null if it is not.
  // (also as the viewers write times: "17.094 992 s", digits in groups)
  api.parseTime = function (s) {
    const m = /^\s*([0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)\s*(ns|us|µs|ms|s|min)?\s*$/i.exec(String(s).replace(/([0-9]) (?=[0-9])/g, '$1'));
    if (!m) return null;
    return Math.round(Number(m[1]) * { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9, min: 6e10 }[(m[2] || 's').toLowerCase()]);
  };

  // The viewer's parts: each has the class weft-PART (and, on the
  // standalone page, the id PART: what its tests and links name).
  const TEMPLATE = `
<div data-part="bar">
  <button data-part="zoomout" title="zoom out (S)">&minus;</button>
  <button data-part="zoomin" title="zoom in (W)">+</button>
  <button data-part="fit" title="whole trace (F)">fit</button>
  <button data-part="keys" title="the keys, and what the pointer does (?)">?</button>
  <label title="only the threads causally connected to the double-clicked one (C)"><input type="checkbox" data-part="connected"> connected</label>
  <label title="how many arrows from the thread the causal chain goes (keys 1-3; 0: all)">chain <select data-part="depth"><option value="0">all</option><option value="1">direct</option><option value="2">2</option><option value="3">3</option></select></label>
  <details data-part="counters"><summary>counters</summary><div data-part="counterlist"></div></details>
  <button data-part="slowest" title="the slowest requests, and weft query's other standard views (computed here)">slowest</button>
  <details data-part="bookmarks" title="the bookmarks (B drops one at the pointer; ] and [ go to the next and previous)"><summary>bookmarks</summary><div data-part="marklist"></div></details>
  <div data-part="info"><span data-part="status"></span><span data-part="at"></span><span data-part="measure"></span><span data-part="range"></span></div>
  <input data-part="search" type="search" placeholder="search labels, kinds, notes, failures">
  <span data-part="matches"></span>
</div>
<div data-part="main">
  <canvas data-part="view"></canvas>
  <div data-part="progress"><div><div data-part="pbar"></div></div><span data-part="ptext"></span></div>
  <div data-part="stdview" hidden><div data-part="views"><button data-view="0">slowest</button> <button data-view="1">p99 by kind</button> <button data-view="2" title="the threads pending at the time of the last click on the picture">pending here</button></div><div data-part="stdrows"></div></div>
  <div data-part="summary" hidden></div>
  <div data-part="inspector"></div>
  <div data-part="help" hidden></div>
  <div data-part="tip" hidden></div>
</div>`;
  // The layout: a column of the bar and the picture's box; the bar wraps
  // to as many lines as the width needs for its controls, never for its
  // texts (#info: the status, the pointer's time, the measure and the
  // range share the room left, cut with an ellipsis), so that the
  // picture never moves as times grow longer; the box takes exactly the
  // height left (flex: 1 1 0 -- on the page, the window's: no scroll).
  const CSS = `
.weft { position: relative; display: flex; flex-direction: column; box-sizing: border-box; font: 13px sans-serif; color: #000; background: #e6e6e6; text-align: left; }
:where(.weft-embed) { height: 420px; border: 1px solid #ccc; }
.weft-embed:focus { outline: 2px solid #4a7cc9; outline-offset: 1px; }
.weft .weft-bar { flex: none; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 4px 8px; background: #f4f4f4; border-bottom: 1px solid #ccc; white-space: nowrap; }
.weft .weft-bar > * { flex: none; }
.weft .weft-bar .weft-info { flex: 1 1 0; min-width: 14em; display: flex; gap: 6px; overflow: hidden; }
.weft .weft-info > span { flex: 0 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
.weft .weft-info .weft-status { flex: 1 1 0; }
.weft .weft-bar .weft-matches { width: 7em; overflow: hidden; text-overflow: ellipsis; }
.weft .weft-main { position: relative; flex: 1 1 0; min-height: 0; display: flex; overflow: hidden; }
.weft .weft-view { flex: 1; height: 100%; min-width: 0; display: block; cursor: grab; touch-action: none; }
.weft-embed:not(:focus-within) .weft-view { touch-action: pan-x pan-y; }
.weft .weft-counters { position: relative; }
.weft .weft-counters summary { cursor: pointer; }
.weft .weft-counterlist { position: absolute; z-index: 2; background: #fafafa; border: 1px solid #ccc; padding: 4px 8px; white-space: nowrap; }
.weft .weft-counterlist label { display: block; }
.weft .weft-bookmarks { position: relative; }
.weft .weft-bookmarks summary { cursor: pointer; }
.weft .weft-marklist { position: absolute; z-index: 2; background: #fafafa; border: 1px solid #ccc; padding: 4px 8px; white-space: nowrap; }
.weft .weft-marklist div { cursor: pointer; }
.weft .weft-marklist div:hover { text-decoration: underline; }
.weft.weft-dark .weft-marklist { background: #1e1e1e; border-color: #444; }
.weft .weft-inspector { flex: none; width: 320px; box-sizing: border-box; margin: 0; padding: 8px; overflow: auto; background: #fafafa; border-left: 1px solid #ccc; }
.weft-embed .weft-inspector { width: 260px; }
.weft .weft-inspector .head { margin: 0 0 6px; white-space: pre-wrap; font: 13px sans-serif; }
.weft .weft-inspector ol { margin: 0; padding: 0; list-style: none; font-size: 12px; }
.weft .weft-inspector li { padding: 1px 2px; overflow-wrap: anywhere; }
.weft .weft-inspector .weft-time { white-space: nowrap; }
.weft .weft-inspector li.go { cursor: pointer; color: #124; }
.weft .weft-inspector li.go:hover { background: #dde8f4; text-decoration: underline; }
.weft .weft-summary { position: absolute; left: 8px; bottom: 8px; max-width: min(720px, calc(100% - 340px)); max-height: 45%; overflow: auto; box-sizing: border-box; padding: 4px 8px; background: #fafafae8; border: 1px solid #bbb; border-radius: 4px; font: 12px sans-serif; z-index: 2; }
.weft .weft-summary[hidden] { display: none; }
.weft .weft-summary div { padding: 1px 2px; overflow-wrap: anywhere; }
.weft .weft-summary div.head { font-weight: bold; }
.weft .weft-summary div.group { cursor: pointer; color: #124; }
.weft .weft-summary div.group:hover { background: #dde8f4; text-decoration: underline; }
.weft.weft-dark .weft-summary { background: #1e1e1ee8; border-color: #555; }
.weft.weft-dark .weft-summary div.group { color: #9cf; }
.weft .weft-tip { position: absolute; pointer-events: none; white-space: pre; padding: 4px 8px; background: #fffff0; border: 1px solid #aaa; border-radius: 3px; font: 12px sans-serif; z-index: 4; }
.weft .weft-tip[hidden] { display: none; }
.weft .weft-help { position: absolute; left: 50%; transform: translateX(-50%); top: 8px; max-width: calc(100% - 16px); max-height: calc(100% - 16px); box-sizing: border-box; overflow: auto; padding: 8px 12px; background: #f8f8f8; border: 1px solid #bbb; border-radius: 6px; box-shadow: 0 2px 8px #0003; z-index: 3; display: grid; grid-template-columns: max-content auto; column-gap: 1em; align-items: baseline; }
.weft .weft-help[hidden] { display: none; }
.weft .weft-help b { grid-column: 1 / -1; margin: 4px 0; }
.weft .weft-help kbd { font: 12px monospace; white-space: pre; }
.weft-embed .weft-help { font-size: 12px; padding: 4px 8px; line-height: 1.2; }
.weft.weft-dark { color: #ddd; background: #1a1a1a; }
.weft.weft-dark .weft-bar { background: #262626; border-color: #444; }
.weft.weft-dark .weft-inspector, .weft.weft-dark .weft-counterlist { background: #1e1e1e; border-color: #444; }
.weft.weft-dark .weft-inspector li.go { color: #9cf; }
.weft.weft-dark .weft-inspector li.go:hover { background: #234; }
.weft.weft-dark .weft-help, .weft.weft-dark .weft-tip, .weft.weft-dark .weft-progress { background: #262626; border-color: #555; color: #ddd; }
.weft.weft-dark button, .weft.weft-dark input, .weft.weft-dark select { color: #ddd; background: #333; border: 1px solid #555; }
.weft .weft-progress { position: absolute; left: 20%; right: 20%; top: 45%; padding: 8px 12px; background: #fafafa; border: 1px solid #bbb; border-radius: 4px; display: none; }
.weft .weft-progress > div { height: 10px; background: #ddd; margin-bottom: 6px; }
.weft .weft-stdview { flex: none; width: 330px; box-sizing: border-box; padding: 6px; overflow: auto; background: #fafafa; border-left: 1px solid #ccc; font-size: 12px; }
.weft .weft-stdview[hidden] { display: none; }
.weft .weft-stdview table { border-collapse: collapse; }
.weft .weft-views { margin-bottom: 6px; }
.weft .weft-stdview td, .weft .weft-stdview th { padding: 1px 4px; text-align: left; white-space: nowrap; }
.weft .weft-stdview td.num { text-align: right; font-variant-numeric: tabular-nums; }
.weft .weft-stdview tr.go { cursor: pointer; color: #124; }
.weft .weft-stdview tr.go:hover { background: #dde8f4; }
.weft .weft-pbar { width: 0; height: 100%; background: #4a7; }
`;
  function style() {
    if (document.querySelector('style[data-weft-viewer]')) return;
    const s = document.createElement('style');
    s.dataset.weftViewer = '';
    s.textContent = CSS;
    (document.head || document.documentElement).appendChild(s);
  }

  // Makes a viewer in `root` (emptied), and returns a promise of it once
  // its trace is drawn.  Options: trace (a registered name, or
  // {data, coding, size} of base64), name (shown), start, duration (ns
  // from the trace's start, or strings with units), counters (names
  // shown; null: all), page (the standalone page: ids, keys from the
  // whole window, the wheel always zooms, a dropped file anywhere).
  api.mount = function (root, opts) {
    opts = opts || {};
    const page = !!opts.page;
    style();
    root.textContent = '';
    root.innerHTML = TEMPLATE; // (static: nothing of the trace)
    const parts = {};
    root.querySelectorAll('[data-part]').forEach((el) => {
      const p = el.dataset.part;
      parts[p] = el;
      el.classList.add('weft-' + p);
      if (page) el.id = p;
      el.removeAttribute('data-part');
    });
    root.classList.add('weft', page ? 'weft-page' : 'weft-embed');
    if (!page && !root.hasAttribute('tabindex')) root.tabIndex = 0;
    root.dataset.weftMounted = '';
    return viewer(root, parts, opts);
  };

  // Mounts a viewer on every <div class="weft-viewer" data-trace="NAME">
  // (under `within`, default the document) not yet mounted; data-start,
  // data-duration (units as the ruler's) and data-counters (NAME,NAME)
  // override the trace's own.
  api.mountAll = function (within) {
    const all = (within || document).querySelectorAll('.weft-viewer[data-trace]:not([data-weft-mounted])');
    return Promise.all(Array.from(all).map((el) => {
      const d = el.dataset, o = { trace: d.trace };
      if (d.start !== undefined) o.start = d.start;
      if (d.duration !== undefined) o.duration = d.duration;
      if (d.counters !== undefined) o.counters = d.counters.split(',').map((x) => x.trim()).filter((x) => x);
      return api.mount(el, o);
    }));
  };

  async function viewer(root, parts, opts) {
  const page = !!opts.page;
  const $ = (part) => parts[part];
  const canvas = $('view');
  const ctx = canvas.getContext('2d');
  const scratch = document.createElement('canvas'); // for masks
  const sctx = scratch.getContext('2d');
  let inst = null;
  let loaded = false;
  let status = ''; // (what the status line says when it has nothing else)
  let queued = false;

  function mem() { return new Uint8Array(inst.exports.memory.buffer); }
  function str(p) {
    const m = mem();
    let n = p;
    while (m[n]) n++;
    return dec.decode(m.subarray(p, n));
  }
  function withStr(s, f) {
    const b = enc.encode(s + '\0');
    const p = inst.exports.w_alloc(b.length);
    mem().set(b, p);
    try { return f(p); } finally { inst.exports.w_free(p); }
  }

  // Shapes of one colour are gathered into one path and drawn together
  // when the colour, width or clip changes, at text and at flush.
  let pend = 0; // 0 nothing, 1 lines, 2 fills
  function flush() {
    if (pend === 1) ctx.stroke(); else if (pend === 2) ctx.fill();
    pend = 0;
  }
  function want(k) { if (pend !== k) { flush(); ctx.beginPath(); pend = k; } }
  const env = {
    c_color(r, g, b, a) {
      flush();
      const c = 'rgba(' + Math.round(r * 255) + ',' + Math.round(g * 255) + ',' +
        Math.round(b * 255) + ',' + a + ')';
      ctx.fillStyle = c;
      ctx.strokeStyle = c;
    },
    c_line_width(w) { flush(); ctx.lineWidth = w; },
    c_line(x0, y0, x1, y1) { want(1); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); },
    c_rect(x, y, w, h) { want(2); ctx.rect(x, y, w, h); },
    c_triangle(x0, y0, x1, y1, x2, y2) {
      want(2); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.lineTo(x2, y2); ctx.closePath();
    },
    c_text(x, y, size, p) { flush(); ctx.font = size + 'px sans-serif'; ctx.fillText(str(p), x, y); },
    c_text_width(size, p) { ctx.font = size + 'px sans-serif'; return ctx.measureText(str(p)).width; },
    c_clip(x, y, w, h) { flush(); ctx.save(); ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip(); },
    c_unclip() { flush(); ctx.restore(); },
    c_flush() { flush(); },
    c_image(x, y, w, h, p) {
      flush();
      if (scratch.width !== w || scratch.height !== h) { scratch.width = w; scratch.height = h; }
      const px = new Uint8ClampedArray(inst.exports.memory.buffer, p, w * h * 4);
      sctx.putImageData(new ImageData(px, w, h), 0, 0);
      ctx.drawImage(scratch, x, y);
    },
  };
  // The few WASI calls libc makes (stderr); nothing else reaches outside.
  const wasi = {
    fd_close() { return 0; },
    fd_seek() { return 0; },
    fd_write(fd, iovs, n, nwritten) {
      const dv = new DataView(inst.exports.memory.buffer);
      let total = 0;
      for (let i = 0; i < n; i++) total += dv.getUint32(iovs + 8 * i + 4, true);
      dv.setUint32(nwritten, total, true);
      return 0;
    },
  };

  function draw() {
    queued = false;
    if (!loaded) return;
    // Sharp on high-DPI screens: the canvas has the screen's pixels
    // (devicePixelRatio of them a CSS pixel), the picture is drawn in
    // CSS pixels through the scale.
    const w = canvas.clientWidth, h = canvas.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    const W = Math.round(w * dpr), H = Math.round(h * dpr);
    if (canvas.width !== W || canvas.height !== H) { canvas.width = W; canvas.height = H; }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    inst.exports.w_dark(dark ? 1 : 0);
    const prims = inst.exports.w_render(w, h);
    keepState();
    const r = str(inst.exports.w_range()).split(' ').map(Number);
    canvas.dataset.range = r.join(' ');
    // (two runs: the bad one's range, at the same offset from its start)
    const r2 = str(inst.exports.w_range2());
    if (r2) canvas.dataset.range2 = r2; else delete canvas.dataset.range2;
    root.dataset.range = canvas.dataset.range;
    canvas.dataset.prims = String(prims);
    canvas.dataset.rows = String(inst.exports.w_rows());
    canvas.dataset.focus = String(inst.exports.w_focus_row());
    canvas.dataset.headers = str(inst.exports.w_headers());
    $('range').textContent = str(inst.exports.w_range_text());
  }
  function redraw() { if (!queued) { queued = true; requestAnimationFrame(draw); } }

  // Shows how far loading got (0..1), or hides the bar (null).
  function progress(f, what) {
    const el = $('progress');
    if (f === null) { el.style.display = 'none'; delete canvas.dataset.loading; return; }
    el.style.display = 'block';
    $('pbar').style.width = (100 * Math.min(1, f)).toFixed(1) + '%';
    $('ptext').textContent = what;
    canvas.dataset.loading = f.toFixed(3);
  }
  const tick = () => new Promise((r) => setTimeout(r, 0));
  const STEP = 400000; // events read between two looks at the page

  // Opens the trace whose `n` bytes are at `p` in wasm memory (the
  // viewer keeps them): reads it in steps, showing progress, then lays
  // it out and draws it.
  async function open(p, n, name) {
    return await read(p, n, name) && shown(name, () => inst.exports.w_view(canvas.clientWidth, canvas.clientHeight));
  }
  // Reads a trace (second: the bad run of two, after the good one).
  async function read(p, n, name, second) {
    loaded = false;
    if ((second ? inst.exports.w_open2 : inst.exports.w_open)(p, n)) return fail(name);
    // (about 11 bytes an event: bench/run's bytes_per_event)
    const guess = Math.max(1, n / 11);
    let done = 0;
    for (;;) {
      progress(Math.min(0.99, done / guess), name + ': ' + done.toLocaleString('en') + ' events read');
      await tick();
      const k = inst.exports.w_step(STEP);
      if (k < 0) return fail(name);
      done += k;
      if (k < STEP) break;
    }
    progress(1, name + ': ' + done.toLocaleString('en') + ' events, laying out');
    await tick();
    return true;
  }
  // Lays out what was read (view(): 0 or an error code) and draws it.
  function shown(name, view) {
    if (view()) return fail(name);
    canvas.dataset.extent = str(inst.exports.w_extent());
    const e2 = str(inst.exports.w_extent2());
    if (e2) canvas.dataset.extent2 = e2; else delete canvas.dataset.extent2;
    progress(null);
    loaded = true;
    showMeasure(); // (none: a new view)
    // (two runs: the status says where they first went different ways)
    status = inst.exports.w_paired() ? str(inst.exports.w_divergence()) : name;
    if (inst.exports.w_paired()) canvas.dataset.divergence = status; else delete canvas.dataset.divergence;
    $('status').textContent = status;
    showThread(null);
    $('connected').checked = false;
    $('depth').value = '0';
    delete canvas.dataset.chain;
    counterList();
    markList();
    if (page) document.title = name + ' - weft';
    if (first) { first = false; initial(); if (page) fromHash(); }
    redraw();
    return true;
  }
  // The view in the page's address (page only): kept after '#' as it
  // changes (replaceState: no history entry a frame), applied at load
  // and when the address changes; V says it in the status line.  The
  // same state `weft view --view` and `weft render --view` take.
  let lastState = null;
  function keepState() {
    if (!page || !loaded || inst.exports.w_paired()) return;
    const st = str(inst.exports.w_state());
    canvas.dataset.state = st;
    if (st === lastState) return;
    lastState = st;
    try { history.replaceState(null, '', '#' + st); } catch (e) { /* (a sandboxed page) */ }
  }
  function setState(st) {
    const err = withStr(st, (p) => str(inst.exports.w_set_state(p)));
    if (err) { $('status').textContent = status + ' (' + err + ')'; return false; }
    // the bar and the inspector as the state has them
    const q = new URLSearchParams(st.replace(/^#/, ''));
    $('search').value = q.get('q') || '';
    const n = inst.exports.w_matches();
    $('matches').textContent = q.get('q') ? n + ' match' + (n === 1 ? '' : 'es') : '';
    $('connected').checked = q.get('only') === '1';
    $('depth').value = q.get('depth') || '0';
    const hidden = new Set((q.get('hide') || '').split(',').filter((x) => x));
    $('counterlist').querySelectorAll('input').forEach((c) => {
      c.checked = q.get('counters') !== '0' && !hidden.has(c.dataset.counter);
    });
    showThread(JSON.parse(str(inst.exports.w_describe_selected())));
    markList();
    showMeasure();
    redraw();
    return true;
  }
  function fromHash() {
    const h = (location.hash || '').replace(/^#/, '');
    if (h && h !== lastState) { lastState = h; setState(h); }
  }
  if (page) window.addEventListener('hashchange', fromHash);
  // Bookmarks: B drops one at the pointer (else the middle) with the
  // note asked for (cancel: none); the list under "bookmarks", a click
  // goes there; ] and [ step through them.  The renderer keeps them
  // (and the view's state, so the address).
  let markX = null;
  canvas.addEventListener('mousemove', (e) => { markX = e.offsetX; });
  canvas.addEventListener('mouseleave', () => { markX = null; });
  function bookmark() {
    if (!loaded) return;
    const x = markX === null ? canvas.clientWidth / 2 : markX;
    const note = window.prompt('a note for the bookmark (optional)', '');
    if (note === null) return;
    withStr(note, (p) => inst.exports.w_bookmark(x, p));
    markList();
    redraw();
  }
  function markList() {
    const el = $('marklist');
    el.textContent = '';
    const marks = JSON.parse(str(inst.exports.w_bookmarks()));
    $('bookmarks').style.display = marks.length ? '' : 'none';
    canvas.dataset.bookmarks = String(marks.length);
    marks.forEach(([t, note], i) => {
      const d = document.createElement('div');
      d.textContent = (i + 1) + '. ' + t + (note ? '  ' + note : '');
      d.onclick = () => { inst.exports.w_go_bookmark(i); redraw(); };
      el.appendChild(d);
    });
  }
  function sayState() {
    const st = page || !inst.exports.w_paired() ? str(inst.exports.w_state()) : '';
    $('status').textContent = 'view: ' + st;
    canvas.dataset.state = st;
  }
  function fail(name) {
    progress(null);
    loaded = false;
    $('status').textContent = name + ': ' + str(inst.exports.w_error());
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    return false;
  }
  // Two runs: the good one's and the bad one's base64 text, read one
  // after the other, shown together.
  async function openPair(t, t2, name, name2) {
    const a = await decode(t.data, t.coding, t.size, name);
    if (!a || !await read(a[0], a[1], name)) return false;
    const b = await decode(t2.data, t2.coding, t2.size, name2);
    if (!b || !await read(b[0], b[1], name2, true)) return false;
    return shown(name + ' and ' + name2, () => withStr(name, (p0) => withStr(name2, (p1) =>
      inst.exports.w_view_pair(canvas.clientWidth, canvas.clientHeight, p0, p1))));
  }
  // A trace as bytes (a dropped file).
  function load(u8, name) {
    const p = inst.exports.w_alloc(u8.length || 1);
    mem().set(u8, p);
    return open(p, u8.length, name);
  }
  // The trace the page carries, as base64 text: into wasm memory as it
  // is (ASCII), decoded there in place; deflated (weft html with zlib),
  // inflated by the browser into wasm memory as it comes.
  async function loadText(text, coding, size, name) {
    const d = await decode(text, coding, size, name);
    return d ? open(d[0], d[1], name) : false;
  }
  // The bytes of base64 text in wasm memory: [at, length], or null (said).
  async function decode(text, coding, size, name) {
    let p = inst.exports.w_alloc(text.length || 1);
    const r = enc.encodeInto(text, mem().subarray(p, p + text.length));
    let n = inst.exports.w_unbase64(p, r.written);
    if (n < 0) { $('status').textContent = name + ': the page is damaged'; return null; }
    if (coding === 'deflate') {
      const packed = mem().slice(p, p + n);
      inst.exports.w_free(p);
      p = inst.exports.w_alloc(size || 1);
      let at = 0;
      try {
        const rd = new Blob([packed]).stream()
          .pipeThrough(new DecompressionStream('deflate')).getReader();
        for (;;) {
          const { done, value } = await rd.read();
          if (done) break;
          if (at + value.length > size) throw new Error('longer than announced');
          mem().set(value, p + at); // (memory may have grown: a fresh view)
          at += value.length;
          progress(0, name + ': unpacking, ' + Math.round(at / 1e6) + ' of ' + Math.round(size / 1e6) + ' MB');
        }
      } catch (e) {
        progress(null);
        $('status').textContent = name + ': cannot unpack the trace (' + e.message + ')';
        return null;
      }
      n = at;
    }
    return [p, n];
  }

  // The initial range and counters asked for (weft html --start,
  // --duration, --counters; a container's data-start...), once.
  let first = true;
  function initial() {
    const t = (v) => v === undefined || v === null || v === '' ? -1 : typeof v === 'number' ? v : api.parseTime(v);
    const start = t(opts.start), duration = t(opts.duration);
    if (start === null || duration === null) {
      $('status').textContent += ' (bad start or duration: ' + opts.start + ', ' + opts.duration + ')';
    } else if (start >= 0 || duration > 0) {
      inst.exports.w_set_range(start, duration);
    }
    if (opts.counters) {
      const want = new Set(opts.counters);
      $('counterlist').querySelectorAll('input').forEach((c) => {
        const name = c.parentNode.textContent.slice(1);
        // (a name shows every process's counter of it: "ticks (pid 42)")
        c.checked = want.has(name) || want.has(name.replace(/ \(pid \d+\)$/, ''));
        inst.exports.w_counter(Number(c.dataset.counter), c.checked ? 1 : 0);
      });
    }
  }

  // One check box per counter (all on), built from the trace's names.
  function counterList() {
    const el = $('counterlist');
    el.textContent = '';
    const names = JSON.parse(str(inst.exports.w_counter_names()));
    $('counters').style.display = names.length ? '' : 'none';
    names.forEach((name, k) => {
      const l = document.createElement('label');
      const c = document.createElement('input');
      c.type = 'checkbox';
      c.checked = true;
      c.dataset.counter = String(k);
      c.onchange = () => { inst.exports.w_counter(k, c.checked ? 1 : 0); redraw(); };
      l.appendChild(c);
      l.appendChild(document.createTextNode(' ' + name));
      el.appendChild(l);
    });
  }

  // The inspector: the thread's head (what it is, when, how long it ran
  // and waited), then every entry -- arrows, waits, labels, notes -- one
  // a row; a row that names another thread goes there when clicked.  A
  // loop's hundred thousand entries come a page at a time, as the list
  // is scrolled to its end.  (Labels are the program's: text only.)
  const PAGE = 500;
  let more = null; // {list, done, count} of the thread shown
  // A text into el, each time in it ("0.000 064 150 s", "30.9 us") kept
  // on one line: a narrow panel wraps between words, never inside a
  // number's groups.  (Text nodes only: labels are the program's.)
  const TIME = /-?\d+(?:\.\d{1,3}(?: \d{1,3})*)? (?:ns|us|ms|s)\b/g;
  function putTimes(el, text) {
    let at = 0;
    for (const m of text.matchAll(TIME)) {
      if (m.index > at) el.appendChild(document.createTextNode(text.slice(at, m.index)));
      const t = document.createElement('span');
      t.className = 'weft-time';
      t.textContent = m[0];
      el.appendChild(t);
      at = m.index + m[0].length;
    }
    if (at < text.length) el.appendChild(document.createTextNode(text.slice(at)));
  }
  function addEntries(list, entries) {
    for (const e of entries) {
      const li = document.createElement('li');
      putTimes(li, e.text);
      if (e.other >= 0) {
        li.className = 'go';
        li.dataset.thread = String(e.other);
        li.title = 'go to this thread';
      }
      list.appendChild(li);
    }
  }
  function showThread(j) {
    const el = $('inspector');
    el.textContent = '';
    more = null;
    if (!j) { el.textContent = 'click a thread to inspect it'; delete el.dataset.entries; return; }
    const head = document.createElement('pre');
    head.className = 'head';
    putTimes(head, j.head);
    el.appendChild(head);
    const list = document.createElement('ol');
    addEntries(list, j.entries);
    el.appendChild(list);
    el.dataset.entries = String(j.count);
    el.dataset.thread = String(j.thread);
    // (two runs: the thread's run, 0 good 1 bad, and its partner, -1 none)
    if (j.side !== undefined) { el.dataset.side = String(j.side); el.dataset.partner = String(j.partner); }
    el.scrollTop = 0;
    more = { list, done: j.entries.length, count: j.count };
    moreEntries();
  }
  // The next page of entries, when the end of the list is in sight.
  function moreEntries() {
    const el = $('inspector');
    while (more && more.done < more.count && el.scrollTop + el.clientHeight > el.scrollHeight - 400) {
      const page = JSON.parse(str(inst.exports.w_entries(more.done, PAGE)));
      if (!page.length) break;
      addEntries(more.list, page);
      more.done += page.length;
    }
  }
  $('inspector').addEventListener('scroll', moreEntries);
  $('inspector').addEventListener('click', (e) => {
    const li = e.target.closest('li.go');
    if (!li || !loaded) return;
    showThread(JSON.parse(str(inst.exports.w_go(Number(li.dataset.thread)))));
    redraw();
  });

  function inspect(x, y, dbl) {
    const fn = dbl ? inst.exports.w_dblclick : inst.exports.w_click;
    const j = JSON.parse(str(fn(x, y)));
    const el = $('inspector');
    if (j && j.process !== undefined) { // a process's header: toggled
      showThread(null);
      el.textContent = j.process + ' (pid ' + j.pid + '): ' + (j.collapsed ? 'collapsed' : 'expanded');
      redraw();
      return;
    }
    if (dbl) {
      if (j && j.chain) canvas.dataset.chain = String(j.chain); else delete canvas.dataset.chain;
      if ($('connected').checked) inst.exports.w_only_chain(1);
    }
    showThread(j);
  }

  // The chain's depth: 0 all, 1 direct, 2, 3 (the menu and keys 0-3).
  function depth(d) {
    $('depth').value = String(d);
    const n = inst.exports.w_depth(d);
    if (canvas.dataset.chain) canvas.dataset.chain = String(n);
    redraw();
  }

  let drag = null, moved = false;
  // The wheel and the trackpad: the zoom follows the size of the scroll
  // (a mouse's notch, 100 px, zooms by 1.25; a trackpad's flick of twenty
  // 2 px deltas by 1.09), horizontal scrolling (or shift+wheel) pans,
  // ctrl+wheel -- what a trackpad's pinch sends -- zooms faster.  Every
  // notch counts: a fast wheel on a heavy trace, whose frames lag, gets
  // its notches coalesced by the browser into fewer events with larger
  // deltas (40 notches as one delta of 4000 px), and zooms as far as 40
  // events would (as GTK does); the view's own limits bound the zoom.
  const WHEEL_NOTCH = 100, LINE_PX = 40;
  // Embedded, the wheel is the page's (it scrolls past) unless the
  // viewer has the focus or ctrl is held (a pinch).
  const focused = () => page || root.contains(document.activeElement);
  canvas.addEventListener('wheel', (e) => {
    if (!focused() && !e.ctrlKey) return;
    e.preventDefault();
    const unit = e.deltaMode === 1 ? LINE_PX : e.deltaMode === 2 ? canvas.clientHeight : 1;
    let dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.shiftKey && !dx) { dx = dy; dy = 0; }
    if (Math.abs(dx) > Math.abs(dy)) {
      inst.exports.w_pan(-dx, 0);
    } else if (dy) {
      inst.exports.w_zoom(Math.pow(1.25, -dy / WHEEL_NOTCH * (e.ctrlKey ? 4 : 1)), e.offsetX);
    }
    redraw();
  }, { passive: false });
  // Touch: one finger drags (pans), two pinch (zoom around their middle).
  let touch = null; // {x, y} of one finger, or {d, x} of two
  const tpos = (t) => { const b = canvas.getBoundingClientRect(); return [t.clientX - b.left, t.clientY - b.top]; };
  function touchState(e) {
    const ts = e.touches;
    if (ts.length === 1) { const [x, y] = tpos(ts[0]); return { x, y }; }
    if (ts.length >= 2) {
      const [x0, y0] = tpos(ts[0]), [x1, y1] = tpos(ts[1]);
      return { d: Math.hypot(x1 - x0, y1 - y0), x: (x0 + x1) / 2 };
    }
    return null;
  }
  // (embedded and not focused, a finger scrolls the page: a tap focuses)
  canvas.addEventListener('touchstart', (e) => {
    if (!focused()) { touch = null; return; }
    e.preventDefault();
    touch = touchState(e);
  }, { passive: false });
  canvas.addEventListener('touchmove', (e) => {
    if (!focused()) return;
    e.preventDefault();
    const now = touchState(e);
    if (!loaded || !now || !touch) { touch = now; return; }
    if (now.d !== undefined && touch.d !== undefined && touch.d > 0) {
      inst.exports.w_zoom(now.d / touch.d, now.x);
    } else if (now.d === undefined && touch.d === undefined) {
      inst.exports.w_pan(now.x - touch.x, now.y - touch.y);
    }
    touch = now;
    redraw();
  }, { passive: false });
  canvas.addEventListener('touchend', (e) => { touch = touchState(e); });
  canvas.addEventListener('touchcancel', () => { touch = null; });
  // A press on the ruler, or with shift anywhere, measures: the drag
  // marks a range (never pans, never selects).
  let measuring = false;
  canvas.addEventListener('mousedown', (e) => {
    drag = [e.offsetX, e.offsetY];
    moved = false;
    // (two runs: the press's half is the one it acts in until released)
    const ruler = loaded && inst.exports.w_press(e.offsetY);
    if (loaded && (e.shiftKey || ruler)) {
      measuring = true;
      moved = true;
      inst.exports.w_measure_from(e.offsetX);
      showMeasure();
      redraw();
    }
  });
  window.addEventListener('mouseup', () => {
    drag = null;
    if (measuring) { measuring = false; showMeasure(); }
    if (inst) inst.exports.w_release();
  });
  // The measured range in the page: "t0 t1" (ns) and its duration, as
  // the ruler writes it.
  function showMeasure() {
    const m = str(inst.exports.w_measure());
    const [a, b, ...d] = m ? m.split(' ') : [];
    if (m) canvas.dataset.measure = a + ' ' + b; else delete canvas.dataset.measure;
    $('measure').textContent = m ? 'measured ' + d.join(' ') : '';
    if (!measuring) showSummary();
  }
  // The measured range's summary (view.h, weft_view_summary_lines: the
  // numbers of `weft stats --from --to`), once the drag ends: its lines,
  // each group's a click away from highlighting its threads (n and N go
  // through them).  Each line keeps its numbers in data- attributes (the
  // tests compare them with the CLI's), the panel the whole JSON.
  function showSummary() {
    const el = $('summary');
    const j = loaded ? str(inst.exports.w_summary()) : '';
    el.textContent = '';
    el.hidden = !j;
    if (!j) { delete el.dataset.summary; return; }
    const { lines, summary } = JSON.parse(j);
    el.dataset.summary = JSON.stringify(summary);
    // (lines: the head, the kinds, the labels shown, the processes, the arrows)
    const ng = summary.groups.length;
    const nl = lines.length - 2 - ng - summary.processes.length;
    lines.forEach((text, i) => {
      const d = document.createElement('div');
      d.textContent = text;
      d.dataset.line = String(i);
      if (i === 0) d.className = 'head';
      if (i >= 1 && i <= ng + nl) {
        const g = i <= ng ? summary.groups[i - 1] : summary.labels[i - 1 - ng];
        d.className = i <= ng ? 'group' : 'group label';
        d.title = 'highlight these ' + g.threads + ' threads (n, N go through them)';
        for (const k of ['kind', 'label', 'threads', 'began', 'ended', 'failed', 'total_ns', 'p50_ns', 'p99_ns', 'running_ns', 'waiting_ns'])
          d.dataset[k.replace(/_ns$/, 'Ns')] = String(g[k]);
        d.onclick = () => {
          const n = inst.exports.w_summary_pick(i);
          $('matches').textContent = n + ' highlighted';
          el.dataset.picked = String(n);
          redraw();
        };
      }
      el.appendChild(d);
    });
  }
  // The pointer at (x, y) (x < 0: away): the ruler marks its time, which
  // the page shows too, and the counters write their values at it.
  function pointer(x, y) {
    if (!loaded) return;
    const changed = inst.exports.w_pointer(x, y);
    const t = str(inst.exports.w_pointer_str());
    $('at').textContent = t ? 'at ' + t : '';
    if (changed) redraw();
  }
  // Hovering a thread: its tooltip near the pointer.
  function tip(e) {
    const el = $('tip');
    const t = loaded && !drag ? str(inst.exports.w_tooltip(e.offsetX, e.offsetY)) : '';
    el.hidden = !t;
    if (!t) return;
    el.textContent = t;
    // (below and right of the pointer, or above and left of it where
    // the picture's box would cut it: the box clips, the page never
    // scrolls for it)
    const box = $('main');
    let x = canvas.offsetLeft + e.offsetX + 14, y = canvas.offsetTop + e.offsetY + 14;
    if (x + el.offsetWidth > box.clientWidth) x = Math.max(0, x - 28 - el.offsetWidth);
    if (y + el.offsetHeight > box.clientHeight) y = Math.max(0, y - 28 - el.offsetHeight);
    el.style.left = x + 'px';
    el.style.top = y + 'px';
  }
  canvas.addEventListener('mouseleave', () => { $('tip').hidden = true; pointer(-1, -1); });
  canvas.addEventListener('mousemove', (e) => {
    tip(e);
    pointer(e.offsetX, e.offsetY);
    if (measuring) {
      inst.exports.w_measure_to(e.offsetX);
      showMeasure();
      redraw();
      return;
    }
    if (!drag) return;
    const dx = e.offsetX - drag[0], dy = e.offsetY - drag[1];
    if (Math.abs(dx) + Math.abs(dy) > 2) moved = true;
    if (!moved) return;
    inst.exports.w_pan(dx, dy);
    drag = [e.offsetX, e.offsetY];
    redraw();
  });
  canvas.addEventListener('click', (e) => { if (!moved) { inspect(e.offsetX, e.offsetY); redraw(); } });
  canvas.addEventListener('dblclick', (e) => {
    if (e.shiftKey || inst.exports.w_on_ruler(e.offsetY)) return; // (measuring)
    inspect(e.offsetX, e.offsetY, true);
    redraw();
  });
  // The keys: src/render/keys.c's table, in the wasm (w_key: a key's
  // action and argument; w_keys_help: the help's lines).  Here only what
  // each action does on this page.
  const mid = () => canvas.clientWidth / 2;
  const ZOOM_STEP = 1.25, PAN_PARTS = 5; // (keys.h's WEFT_KEY_ZOOM_STEP, _PAN_PARTS)
  const ACTIONS = {
    zoom: (arg) => inst.exports.w_zoom(arg > 0 ? ZOOM_STEP : 1 / ZOOM_STEP, mid()),
    pan: (arg) => inst.exports.w_pan(-arg * (canvas.clientWidth / PAN_PARTS), 0),
    fit: () => inst.exports.w_fit(),
    focus: (arg) => inst.exports.w_focus(arg),
    connected: () => { $('connected').click(); return true; },
    depth: (arg) => { depth(arg); return true; },
    match: (arg) => { goMatch(arg); return true; },
    'zoom-measure': () => inst.exports.w_zoom_measure(),
    path: () => { pathKey(); return true; },
    align: () => { alignKey(); return true; },
    clear: () => { clearAll(); return true; },
    help: () => { help(); return true; },
    theme: () => { theme(!dark); return true; },
    bookmark: () => { bookmark(); return true; },
    mark: (arg) => { inst.exports.w_next_bookmark(arg); redraw(); return true; },
    state: () => { sayState(); return true; },
  };


  // The theme: dark or light, first the browser's preference
  // (prefers-color-scheme), followed when it changes; T switches.  The
  // picture's colours are the renderer's (w_dark); the page's parts
  // follow the class weft-dark; data-theme on the canvas says which.
  const darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  let dark = !!(darkQuery && darkQuery.matches);
  function theme(on) {
    dark = !!on;
    root.classList.toggle('weft-dark', dark);
    canvas.dataset.theme = dark ? 'dark' : 'light';
    redraw();
  }
  if (darkQuery && darkQuery.addEventListener) darkQuery.addEventListener('change', (e) => theme(e.matches));
  theme(dark);

  // The help: built from the key table (w_keys_help), shown or hidden (on: true/false, or toggle).
  function help(on) {
    const el = $('help');
    if (!el.firstChild) {
      // (a grid of two columns: every name in the first, every
      // description starting in one column)
      const add = (a, b) => {
        const k = document.createElement('kbd');
        k.textContent = a;
        const d = document.createElement('span');
        d.textContent = b;
        el.appendChild(k);
        el.appendChild(d);
      };
      const head = (t) => { const h = document.createElement('b'); h.textContent = t; el.appendChild(h); };
      const h = JSON.parse(str(inst.exports.w_keys_help()));
      head('keys');
      h.keys.forEach(([a, b]) => add(a, b));
      head('pointer');
      h.pointer.forEach(([a, b]) => add(a, b));
    }
    el.hidden = on === undefined ? !el.hidden : !on;
  }

  // P: the selected thread's critical path drawn (or off again), its
  // split in the status line and the inspector; data-path: its size.
  function pathKey() {
    const j = JSON.parse(str(inst.exports.w_path()));
    if (j) showThread(j);
    if (j && j.path) canvas.dataset.path = String(j.path_threads); else delete canvas.dataset.path;
    $('status').textContent = j && j.path ? j.path
      : j ? status : 'select a thread for its critical path';
    redraw();
  }

  // Two runs: lined up at the selected thread and its partner.
  function alignKey() {
    const said = str(inst.exports.w_align());
    if (said) $('status').textContent = said;
    redraw();
  }

  // The next (1) or previous (-1) match: selected, zoomed to, inspected.
  function goMatch(dir) {
    const j = JSON.parse(str(inst.exports.w_next_match(dir)));
    if (j) showThread(j);
    redraw();
  }

  // The standard views (issue 34; docs/viewer.md): a fixed few of weft
  // query's, computed in the wasm (w_std_view: a page has no SQLite),
  // listed in a panel beside the picture; their threads highlighted as
  // search matches (n, N go through them); a row that names a thread
  // goes there when clicked.  "slowest" is one click away.
  function showStdView(which) {
    const j = JSON.parse(str(inst.exports.w_std_view(which)));
    const el = $('stdview'), rows = $('stdrows');
    rows.textContent = '';
    if (!j) { hideStdView(); return; }
    const head = document.createElement('div');
    head.className = 'head';
    const b = document.createElement('b');
    b.textContent = j.title;
    head.appendChild(b);
    let said = ' (' + j.count + (j.count > j.rows.length ? ', the first ' + j.rows.length + ' listed' : '') + ')';
    // (the time as the pointer's: from the trace's start)
    if (j.at !== undefined) said += ' at ' + str(inst.exports.w_time_at(j.at));
    head.appendChild(document.createTextNode(said));
    rows.appendChild(head);
    const table = document.createElement('table');
    const tr = document.createElement('tr');
    for (const c of j.columns) {
      const th = document.createElement('th');
      th.textContent = c.replace(/_ns$/, '');
      tr.appendChild(th);
    }
    table.appendChild(tr);
    // Times as everywhere in the viewer (weft_time_fmt), one unit a
    // column -- its largest time's (1 to 999 of it) -- to a thousandth of
    // it, every cell with its three decimals (the formatter leaves out
    // whole groups of zeros: put back) so that the numbers line up;
    // the exact time on hover.
    const units = j.columns.map((c, i) => {
      if (!/_ns$/.test(c)) return 0;
      const big = Math.max(0, ...j.rows.map((r) => Math.abs(r.cells[i] || 0)));
      return big < 1e3 ? 1 : big < 1e6 ? 1e3 : big < 1e9 ? 1e6 : 1e9;
    });
    const timeIn = (v, unit) => {
      const t = str(inst.exports.w_time_fmt(v, Math.max(1, unit / 1000), unit));
      return unit > 1 && !t.includes('.') ? t.replace(' ', '.000 ') : t;
    };
    for (const r of j.rows) {
      const row = document.createElement('tr');
      r.cells.forEach((v, i) => {
        const td = document.createElement('td');
        const ns = /_ns$/.test(j.columns[i]);
        if (typeof v === 'number' || v === null) td.className = 'num';
        td.textContent = v === null ? '-' : ns ? timeIn(v, units[i]) : String(v);
        if (ns && v !== null) {
          td.dataset.ns = String(v);
          td.title = str(inst.exports.w_time_fmt(v, 1, 0));
        }
        row.appendChild(td);
      });
      if (r.thread >= 0) {
        row.className = 'go';
        row.dataset.thread = String(r.thread);
        row.title = 'go to this thread';
      }
      table.appendChild(row);
    }
    rows.appendChild(table);
    el.dataset.view = j.view;
    el.dataset.count = String(j.count);
    if (j.at !== undefined) el.dataset.at = String(j.at); else delete el.dataset.at;
    el.hidden = false;
    canvas.dataset.marked = String(j.marked);
    const s = $('search');
    s.value = '';
    $('matches').textContent = j.marked ? j.marked + ' match' + (j.marked === 1 ? '' : 'es') : '';
    redraw();
  }
  function hideStdView() {
    const el = $('stdview');
    if (el.hidden) return;
    el.hidden = true;
    $('stdrows').textContent = '';
    delete el.dataset.view;
    delete canvas.dataset.marked;
    withStr('', (p) => inst.exports.w_search(p));
    $('matches').textContent = '';
  }
  $('slowest').onclick = () => { if (loaded) showStdView(0); };
  $('views').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-view]');
    if (b && loaded) showStdView(Number(b.dataset.view));
  });
  $('stdview').addEventListener('click', (e) => {
    const tr = e.target.closest('tr.go');
    if (!tr || !loaded) return;
    showThread(JSON.parse(str(inst.exports.w_go(Number(tr.dataset.thread)))));
    redraw();
  });

  function clearAll() {
    help(false);
    hideStdView();
    inst.exports.w_clear();
    if (canvas.dataset.path) { delete canvas.dataset.path; $('status').textContent = status; }
    showMeasure();
    delete canvas.dataset.chain;
    if ($('connected').checked) inst.exports.w_only_chain(1);
    showThread(null);
    const s = $('search');
    if (s.value) {
      s.value = '';
      withStr('', (p) => inst.exports.w_search(p));
      $('matches').textContent = '';
    }
    // (the keys go on working: the standalone page's from anywhere, an
    // embedded viewer's from its container)
    s.blur();
    if (!page) root.focus();
    redraw();
  }

  // Keys: on the standalone page anywhere on it (no click on the picture
  // needed); embedded, only in the viewer that has the focus (its
  // container takes it: tabindex) -- but the search box takes text:
  // there, only Esc.
  (page ? window : root).addEventListener('keydown', (e) => {
    if (!loaded || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.toLowerCase();
    if (e.target === $('search')) {
      // the search box takes text: Enter goes to a match, Esc clears
      if (k === 'enter') { e.preventDefault(); goMatch(e.shiftKey ? -1 : 1); }
      if (k !== 'escape') return;
    }
    const key = JSON.parse(withStr(e.key, (p) => str(inst.exports.w_key(p))));
    const run = key && ACTIONS[key.do];
    if (!run) return;
    e.preventDefault();
    if (!run(key.arg)) redraw();
  });
  $('zoomin').onclick = () => { inst.exports.w_zoom(1.25, canvas.clientWidth / 2); redraw(); };
  $('zoomout').onclick = () => { inst.exports.w_zoom(0.8, canvas.clientWidth / 2); redraw(); };
  $('fit').onclick = () => { inst.exports.w_fit(); redraw(); };
  $('keys').onclick = () => help();
  $('connected').onchange = (e) => { inst.exports.w_only_chain(e.target.checked ? 1 : 0); redraw(); };
  $('depth').onchange = (e) => depth(Number(e.target.value));
  $('search').addEventListener('input', (e) => {
    const n = withStr(e.target.value, (p) => inst.exports.w_search(p));
    $('matches').textContent = e.target.value ? n + ' match' + (n === 1 ? '' : 'es') : '';
    redraw();
  });
  new ResizeObserver(redraw).observe(canvas);
  // (the bar's texts are cut to its room, never wrapping it: whole on hover)
  $('info').addEventListener('mouseover', (e) => { if (e.target !== $('info')) e.target.title = e.target.textContent; });
  // Another trace dropped on the page (embedded: on the viewer) replaces
  // this one.
  const dropOn = page ? document : root;
  dropOn.addEventListener('dragover', (e) => e.preventDefault());
  dropOn.addEventListener('drop', (e) => {
    e.preventDefault();
    const f = e.dataTransfer.files[0];
    if (!f) return;
    const r = new FileReader();
    r.onload = () => load(new Uint8Array(r.result), f.name);
    r.readAsArrayBuffer(f);
  });

  let t = opts.trace;
  let name = opts.name || (typeof t === 'string' ? t : 'trace');
  progress(0, name + ': starting');
  if (typeof t === 'string') {
    t = await traceNamed(t);
    name = opts.name || t.file || t.name;
    const o = opts;
    opts = { start: t.start, duration: t.duration, counters: t.counters };
    for (const k of ['start', 'duration', 'counters']) if (o[k] !== undefined) opts[k] = o[k];
  }
  const res = await WebAssembly.instantiate(await module, { env, wasi_snapshot_preview1: wasi });
  inst = res;
  inst.exports._initialize();
  if (opts.trace2) await openPair(t, opts.trace2, name, opts.name2 || 'trace');
  else await loadText(t.data, t.coding, t.size, name);
  return {
    root,
    range: () => str(inst.exports.w_range()).split(' ').map(Number),
    zoom: (f) => { inst.exports.w_zoom(f, canvas.clientWidth / 2); redraw(); },
    fit: () => { inst.exports.w_fit(); redraw(); },
  };
  }

  // The standalone page (weft html T -o x.html) carries the wasm and the
  // trace as text the page never runs: one viewer on its body.
  const text = (id) => {
    const el = document.getElementById(id), t = el.textContent;
    el.remove(); // (its text, a copy of the trace, goes)
    return t;
  };
  const own = document.getElementById('weft-wasm');
  if (own) {
    const coding = own.dataset.coding;
    api.wasm(coding, text('weft-wasm'));
    const tr = document.getElementById('weft-trace'), d = tr.dataset;
    const o = {
      page: true, name: dec.decode(bytes(text('weft-name'))),
      trace: { coding: d.coding, size: Number(d.size), data: text('weft-trace') },
    };
    const tr2 = document.getElementById('weft-trace2');
    if (tr2) { // two runs to compare
      const d2 = tr2.dataset;
      o.name2 = dec.decode(bytes(text('weft-name2')));
      o.trace2 = { coding: d2.coding, size: Number(d2.size), data: text('weft-trace2') };
    }
    if (d.start) o.start = Number(d.start);
    if (d.duration) o.duration = Number(d.duration);
    if (d.counters !== undefined) o.counters = text64(d.counters).split('\n').filter((x) => x);
    api.mount(document.body, o);
  } else if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', () => api.mountAll());
  } else {
    setTimeout(() => api.mountAll(), 0); // (after the rest of this script: the wasm)
  }
})();
