// SPDX-License-Identifier: MIT
// viewer.js - the HTML viewer's JavaScript: loads weft.wasm (the reader,
// model, layout and renderer in C), forwards its canvas calls to an HTML
// canvas and the user's input to it.  Everything the trace says reaches
// the page as text (textContent), never as HTML.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const canvas = $('view');
  const ctx = canvas.getContext('2d');
  const dec = new TextDecoder();
  const enc = new TextEncoder();
  const scratch = document.createElement('canvas'); // for masks
  const sctx = scratch.getContext('2d');
  let inst = null;
  let loaded = false;
  let queued = false;

  function bytes(b64) {
    const bin = atob(b64);
    const u = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    return u;
  }
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
    const prims = inst.exports.w_render(w, h);
    const r = str(inst.exports.w_range()).split(' ').map(Number);
    canvas.dataset.range = r.join(' ');
    canvas.dataset.prims = String(prims);
    canvas.dataset.rows = String(inst.exports.w_rows());
    canvas.dataset.headers = str(inst.exports.w_headers());
    $('range').textContent = str(inst.exports.w_range_text());
  }
  function redraw() { if (!queued) { queued = true; requestAnimationFrame(draw); } }

  // Shows how far loading got (0..1), or hides the bar (null).
  function progress(f, what) {
    const el = $('progress');
    if (f === null) { el.style.display = 'none'; delete canvas.dataset.loading; return; }
    el.style.display = 'block';
    $('bar').style.width = (100 * Math.min(1, f)).toFixed(1) + '%';
    $('ptext').textContent = what;
    canvas.dataset.loading = f.toFixed(3);
  }
  const tick = () => new Promise((r) => setTimeout(r, 0));
  const STEP = 400000; // events read between two looks at the page

  // Opens the trace whose `n` bytes are at `p` in wasm memory (the
  // viewer keeps them): reads it in steps, showing progress, then lays
  // it out and draws it.
  async function open(p, n, name) {
    loaded = false;
    if (inst.exports.w_open(p, n)) return fail(name);
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
    if (inst.exports.w_view(canvas.clientWidth, canvas.clientHeight)) return fail(name);
    progress(null);
    loaded = true;
    showMeasure(); // (none: a new view)
    $('status').textContent = name;
    showThread(null);
    $('connected').checked = false;
    $('depth').value = '0';
    delete canvas.dataset.chain;
    counterList();
    document.title = name + ' - weft';
    redraw();
    return true;
  }
  function fail(name) {
    progress(null);
    loaded = false;
    $('status').textContent = name + ': ' + str(inst.exports.w_error());
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    return false;
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
  async function loadPage(el, name) {
    const coding = el.dataset.coding, size = Number(el.dataset.size);
    const text = el.textContent;
    el.remove(); // (its text, a copy of the trace, goes)
    let p = inst.exports.w_alloc(text.length || 1);
    const r = enc.encodeInto(text, mem().subarray(p, p + text.length));
    let n = inst.exports.w_unbase64(p, r.written);
    if (n < 0) { $('status').textContent = name + ': the page is damaged'; return false; }
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
        return false;
      }
      n = at;
    }
    return open(p, n, name);
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
  function addEntries(list, entries) {
    for (const e of entries) {
      const li = document.createElement('li');
      li.textContent = e.text;
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
    head.textContent = j.head;
    el.appendChild(head);
    const list = document.createElement('ol');
    addEntries(list, j.entries);
    el.appendChild(list);
    el.dataset.entries = String(j.count);
    el.dataset.thread = String(j.thread);
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
  // ctrl+wheel -- what a trackpad's pinch sends -- zooms faster.
  const WHEEL_NOTCH = 100, WHEEL_MAX = 500, LINE_PX = 40;
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? LINE_PX : e.deltaMode === 2 ? canvas.clientHeight : 1;
    let dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.shiftKey && !dx) { dx = dy; dy = 0; }
    if (Math.abs(dx) > Math.abs(dy)) {
      inst.exports.w_pan(-dx, 0);
    } else if (dy) {
      dy = Math.max(-WHEEL_MAX, Math.min(WHEEL_MAX, dy));
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
  canvas.addEventListener('touchstart', (e) => { e.preventDefault(); touch = touchState(e); }, { passive: false });
  canvas.addEventListener('touchmove', (e) => {
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
    if (loaded && (e.shiftKey || e.offsetY < inst.exports.w_ruler_h())) {
      measuring = true;
      moved = true;
      inst.exports.w_measure_from(e.offsetX);
      showMeasure();
      redraw();
    }
  });
  window.addEventListener('mouseup', () => { drag = null; measuring = false; });
  // The measured range in the page: "t0 t1" (ns) and its duration, as
  // the ruler writes it.
  function showMeasure() {
    const m = str(inst.exports.w_measure());
    const [a, b, d] = m ? m.split(' ') : [];
    if (m) canvas.dataset.measure = a + ' ' + b; else delete canvas.dataset.measure;
    $('measure').textContent = m ? 'measured ' + d : '';
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
    el.style.left = (canvas.offsetLeft + e.offsetX + 14) + 'px';
    el.style.top = (canvas.offsetTop + e.offsetY + 14) + 'px';
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
    if (e.shiftKey || e.offsetY < inst.exports.w_ruler_h()) return; // (measuring)
    inspect(e.offsetX, e.offsetY, true);
    redraw();
  });
  // The keys: one table, read by the dispatch and by the help (?).
  // `keys` are KeyboardEvent.key values, compared in lower case.
  const mid = () => canvas.clientWidth / 2;
  const KEYS = [
    { keys: ['w', '+'], names: 'W  +', help: 'zoom in', run: () => inst.exports.w_zoom(1.25, mid()) },
    { keys: ['s', '-'], names: 'S  -', help: 'zoom out', run: () => inst.exports.w_zoom(0.8, mid()) },
    { keys: ['a', 'arrowleft'], names: 'A  Left', help: 'pan to earlier times', run: () => inst.exports.w_pan(canvas.clientWidth / 5, 0) },
    { keys: ['d', 'arrowright'], names: 'D  Right', help: 'pan to later times', run: () => inst.exports.w_pan(-canvas.clientWidth / 5, 0) },
    { keys: ['f'], names: 'F', help: 'fit the whole trace', run: () => inst.exports.w_fit() },
    { keys: ['arrowup'], names: 'Up  Down', help: 'move the rows in focus', run: () => inst.exports.w_focus(-1) },
    { keys: ['arrowdown'], run: () => inst.exports.w_focus(1) },
    { keys: ['pageup'], names: 'PgUp  PgDn', help: 'move the focus by ten rows', run: () => inst.exports.w_focus(-10) },
    { keys: ['pagedown'], run: () => inst.exports.w_focus(10) },
    { keys: ['c'], names: 'C', help: 'only the causal chain, and back', run: () => { $('connected').click(); return true; } },
    { keys: ['1', '2', '3', '0'], names: '1 2 3 0', help: "the chain's depth: 1, 2, 3 arrows, all", run: (k) => { depth(Number(k)); return true; } },
    { keys: ['n'], names: 'n  Enter', help: 'the next match of the search (N, Shift+Enter: the previous)', run: (k, e) => { goMatch(e.shiftKey ? -1 : 1); return true; } },
    { keys: ['z'], names: 'Z', help: 'zoom to the measured range', run: () => inst.exports.w_zoom_measure() },
    { keys: ['p'], names: 'P', help: "the selected thread's critical path, and back", run: () => { pathKey(); return true; } },
    { keys: ['escape'], names: 'Esc', help: 'clear the selection, the search and the measure', run: () => { clearAll(); return true; } },
    { keys: ['?'], names: '?', help: 'show or hide these keys', run: () => { help(); return true; } },
  ];
  const POINTER = [['wheel', 'zoom'], ['drag', 'pan (never selects)'], ['click', 'select a thread'],
    ['double-click', 'its causal chain'], ['drag the ruler', 'measure a range (or shift+drag)']];

  // The help: built from KEYS, shown or hidden (on: true/false, or toggle).
  function help(on) {
    const el = $('help');
    if (!el.firstChild) {
      const add = (a, b) => {
        const row = document.createElement('div');
        const k = document.createElement('kbd');
        k.textContent = a;
        row.appendChild(k);
        row.appendChild(document.createTextNode(b));
        el.appendChild(row);
      };
      const head = (t) => { const h = document.createElement('b'); h.textContent = t; el.appendChild(h); };
      head('keys');
      KEYS.filter((k) => k.names).forEach((k) => add(k.names, k.help));
      head('pointer');
      POINTER.forEach(([a, b]) => add(a, b));
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
      : j ? document.title.replace(/ - weft$/, '') : 'select a thread for its critical path';
    redraw();
  }

  // The next (1) or previous (-1) match: selected, zoomed to, inspected.
  function goMatch(dir) {
    const j = JSON.parse(str(inst.exports.w_next_match(dir)));
    if (j) showThread(j);
    redraw();
  }

  function clearAll() {
    help(false);
    inst.exports.w_clear();
    if (canvas.dataset.path) { delete canvas.dataset.path; $('status').textContent = document.title.replace(/ - weft$/, ''); }
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
    s.blur();
    redraw();
  }

  // Keys anywhere on the page (no click on the picture needed) -- but
  // the search box takes text: there, only Esc.
  window.addEventListener('keydown', (e) => {
    if (!loaded || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.toLowerCase();
    if (e.target === $('search')) {
      // the search box takes text: Enter goes to a match, Esc clears
      if (k === 'enter') { e.preventDefault(); goMatch(e.shiftKey ? -1 : 1); }
      if (k !== 'escape') return;
    }
    const entry = KEYS.find((x) => x.keys.includes(k));
    if (!entry) return;
    e.preventDefault();
    if (!entry.run(k, e)) redraw();
  });
  $('zoomin').onclick = () => { inst.exports.w_zoom(1.25, canvas.clientWidth / 2); redraw(); };
  $('zoomout').onclick = () => { inst.exports.w_zoom(0.8, canvas.clientWidth / 2); redraw(); };
  $('fit').onclick = () => { inst.exports.w_fit(); redraw(); };
  $('connected').onchange = (e) => { inst.exports.w_only_chain(e.target.checked ? 1 : 0); redraw(); };
  $('depth').onchange = (e) => depth(Number(e.target.value));
  $('search').addEventListener('input', (e) => {
    const n = withStr(e.target.value, (p) => inst.exports.w_search(p));
    $('matches').textContent = e.target.value ? n + ' match' + (n === 1 ? '' : 'es') : '';
    redraw();
  });
  window.addEventListener('resize', redraw);
  // Another trace dropped on the page replaces this one.
  document.addEventListener('dragover', (e) => e.preventDefault());
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    const f = e.dataTransfer.files[0];
    if (!f) return;
    const r = new FileReader();
    r.onload = () => load(new Uint8Array(r.result), f.name);
    r.readAsArrayBuffer(f);
  });

  function text(id) {
    const el = $(id), t = el.textContent;
    el.remove(); // (its text, a copy of the trace, goes)
    return t;
  }
  const wasmCoding = $('weft-wasm').dataset.coding;
  const wasmText = text('weft-wasm'), name = dec.decode(bytes(text('weft-name')));
  progress(0, name + ': starting');
  // (deflated by weft html: inflated by the browser first)
  const wasmBytes = wasmCoding === 'deflate'
    ? new Response(new Blob([bytes(wasmText)]).stream().pipeThrough(new DecompressionStream('deflate'))).arrayBuffer()
    : Promise.resolve(bytes(wasmText));
  wasmBytes.then((b) => WebAssembly.instantiate(b, { env, wasi_snapshot_preview1: wasi }))
    .then((res) => {
      inst = res.instance;
      inst.exports._initialize();
      loadPage($('weft-trace'), name);
    });
})();
