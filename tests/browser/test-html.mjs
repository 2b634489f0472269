// SPDX-License-Identifier: MIT
// test-html.mjs - the HTML viewer in real headless Chromium (Debian's,
// driven by playwright-core): it draws, wheel zoom narrows the visible
// range, search highlights, a click fills the inspector, a double click
// highlights the causal chain, "connected" shows only it, counters are
// toggled one by one, P draws a thread's critical path and says its
// split, a hostile label is shown as text and runs nothing,
// and a dropped trace replaces the shown one; two runs (weft html GOOD
// BAD) one above the other, zoomed together, selected with their
// partners, the first divergence marked; three embedded viewers in
// one page (weft html --embed) share the wasm and keep to their own
// focus, range and counters.  Opened from file:// with every network request refused.
// TAP output.  Needs WEFT_BIN, WEFT_BUILD, WEFT_SRC.  Arguments, if any,
// are words: only the tests whose names hold one of them run (the others
// are skipped: tests/meta/mutants names a test this way), and only what
// they need is made: the traces and pages on first use, the page most
// tests share when one of those run uses it.
import zlib from 'node:zlib';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.join(process.env.WEFT_SRC, 'package.json'));
const { chromium } = require('playwright-core');
const W = process.env.WEFT_BIN, B = process.env.WEFT_BUILD, S = process.env.WEFT_SRC;
const T = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-html-'));
let n = 0, failed = 0;
const ONLY = process.argv.slice(2);
// the page of bad.html most tests share, one after the other (opened
// before the first test when every test runs, else before the first that
// names it: `page` or `dialogs` in its code, comments aside)
let page, dialogs;
const usesShared = (fn) => /(?<![\w.'"$])(page|dialogs)\b(?!\s*:)/.test(String(fn).replace(/\/\/.*$/gm, ''));
async function test(name, fn) {
  n++;
  if (ONLY.length && !ONLY.some((w) => name.includes(w))) {
    console.log(`ok ${n} - ${name} # SKIP not asked for`);
    return;
  }
  try {
    if (!page && usesShared(fn)) ({ page, dialogs } = await open('bad'));
    await fn();
    console.log(`ok ${n} - ${name}`);
  }
  catch (e) { failed++; console.log(`not ok ${n} - ${name}`); console.log('# ' + String(e.stack || e).split('\n').join('\n# ')); }
}
function assert(c, msg) { if (!c) throw new Error(msg); }

// traces
const run = (cmd, args, env) => execFileSync(cmd, args, { cwd: T, env: { ...process.env, ...env } });
run(path.join(B, 'examples/arp'), ['bad'], { WEFT_FILE: 'bad.weft' });
run(path.join(B, 'examples/arp'), ['good'], { WEFT_FILE: 'good.weft' });
run(path.join(B, 'examples/all-events'), [], { WEFT_FILE: 'other.weft' });
// The other traces and the pages, each made the first time a test needs
// it: need(FILE) makes FILE in T by its recipe (once), and says its path.
const cflags = (process.env.WEFT_TEST_CFLAGS || '').split(' ').filter(Boolean);
const cc = (c, x, more = []) => run('cc', ['-DWEFT_ENABLE', '-I' + path.join(S, 'include'), c, '-L' + B, '-lweft']
  .concat(more, ['-Wl,-rpath,' + B, '-o', x], cflags));
const HOSTILE = '</script><img src=x onerror=alert(1)>';
const split = path.join(B, 'examples/uv-echo-split');
const recipes = {
  'h.weft': () => {
    fs.writeFileSync(path.join(T, 'h.c'),
      '#include <weft/weft.h>\nint main(void){weft_create(1,"k");weft_label(1,"' + HOSTILE +
      '");weft_run(1);weft_run(0);weft_resolve(1);return 0;}\n');
    cc('h.c', 'h');
    run(path.join(T, 'h'), [], { WEFT_FILE: 'h.weft' });
  },
  'c.weft': () => {
    fs.writeFileSync(path.join(T, 'c.c'),
      '#include <weft/weft.h>\nint main(void){weft_run(1);for(int i=0;i<60;i++){' +
      'weft_counter_set("alpha",i%7);weft_counter_set("beta",(i*3)%11);}weft_run(0);return 0;}\n');
    cc('c.c', 'c');
    run(path.join(T, 'c'), [], { WEFT_FILE: 'c.weft' });
  },
  // a thread with 35 arrows and 11 labels (the inspector lists them all)
  'ins.weft': () => {
    fs.writeFileSync(path.join(T, 'ins.c'),
      '#include <weft/weft.h>\n#include <stdio.h>\nint main(void){weft_run(1);for(int i=0;i<35;i++)weft_create(100+i,"job");' +
      'char b[16];for(int i=0;i<11;i++){snprintf(b,sizeof b,"busy %d",i);weft_label(1,b);}weft_run(0);return 0;}\n');
    cc('ins.c', 'ins');
    run(path.join(T, 'ins'), [], { WEFT_FILE: 'ins.weft' });
  },
  // a request whose critical path is known (tests/unit/test-path.c's, on
  // the manual clock): it waits on a query the db worker answers while the
  // loop runs a callback
  'path.weft': () => {
    fs.writeFileSync(path.join(T, 'path.c'), `#include <weft/weft.h>
#include <pthread.h>
static void at(int us) { weft_clock_set((unsigned long long)us * 1000); }
static void *worker(void *x) { at(300); weft_run(0x13); weft_signal(0x11); weft_run(0); return x; }
int main(void) {
  weft_start("path.weft", 1 << 20, WEFT_CLOCK_MANUAL);
  at(0); weft_run(1); weft_label(1, "event loop");
  weft_create(0x13, "worker"); weft_label(0x13, "db worker");
  weft_create(0x10, "request"); weft_label(0x10, "GET /item/7");
  at(10); weft_run(0x10);
  at(110); weft_create(0x11, "db query"); weft_label(0x11, "SELECT 7"); weft_try_read(0x11); weft_run(1);
  at(240); weft_create(0x12, "callback"); weft_label(0x12, "callback C");
  at(250); weft_run(0x12);
  pthread_t t; pthread_create(&t, 0, worker, 0); pthread_join(t, 0);
  at(500); weft_resolve(0x12); weft_run(0x11);
  at(520); weft_resolve(0x11); weft_run(1);
  at(530); weft_run(0x10); weft_read(0x11);
  at(600); weft_resolve(0x10); weft_run(1);
  at(610); weft_run(0);
  return weft_stop();
}
`);
    cc('path.c', 'pathx', ['-lpthread']);
    run(path.join(T, 'pathx'), []);
  },
  // a run of two processes (uv-echo-split: a server and the client it
  // spawns); none when built without libuv
  'sp': () => {
    if (!fs.existsSync(split)) return;
    // (under ASan the preloaded shim comes before the runtime, as in tests/uv)
    const asan = process.env.ASAN_OPTIONS;
    run(W, ['record', '-o', 'sp', '--', split],
      { ASAN_OPTIONS: (asan ? asan + ':' : '') + 'verify_asan_link_order=0:detect_leaks=0' });
  },
  // a server-shaped trace of two million events (bench/server-gen)
  'server.weft': () => run(path.join(B, 'bench/server-gen'), ['-n', '2000000', '-c', '200', '-o', 'server.weft']),
  'small.weft': () => run(path.join(B, 'bench/server-gen'), ['-n', '30000', '-o', 'small.weft']),
};
// each trace's page (weft html)
for (const t of ['bad', 'h', 'c', 'other', 'ins', 'path', 'small', 'server', 'sp']) {
  const f = t === 'sp' ? 'sp' : t + '.weft';
  recipes[t + '.html'] = () => { if (fs.existsSync(need(f))) run(W, ['html', f, '-o', t + '.html']); };
}
const made = new Set();
function need(f) {
  if (!made.has(f)) {
    made.add(f);
    if (recipes[f]) recipes[f]();
  }
  return path.join(T, f);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--disable-sync'],
});
const context = await browser.newContext({ viewport: { width: 1200, height: 600 } });
let external = 0;
await context.route('**/*', (r) => {
  if (r.request().url().startsWith('file:')) return r.continue();
  external++;
  return r.abort();
});

async function open(name) {
  const page = await context.newPage();
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  await page.goto('file://' + need(name + '.html'));
  await page.waitForFunction(() => document.getElementById('view').dataset.range, null, { timeout: 20000 });
  return { page, dialogs };
}
const pixels = (page, rgb) => page.evaluate((c) => {
  const cv = document.getElementById('view');
  const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
  let k = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (c ? Math.abs(d[i] - c[0]) < 16 && Math.abs(d[i + 1] - c[1]) < 16 && Math.abs(d[i + 2] - c[2]) < 16
          : !(d[i] === 230 && d[i + 1] === 230 && d[i + 2] === 230)) k++;
  }
  return k;
}, rgb);
const range = async (page) => (await page.evaluate(() => document.getElementById('view').dataset.range)).split(' ').map(Number);
// a click at canvas coordinates
// (x < 1: a fraction of the canvas width)
const clickAt = async (page, x, y) => {
  const r = await page.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top, b.width]; });
  await page.mouse.click(r[0] + (x < 1 ? x * r[2] : x), r[1] + y);
};
// the top of the rows: under the time ruler (src/render/view-internal.h)
const TOP = 34;
const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
// the middle of the longest stretch of row ROW's line on its middle line
// (dark: the dark grey of a waiting thread; else whatever is not the
// background, 230 grey): where arp's real-clock timing put the thread, not
// a fixed share of the width, which misses under load
const lineX = (page, row, dark = false) => page.evaluate(([y, dark]) => {
  const cv = document.getElementById('view');
  const d = cv.getContext('2d').getImageData(0, y, cv.width, 1).data;
  let best = [0, 0];
  for (let i = 0, run = 0; i < cv.width; i++) {
    const on = dark ? Math.abs(d[4 * i] - 51) < 20 && Math.abs(d[4 * i + 1] - 51) < 20
      : !(d[4 * i] === 230 && d[4 * i + 1] === 230 && d[4 * i + 2] === 230);
    run = on ? run + 1 : 0;
    if (run > best[1]) best = [i - run + 1, run];
  }
  return best[0] + best[1] / 2;
}, [TOP + 26 * row + 13, dark]);

if (!ONLY.length) ({ page, dialogs } = await open('bad'));

await test('the canvas draws the trace, arrows in their colours', async () => {
  assert(await pixels(page, null) > 5000, 'little drawn');
  assert(await pixels(page, [0, 128, 0]) > 5, 'no green resolve arrow');
  assert(await pixels(page, [0, 0, 255]) > 5, 'no blue read arrow');
  assert(await pixels(page, [204, 0, 0]) > 100, 'no red never-resolved line');
});

await test('wheel zoom narrows the visible range around the pointer', async () => {
  const [a, b] = await range(page);
  await page.mouse.move(600, 200);
  await page.mouse.wheel(0, -300);
  await frame(page);
  const [c, d] = await range(page);
  assert(d - c < b - a, `range ${a}..${b} became ${c}..${d}`);
  assert(c > a && d < b, 'not around the pointer');
  await page.keyboard.press('f');
  await frame(page);
  const [e, f] = await range(page);
  assert(e === a && f === b, 'F does not fit back');
});

await test('the zoom follows the size of the scroll; horizontal scroll pans; ctrl+wheel (pinch) zooms', async () => {
  const span = async () => { const [a, b] = await range(page); return b - a; };
  await page.mouse.move(600, 200);
  const s0 = await span();
  // a trackpad flick: twenty 2-pixel deltas -- a modest zoom, not 1.25^20
  for (let i = 0; i < 20; i++) await page.mouse.wheel(0, -2);
  await frame(page);
  const r1 = s0 / await span();
  assert(r1 > 1.03 && r1 < 1.2, 'flick zoomed by ' + r1);
  await page.keyboard.press('f');
  await frame(page);
  // a mouse notch (100 px): 1.25
  await page.mouse.wheel(0, -100);
  await frame(page);
  const r2 = s0 / await span();
  assert(r2 > 1.2 && r2 < 1.3, 'a notch zoomed by ' + r2);
  // horizontal: the same span, later
  const [a, b] = await range(page);
  await page.mouse.wheel(200, 0);
  await frame(page);
  const [c, d] = await range(page);
  assert(d - c === b - a && c > a, `pan ${a}..${b} -> ${c}..${d}`);
  // ctrl+wheel, as a pinch sends it: zooms in, and the page is not zoomed
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -20);
  await page.keyboard.up('Control');
  await frame(page);
  const r3 = (d - c) / await span();
  assert(r3 > 1.1, 'ctrl+wheel zoomed by ' + r3);
  assert(await page.evaluate(() => window.visualViewport.scale) === 1, 'the page zoomed');
  await page.keyboard.press('f');
  await frame(page);
});

// A fast wheel on a heavy trace: the frames lag, and the browser sends
// the notches one by one within a frame, or coalesced into one event
// (40 notches as a delta of 4000 px): both zoom as 40 notches, 1.25^40
// (the first viewer clamped each event to 5 notches).
await test('the wheel honours every notch, one by one or coalesced', async () => {
  const span = async () => { const [a, b] = await range(page); return b - a; };
  const wheel = (dy, count) => page.evaluate(([dy, count]) => {
    const c = document.getElementById('view'), r = c.getBoundingClientRect();
    for (let i = 0; i < count; i++)
      c.dispatchEvent(new WheelEvent('wheel', { deltaY: dy, deltaMode: 0, clientX: r.left + 600,
        clientY: r.top + 200, bubbles: true, cancelable: true }));
  }, [dy, count]);
  const near = (got, want) => Math.abs(got / want - 1) < 0.01;
  for (const [dy, count, out] of [[100, 40, true], [4000, 1, true], [1000, 4, true],
    [-100, 20, false], [-2000, 1, false]]) {
    await page.keyboard.press('f');
    await frame(page);
    const s0 = await span();
    await wheel(dy, count);
    await frame(page);
    const s1 = await span();
    const notches = Math.abs(dy) * count / 100;
    const want = Math.pow(1.25, notches);
    const got = out ? s1 / s0 : s0 / s1;
    assert(near(got, want), `${count} x ${dy}: zoomed ${out ? 'out' : 'in'} by ${got}, not 1.25^${notches} = ${want}`);
  }
  await page.keyboard.press('f');
  await frame(page);
});

await test('touch: one finger drags to pan, two pinch to zoom', async () => {
  const t = await context.newPage();
  await t.goto('file://' + need('bad.html'));
  await t.waitForFunction(() => document.getElementById('view').dataset.range, null, { timeout: 20000 });
  const cdp = await context.newCDPSession(t);
  const box = await t.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top]; });
  const touch = (type, pts) => cdp.send('Input.dispatchTouchEvent', {
    type, touchPoints: pts.map(([x, y], id) => ({ x: box[0] + x, y: box[1] + y, id })),
  });
  const [a, b] = await range(t);
  // one finger, 200 px to the right: earlier times come in, same span
  await touch('touchStart', [[400, 200]]);
  for (let i = 1; i <= 10; i++) await touch('touchMove', [[400 + 20 * i, 200]]);
  await touch('touchEnd', []);
  await frame(t);
  const [c, d] = await range(t);
  assert(d - c === b - a && c < a, `drag ${a}..${b} -> ${c}..${d}`);
  // two fingers spreading from 100 to 300 px apart: three times closer
  await touch('touchStart', [[350, 200], [450, 200]]);
  for (let i = 1; i <= 10; i++) await touch('touchMove', [[350 - 10 * i, 200], [450 + 10 * i, 200]]);
  await touch('touchEnd', []);
  await frame(t);
  const [e, f] = await range(t);
  const z = (d - c) / (f - e);
  assert(z > 2.7 && z < 3.3, 'pinch zoomed by ' + z);
  await t.close();
});

await test('search highlights as you type', async () => {
  assert(await pixels(page, [255, 255, 0]) === 0, 'yellow before searching');
  await page.fill('#search', 'tcp conn');
  await frame(page);
  assert((await page.textContent('#matches')) === '1 match', await page.textContent('#matches'));
  assert(await pixels(page, [255, 255, 0]) > 200, 'no yellow highlight');
  await page.fill('#search', '');
  await frame(page);
});

await test('search matches kinds, notes and failure messages; Enter, Shift+Enter, n, N go to the matches', async () => {
  const o = (await open('other')).page;
  const count = async (q) => { await o.fill('#search', q); await frame(o); return o.textContent('#matches'); };
  // all-events: "working hard" is a note on two workers (no label has
  // it), one failed with "disk on fire", "worker" is a kind
  assert(await count('working hard') === '2 matches', 'notes: ' + await o.textContent('#matches'));
  assert(await count('disk on fire') === '1 match', 'failure: ' + await o.textContent('#matches'));
  const kinds = await count('worker');
  assert(/^[1-9]\d* match/.test(kinds), 'kind: ' + kinds);
  // Enter in the box: the first match, selected and zoomed to; again,
  // the second; Shift+Enter back; n, N from the page the same
  await count('working hard');
  const [a0, a1] = await range(o);
  await o.press('#search', 'Enter');
  await frame(o);
  const first = await o.textContent('#inspector');
  const [b0, b1] = await range(o);
  // (zoomed to the match: its creation in view, however long it lived)
  // (the inspector counts from the trace's first event, as every time
  // shown; the range is on the model's axis: the extent's start is it)
  const [e0] = (await o.evaluate(() => document.getElementById('view').dataset.extent)).split(' ').map(Number);
  const created = Number(/\ncreated ([0-9.]+(?: [0-9]{3})*) s/.exec(first)[1].replace(/ /g, '')) * 1e9 + e0;
  assert(/working hard/.test(first) && b0 <= created && created <= b1,
    'Enter: ' + first.split('\n')[0] + ` created ${created}, ${a0}..${a1} -> ${b0}..${b1}`);
  await o.press('#search', 'Enter');
  await frame(o);
  const second = await o.textContent('#inspector');
  assert(/working hard/.test(second) && second.split('\n')[0] !== first.split('\n')[0], 'second: ' + second.split('\n')[0]);
  await o.press('#search', 'Shift+Enter');
  await frame(o);
  assert((await o.textContent('#inspector')).split('\n')[0] === first.split('\n')[0], 'Shift+Enter did not go back');
  await o.evaluate(() => document.activeElement.blur());
  await o.keyboard.press('n');
  await frame(o);
  assert((await o.textContent('#inspector')).split('\n')[0] === second.split('\n')[0], 'n did not go on');
  await o.keyboard.press('Shift+N');
  await frame(o);
  assert((await o.textContent('#inspector')).split('\n')[0] === first.split('\n')[0], 'N did not go back');
  await o.close();
});

await test('hovering a thread shows its tooltip: kind, lifetime, running time, how it ended', async () => {
  const r = await page.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top]; });
  // main (row 1): a should-resolve thread that never resolved
  await page.mouse.move(r[0] + await lineX(page, 1), r[1] + TOP + 26 * 1 + 13);
  await frame(page);
  assert(await page.isVisible('#tip'), 'no tooltip');
  const t = await page.textContent('#tip');
  assert(/^main\ntask, pending for [0-9.]+ [nuµm]?s, ran [0-9.]+ [nuµm]?s\nshould resolve, never did$/.test(t), t);
  await page.mouse.move(r[0] + 5, r[1] + 590);
  await frame(page);
  assert(await page.isHidden('#tip'), 'tooltip stays off the threads');
});

await test('clicking a thread fills the inspector', async () => {
  // rows: event loop 0, main 1, TCP connect 2 (TOP px top, 26 px rows);
  // on its line (dark grey), wherever the run's timing put it
  const y = TOP + 26 * 2 + 13;
  const x = await lineX(page, 2, true);
  await clickAt(page, x, y);
  const t = await page.textContent('#inspector');
  assert(t.startsWith('TCP connect'), t);
  assert(/kind task/.test(t) && /parent: main/.test(t), t);
  const items = await page.$$eval('#inspector li', (l) => l.map((x) => x.textContent));
  assert(items.some((x) => /^at \d+(\.\d{3}( \d{3})*)? s: label: TCP connect$/.test(x)), 'no label history: ' + items.join('\n'));
});

await test('the inspector lists every entry; clicking one goes to its thread', async () => {
  const { page: p } = await open('ins');
  const cw = () => p.evaluate(() => document.getElementById('view').clientWidth);
  const w0 = await cw();
  await p.fill('#search', 'busy 10');
  await p.press('#search', 'Enter');
  await frame(p);
  const heading = async () => (await p.textContent('#inspector .head')).split('\n')[0];
  assert(await heading() === 'busy 10', 'heading: ' + await heading());
  // every arrow and label: 35 creations, 11 labels, no "more"
  const items = await p.$$eval('#inspector li', (l) => l.map((x) => x.textContent));
  assert(items.length === 46 && await p.getAttribute('#inspector', 'data-entries') === '46',
    items.length + ' entries: ' + items.join('\n'));
  assert(items.filter((x) => /^at \d+(\.\d{3}( \d{3})*)? s: created job 0x[0-9a-f]+$/.test(x)).length === 35, items.join('\n'));
  assert(items.filter((x) => /^at \d+(\.\d{3}( \d{3})*)? s: label: busy \d+$/.test(x)).length === 11, items.join('\n'));
  assert(await p.locator('#inspector li.go').count() === 35, 'not every arrow is a link');
  assert(await cw() === w0, `the canvas went from ${w0} to ${await cw()} px wide`);
  // a time is never cut over two lines, however narrow the panel: its
  // groups ("0.000 071 563 s") wrap as one word
  await p.evaluate(() => { document.getElementById('inspector').style.width = '130px'; });
  const times = await p.$$eval('#inspector .weft-time', (l) => l.map((x) => [x.textContent, x.getClientRects().length]));
  assert(times.length >= 46 + 2, times.length + ' times marked');
  assert(times.some(([t]) => / \d{3} s$/.test(t)), 'no grouped instant: ' + times.map((x) => x[0]).join(', '));
  const cut = times.filter(([, k]) => k !== 1);
  assert(!cut.length, 'times cut over lines: ' + cut.map((x) => x[0]).join(', '));
  const wrapped = await p.$$eval('#inspector li', (l) => l.filter((x) => x.getClientRects()[0].height > 20).length);
  assert(wrapped > 10, `the panel at 130 px wraps only ${wrapped} entries`);
  await p.evaluate(() => { document.getElementById('inspector').style.width = ''; });
  const before = await p.getAttribute('#inspector', 'data-thread');
  const [a0, a1] = await range(p);
  await p.locator('#inspector li.go', { hasText: 'created job 0x77' }).click();
  await frame(p);
  assert(await heading() === 'job 0x77', 'after the click: ' + await heading());
  assert(await p.getAttribute('#inspector', 'data-thread') !== before, 'the selection did not change');
  const back = await p.$$eval('#inspector li', (l) => l.map((x) => x.textContent));
  assert(back.length === 1 && /: created by busy 10$/.test(back[0]), back.join('\n'));
  const [b0, b1] = await range(p);
  assert(b1 - b0 < a1 - a0, `not zoomed to it: ${a0}..${a1} -> ${b0}..${b1}`);
  assert(await cw() === w0, 'the canvas changed width');
  // and back, through the entry that names it
  await p.locator('#inspector li.go').first().click();
  await frame(p);
  assert(await heading() === 'busy 10', 'back: ' + await heading());
  await p.close();
});

await test('counters write their values at the pointer', async () => {
  const { page: p } = await open('c');
  const r = await p.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top, b.height]; });
  const boxes = () => pixels(p, [247, 247, 247]);
  const none = await boxes();
  await p.mouse.move(r[0] + 300, r[1] + r[2] - 40);
  await frame(p);
  const some = await boxes();
  assert(some > none + 20, `no value boxes at the pointer: ${none} -> ${some}`);
  await p.mouse.move(r[0] + 300, r[1] - 20);
  await frame(p);
  assert(await boxes() === none, 'the values stay after the pointer left');
  await p.close();
});

const dblclickAt = async (page, x, y) => {
  const r = await page.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top, b.width]; });
  await page.mouse.dblclick(r[0] + (x < 1 ? x * r[2] : x), r[1] + y);
};
const CHAIN = [176, 222, 207];

await test('a click selects without the chain; a double click highlights the causal chain', async () => {
  // main (row 1); apart in time from the last click, which was elsewhere
  await page.waitForTimeout(700);
  await clickAt(page, await lineX(page, 1), TOP + 26 * 1 + 13);
  await frame(page);
  assert(await pixels(page, CHAIN) === 0, 'chain colour after a single click');
  assert(await pixels(page, [255, 115, 0]) > 20, 'the selection is not outlined');
  assert(!(await page.evaluate(() => document.getElementById('view').dataset.chain)), 'chain after a click');
  // ARP response (row 3): its chain is not the whole trace
  await page.waitForTimeout(700);
  await dblclickAt(page, await lineX(page, 3), TOP + 26 * 3 + 13);
  await frame(page);
  const c = Number(await page.evaluate(() => document.getElementById('view').dataset.chain));
  assert(c >= 3, 'chain size ' + c);
  assert(await pixels(page, CHAIN) > 200, 'no chain highlight');
  assert(/causal chain: \d+ threads/.test(await page.textContent('#inspector')), 'inspector says nothing of the chain');
});

await test('"connected" shows only the chain, and back', async () => {
  const rows = async () => Number(await page.evaluate(() => document.getElementById('view').dataset.rows));
  const all = await rows();
  await page.check('#connected');
  await frame(page);
  const only = await rows();
  assert(only < all && only >= 3, `rows ${all} -> ${only}`);
  await page.keyboard.press('c');
  await frame(page);
  assert(!(await page.isChecked('#connected')) && await rows() === all, 'C does not toggle back');
});

await test('the chain\'s depth: menu and keys 1-3, 0 for all', async () => {
  // ARP response (row 3): its chain is the hang's five threads, its
  // direct arrows three
  await page.waitForTimeout(700);
  await dblclickAt(page, await lineX(page, 3), TOP + 26 * 3 + 13);
  await frame(page);
  const chain = async () => Number(await page.evaluate(() => document.getElementById('view').dataset.chain));
  assert(await chain() === 5, 'chain ' + await chain());
  await page.keyboard.press('1');
  await frame(page);
  assert(await chain() === 3 && await page.inputValue('#depth') === '1', 'depth 1: ' + await chain());
  for (const k of ['3', '2', '0', '1']) {
    await page.keyboard.press(k);
    await frame(page);
    assert(await page.inputValue('#depth') === k, `key ${k}: depth ${await page.inputValue('#depth')}`);
  }
  await page.selectOption('#depth', '0');
  await frame(page);
  assert(await chain() === 5, 'all: ' + await chain());
});

await test('? shows the keys from the key table, ? or Esc hides them', async () => {
  assert(await page.isHidden('#help'), 'help shown before ?');
  await page.keyboard.press('?');
  assert(await page.isVisible('#help'), 'no help after ?');
  const t = await page.textContent('#help');
  for (const k of ['W  +', 'F', 'Esc', '?', '1 2 3 0', 'double-click', 'Z', 'drag the ruler']) assert(t.includes(k), 'help lacks ' + k + ': ' + t);
  await page.keyboard.press('?');
  assert(await page.isHidden('#help'), 'second ? does not hide it');
  await page.keyboard.press('?');
  await page.keyboard.press('Escape');
  await frame(page);
  assert(await page.isHidden('#help'), 'Esc does not hide it');
});

// The help is the key table's (src/render/keys.c, through the wasm), line
// by line in its order: tests/render/keys-help.txt's lines but those of
// `weft view` only (the query bar's ':').
await test('the help lists the key table\'s lines, the page\'s only (keys-help.txt)', async () => {
  const want = [];
  let sec = null;
  for (const l of fs.readFileSync(path.join(S, 'tests/render/keys-help.txt'), 'utf8').split('\n')) {
    if (!l || l.startsWith('#')) continue;
    const f = l.split('\t');
    if (f[3] === 'gtk') continue;
    if (f[0] !== sec) want.push([sec = f[0]]);
    want.push([f[1], f[2]]);
  }
  await page.keyboard.press('?');
  const got = await page.$$eval('#help > *', (es) => {
    const o = [];
    for (const e of es) {
      if (e.tagName === 'B') o.push([e.textContent]);
      else if (e.tagName === 'KBD') o.push([e.textContent, e.nextElementSibling.textContent]);
    }
    return o;
  });
  await page.keyboard.press('?');
  assert(JSON.stringify(got) === JSON.stringify(want), 'help: ' + JSON.stringify(got) + '\nwanted: ' + JSON.stringify(want));
});

// Every zoom, pan and focus key of the table does its action: W + zoom
// in by 1.25, S - out; D ArrowRight pan to later times by the same step,
// A ArrowLeft back; ArrowDown ArrowUp move the focus by a row, PageDown
// PageUp by ten (within the rows); a capital (Caps Lock) is its letter.
await test('the zoom, pan and focus keys: W S A D, arrows, PageUp/PageDown', async () => {
  await page.keyboard.press('f');
  await frame(page);
  const seen = [];
  const look = async () => {
    const [a, b] = await range(page);
    seen.push([a, b, Number(await page.evaluate(() => document.getElementById('view').dataset.focus))]);
  };
  await look();
  const keys = ['w', 'w', 'w', 'W', 's', 'Minus', 'NumpadSubtract', 'w', 'NumpadAdd', 'Shift+Equal',
    'd', 'ArrowRight', 'a', 'ArrowLeft', 'ArrowDown', 'ArrowDown', 'ArrowUp', 'PageDown', 'PageUp'];
  for (const k of keys) {
    await page.keyboard.press(k);
    await frame(page);
    await look();
  }
  const rows = Number(await page.evaluate(() => document.getElementById('view').dataset.rows));
  const span = seen.map(([a, b]) => b - a);
  const f = [0.8, 0.8, 0.8, 0.8, 1.25, 1.25, 1.25, 0.8, 0.8, 0.8];
  f.forEach((x, i) => assert(Math.abs(span[i + 1] / span[i] - x) < 0.005, `zoom key ${keys[i]}: ${span[i]} -> ${span[i + 1]}`));
  const sp = span[10];
  assert(span.slice(10, 15).every((x) => x === sp), 'a pan changed the span: ' + span.slice(10, 15));
  const st = [11, 12, 13, 14].map((i) => seen[i][0] - seen[i - 1][0]);
  assert(st[0] > 0.15 * sp && st[0] < 0.25 * sp && Math.abs(st[1] - st[0]) <= 2, 'later: ' + st);
  assert(Math.abs(st[2] + st[0]) <= 2 && Math.abs(st[3] + st[1]) <= 2, 'earlier: ' + st);
  let fo = seen[14][2];
  const want = [1, 1, -1, 10, -10].map((d) => (fo = Math.min(Math.max(fo + d, 0), rows - 1)));
  const got = seen.slice(15).map((x) => x[2]);
  assert(rows > 3 && JSON.stringify(got) === JSON.stringify(want), `focus (${rows} rows): ${got}, wanted ${want}`);
  await page.keyboard.press('f');
  await frame(page);
});

// '?' is said on screen (a button in the bar), and the help's columns
// are aligned: every name in one column, every description starting at
// one x, the longest name ("drag the ruler") not cut.
await test('a ? button shows the keys; the help is two aligned columns', async () => {
  assert(await page.isVisible('#keys') && (await page.textContent('#keys')).trim() === '?', 'no ? button in the bar');
  assert(/\(\?\)/.test(await page.getAttribute('#keys', 'title')), 'the ? button does not name its key');
  await page.click('#keys');
  assert(await page.isVisible('#help'), 'the ? button did not show the help');
  const cols = await page.$$eval('#help kbd', (ks) => ks.map((k) => {
    const a = k.getBoundingClientRect(), b = k.nextElementSibling.getBoundingClientRect();
    return [k.textContent, a.left, a.right, b.left, k.scrollWidth <= k.clientWidth + 1];
  }));
  assert(cols.length >= 20, 'rows: ' + cols.length);
  const lefts = new Set(cols.map((c) => Math.round(c[1]))), descs = new Set(cols.map((c) => Math.round(c[3])));
  assert(lefts.size === 1 && descs.size === 1, 'not aligned: ' + JSON.stringify(cols));
  assert(cols.every((c) => c[2] <= c[3]), 'a name runs into its description: ' + JSON.stringify(cols));
  assert(cols.some((c) => c[0] === 'drag the ruler'), 'no drag the ruler');
  await page.click('#keys');
  assert(await page.isHidden('#help'), 'a second click did not hide it');
  // the keys still reach the viewer after the button took the focus
  await page.keyboard.press('?');
  assert(await page.isVisible('#help'), '? after the button');
  await page.keyboard.press('?');
});

await test('Esc clears the selection, the chain and the search, even from the search box', async () => {
  // ARP response's chain highlighted, and it selected
  await page.waitForTimeout(700);
  await dblclickAt(page, await lineX(page, 3), TOP + 26 * 3 + 13);
  await frame(page);
  assert(await pixels(page, CHAIN) > 200 && await pixels(page, [255, 115, 0]) > 20, 'no chain to clear');
  await page.fill('#search', 'tcp conn');
  await frame(page);
  assert(await page.textContent('#matches') === '1 match', 'no search to clear');
  await page.focus('#search');
  await page.keyboard.press('Escape');
  await frame(page);
  assert(await page.inputValue('#search') === '' && await page.textContent('#matches') === '', 'search kept');
  assert(await pixels(page, [255, 255, 0]) === 0, 'search highlight kept');
  assert(await pixels(page, CHAIN) === 0, 'chain kept');
  assert(await pixels(page, [255, 115, 0]) === 0, 'selection kept');
  assert(!(await page.evaluate(() => document.getElementById('view').dataset.chain)), 'dataset.chain kept');
  assert((await page.textContent('#inspector')) === 'click a thread to inspect it', await page.textContent('#inspector'));
  // and the keys work again at once, with no click (the search box let go)
  const [a, b] = await range(page);
  await page.keyboard.press('w');
  await frame(page);
  const [c, d] = await range(page);
  assert(d - c < b - a, 'W after Esc did nothing');
  await page.keyboard.press('f');
  await frame(page);
});

// A time as the ruler writes it ("2.5 ms", "-120 us", "0 ns",
// "17.094 992 s": weft_time_fmt), in ns.
const nsOf = (s) => {
  const m = /^(-?[0-9]+(?:\.[0-9]{1,3}(?: [0-9]{1,3})*)?) (ns|us|ms|s)$/.exec(s);
  assert(m, 'not a time: ' + s);
  return Number(m[1].replace(/ /g, '')) * { ns: 1, us: 1e3, ms: 1e6, s: 1e9 }[m[2]];
};
const BAND_EDGE = [38, 77, 204];

await test('the ruler: the time under the pointer; shift+drag or a drag on the ruler measures, Z zooms to it, Esc clears it', async () => {
  await page.keyboard.press('f');
  await frame(page);
  const r = await page.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top, b.width]; });
  const [a0, a1] = await range(page);
  const npp = (a1 - a0) / (r[2] - 16); // ns a pixel (8 px of margin each side)
  // the pointer's time, from the trace's start: 400 px apart, 400 px of time apart
  await page.mouse.move(r[0] + 300, r[1] + 300);
  await frame(page);
  const at1 = await page.textContent('#at');
  await page.mouse.move(r[0] + 700, r[1] + 300);
  await frame(page);
  const at2 = await page.textContent('#at');
  assert(/^at /.test(at1) && /^at /.test(at2), at1 + ' / ' + at2);
  const d = nsOf(at2.slice(3)) - nsOf(at1.slice(3));
  assert(Math.abs(d - 400 * npp) <= 15 * npp, `pointer times ${at1}, ${at2}: ${d} ns apart, not ${400 * npp}`);
  assert(await pixels(page, BAND_EDGE) === 0, 'a band before any measure');
  // shift+drag from x 400 to 700: a measure, no pan
  await page.keyboard.down('Shift');
  await page.mouse.move(r[0] + 400, r[1] + 300);
  await page.mouse.down();
  await page.mouse.move(r[0] + 550, r[1] + 320, { steps: 3 });
  await page.mouse.move(r[0] + 700, r[1] + 340, { steps: 3 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await frame(page);
  const [b0, b1] = await range(page);
  assert(b0 === a0 && b1 === a1, 'the drag panned');
  const m = (await page.evaluate(() => document.getElementById('view').dataset.measure)).split(' ').map(Number);
  assert(Math.abs(m[0] - (a0 + 392 * npp)) <= npp && Math.abs(m[1] - (a0 + 692 * npp)) <= npp,
    `measure ${m} for x 400..700 of ${a0}..${a1}`);
  const said = await page.textContent('#measure');
  assert(/^measured /.test(said), said);
  const dur = nsOf(said.slice(9));
  assert(Math.abs(dur - (m[1] - m[0])) <= 0.005 * (m[1] - m[0]), `${said} for ${m[1] - m[0]} ns`);
  assert(await pixels(page, BAND_EDGE) > 2 * 500, 'no band over the whole height');
  // Z: the range is the measured one
  await page.keyboard.press('z');
  await frame(page);
  const [c0, c1] = await range(page);
  assert(c0 === m[0] && c1 === m[1], `Z: ${c0} ${c1}, measured ${m}`);
  // the toolbar's range, as the ruler writes times: its length is the measure's
  const rt = await page.textContent('#range');
  // (both ends in one unit)
  const rm = /^(.+) \.\. (.+) \((.+)\)$/.exec(rt);
  assert(rm && nsOf(rm[1]) >= 0 && nsOf(rm[2]) > nsOf(rm[1]) && rm[1].split(' ').pop() === rm[2].split(' ').pop() &&
    rt.endsWith('(' + said.slice(9) + ')'), `range "${rt}", ${said}`);
  // Esc clears it
  await page.keyboard.press('Escape');
  await frame(page);
  assert(await page.textContent('#measure') === '', 'measure kept: ' + await page.textContent('#measure'));
  assert(!(await page.evaluate(() => document.getElementById('view').dataset.measure)), 'dataset.measure kept');
  assert(await pixels(page, BAND_EDGE) === 0, 'band kept');
  await page.keyboard.press('z');
  await frame(page);
  const [e0, e1] = await range(page);
  assert(e0 === c0 && e1 === c1, 'Z with no measure zoomed');
  // a drag on the ruler (no shift) measures too, and does not pan
  await page.keyboard.press('f');
  await frame(page);
  await page.mouse.move(r[0] + 200, r[1] + 8);
  await page.mouse.down();
  await page.mouse.move(r[0] + 500, r[1] + 200, { steps: 4 });
  await page.mouse.up();
  await frame(page);
  const [f0, f1] = await range(page);
  assert(f0 === a0 && f1 === a1, 'a drag on the ruler panned');
  const m2 = (await page.evaluate(() => document.getElementById('view').dataset.measure || '')).split(' ').map(Number);
  assert(Math.abs(m2[0] - (a0 + 192 * npp)) <= npp && Math.abs(m2[1] - (a0 + 492 * npp)) <= npp, 'ruler drag: ' + m2);
  await page.keyboard.press('Escape');
  await frame(page);
});

// The range summary (view.h, weft_view_summary_lines): a measured range
// shows what it holds, the very numbers `weft stats --from --to` gives
// for it (a range in the middle, one that starts before the trace, one
// that ends after it); a click on a group's line highlights its threads;
// Esc hides it.
await test('the summary of a measured range: the numbers of weft stats --from --to, a click highlights a group', async () => {
  const { page: p } = await open('small');
  await p.keyboard.press('f');
  await frame(p);
  const r = await p.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top, b.width]; });
  assert(await p.evaluate(() => document.getElementById('summary').hidden), 'a summary before any measure');
  // (fit: the toolbar's range starts at the trace's start, never before)
  const rt = await p.textContent('#range');
  assert(/^0 ms \.\. [0-9]+\.[0-9]{3}( [0-9]{1,3})? ms \([0-9]+\.[0-9]{3}( [0-9]{1,3})? ms\)$/.test(rt), 'range at fit: ' + rt);
  const cli = (from, to) => JSON.parse(execFileSync(W, ['stats', '--json', '--from', from + 'ns', '--to', to + 'ns',
    need('small.weft')]).toString());
  for (const [x0, x1, what] of [[0.3 * r[2], 0.7 * r[2], 'middle'], [2, 0.25 * r[2], 'from before the start'], [0.6 * r[2], r[2] - 2, 'to after the end']]) {
    // (the toolbar may have grown a line: the measure's and the range's
    // times are longer now, "measured 155.623 ms")
    r[1] = await p.evaluate(() => document.getElementById('view').getBoundingClientRect().top);
    await p.mouse.move(r[0] + x0, r[1] + 8);
    await p.mouse.down();
    await p.mouse.move(r[0] + x1, r[1] + 100, { steps: 4 });
    await p.mouse.up();
    await frame(p);
    const got = await p.evaluate(() => {
      const el = document.getElementById('summary');
      return { hidden: el.hidden, s: el.dataset.summary, lines: [...el.children].map((d) => ({ text: d.textContent, cls: d.className, ...d.dataset })) };
    });
    assert(!got.hidden && got.s, what + ': no summary');
    const s = JSON.parse(got.s);
    const m = (await p.evaluate(() => document.getElementById('view').dataset.measure)).split(' ').map(Number);
    if (what === 'middle') assert(s.to_ns - s.from_ns === m[1] - m[0], `${what}: ${s.from_ns}..${s.to_ns} for ${m}`);
    if (what === 'from before the start') assert(s.from_ns === 0 && s.to_ns > 0, `${what}: ${s.from_ns}..${s.to_ns}`);
    const c = cli(s.from_ns, s.to_ns);
    assert(JSON.stringify(c) === got.s, `${what}: the panel's ${got.s.slice(0, 300)} ... weft stats' ${JSON.stringify(c).slice(0, 300)}`);
    if (what === 'to after the end') assert(m[1] > (await range(p))[1] && c.to_ns === cli(s.from_ns, 1e15).to_ns, `${what}: not to the end: ${c.to_ns}, measure ${m}`);
    assert(c.threads > 3 && c.groups.length >= 3, `${what}: ${c.threads} threads, ${c.groups.length} groups`);
    const groups = got.lines.filter((l) => l.cls === 'group');
    assert(groups.length === c.groups.length, `${what}: ${groups.length} group lines for ${c.groups.length}`);
    c.groups.forEach((g, i) => {
      const l = groups[i];
      assert(l.kind === g.kind && l.label === g.label && +l.threads === g.threads && +l.began === g.began &&
        +l.ended === g.ended && +l.failed === g.failed && +l.totalNs === g.total_ns && +l.p50Ns === g.p50_ns &&
        +l.p99Ns === g.p99_ns && +l.runningNs === g.running_ns && +l.waitingNs === g.waiting_ns,
        `${what}: line ${JSON.stringify(l)} for ${JSON.stringify(g)}`);
      assert(l.text.startsWith((g.kind || '(no kind)') + (g.label ? ' ' + g.label : '') + ': ' + g.threads + ' in range, ' +
        g.began + ' began, ' + g.ended + ' ended, ' + g.failed + ' failed'), `${what}: "${l.text}"`);
    });
    assert(got.lines[0].text.endsWith(`: ${c.threads} async threads, ${c.began} began, ${c.ended} ended, ${c.failed} failed`),
      `${what}: head "${got.lines[0].text}"`);
    assert(/^arrows: /.test(got.lines[got.lines.length - 1].text), `${what}: last line ${got.lines[got.lines.length - 1].text}`);
    // the labels several threads share, most first, 20 at most
    const labels = got.lines.filter((l) => l.cls === 'group label');
    const shared = c.labels.filter((g) => g.threads > 1).slice(0, 20);
    assert(labels.length === shared.length && labels.every((l, i) => l.text.startsWith('label ' + shared[i].label + ': ' +
      shared[i].threads + ' in range') && +l.threads === shared[i].threads), `${what}: labels ${labels.map((l) => l.text)}`);
    // a click on the second group's line: its threads highlighted
    await p.click('#summary div[data-line="2"]');
    await frame(p);
    const picked = await p.evaluate(() => document.getElementById('summary').dataset.picked);
    assert(+picked === c.groups[1].threads, `${what}: ${picked} highlighted, the group has ${c.groups[1].threads}`);
    assert(await p.textContent('#matches') === picked + ' highlighted', await p.textContent('#matches'));
  }
  await p.keyboard.press('Escape');
  await frame(p);
  assert(await p.evaluate(() => document.getElementById('summary').hidden), 'Esc kept the summary');
  await p.close();
});

await test("P: the selected thread's critical path, drawn, its split in the status line with exact durations", async () => {
  const { page: p } = await open('path');
  const MAGENTA = [217, 0, 140];
  await frame(p);
  assert(await pixels(p, MAGENTA) === 0, 'magenta before P');
  // with nothing selected, P says to select a thread
  await p.keyboard.press('p');
  assert(await p.textContent('#status') === 'select a thread for its critical path', await p.textContent('#status'));
  // GET /item/7: the third row (the loop and the db worker above it)
  await clickAt(p, await lineX(p, 2), TOP + 26 * 2 + 13);
  await frame(p);
  assert((await p.textContent('#inspector .head')).startsWith('GET /item/7'), await p.textContent('#inspector .head'));
  await p.keyboard.press('p');
  await frame(p);
  const want = 'critical path of GET /item/7 (3 threads, 600 us): running 170 us, waiting 410 us ' +
    '(on SELECT 7 410 us), ready but not running 20 us (instead ran event loop 20 us)';
  assert(await p.textContent('#status') === want, 'status: ' + await p.textContent('#status'));
  assert((await p.textContent('#inspector .head')).endsWith('\n\n' + want), 'inspector: ' + await p.textContent('#inspector .head'));
  assert(await p.evaluate(() => document.getElementById('view').dataset.path) === '3', 'data-path');
  const m = await pixels(p, MAGENTA);
  assert(m > 500, 'magenta ' + m);
  // P again: off, the status says the trace again
  await p.keyboard.press('p');
  await frame(p);
  assert(await pixels(p, MAGENTA) === 0 && await p.textContent('#status') === 'path.weft', 'still on: ' + await p.textContent('#status'));
  // Esc clears it too
  await p.keyboard.press('p');
  await frame(p);
  assert(await pixels(p, MAGENTA) === m, 'P again: magenta ' + await pixels(p, MAGENTA));
  await p.keyboard.press('Escape');
  await frame(p);
  assert(await pixels(p, MAGENTA) === 0 && await p.textContent('#status') === 'path.weft', 'Esc kept it');
  await p.close();
});

await test('a big trace: a progress bar while it loads, then the picture with its squeezed rows', async () => {
  const s = await context.newPage();
  // every value the progress takes, seen as the page sets it
  await s.addInitScript(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const v = document.getElementById('view');
      if (v && v.dataset.loading !== undefined) window.__progress.push(Number(v.dataset.loading));
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-loading'] });
  });
  const big = need('server.html');
  const t0 = Date.now();
  await s.goto('file://' + big);
  await s.waitForFunction(() => document.getElementById('view').dataset.range, null, { timeout: 60000 });
  const ms = Date.now() - t0;
  const seen = await s.evaluate(() => window.__progress);
  assert(seen.length >= 3, 'progress seen ' + JSON.stringify(seen));
  assert(seen.some((f) => f > 0.2 && f < 1), 'no progress between: ' + JSON.stringify(seen));
  for (let i = 1; i < seen.length; i++) assert(seen[i] >= seen[i - 1], 'progress went back: ' + JSON.stringify(seen));
  assert(await s.evaluate(() => getComputedStyle(document.getElementById('progress')).display) === 'none', 'the bar stays');
  assert(Number(await s.evaluate(() => document.getElementById('view').dataset.rows)) > 100, 'rows');
  // the squeezed rows, one mask: mid grey (0.5) and light grey (0.76)
  assert(await pixels(s, [128, 128, 128]) + await pixels(s, [194, 194, 194]) > 2000, 'no squeezed rows drawn');
  console.log('# 2 M events: first paint ' + ms + ' ms');
  // its loop (row 0) has a hundred thousand entries: the inspector has
  // them all, a page at a time as its list is scrolled
  await clickAt(s, 300, TOP + 13);
  await frame(s);
  const total = Number(await s.getAttribute('#inspector', 'data-entries'));
  const rows = () => s.evaluate(() => document.querySelectorAll('#inspector li').length);
  const first = await rows();
  await s.evaluate(() => { const el = document.getElementById('inspector'); el.scrollTop = el.scrollHeight; });
  await frame(s);
  const then = await rows();
  assert(total > 10000 && first < total && then > first, `entries ${total}: ${first} shown, then ${then}`);
  // scrolled to the end, page after page: every entry, none skipped at
  // a page's end
  // (in the page: some 200 pages, a round trip each would be slow)
  const shown = await s.evaluate(async (total) => {
    const el = document.getElementById('inspector'), ol = el.querySelector('ol');
    for (let last = -1, still = 0; ol.childElementCount < total && still < 3;) {
      el.scrollTop = el.scrollHeight;
      el.dispatchEvent(new Event('scroll'));
      await new Promise((r) => requestAnimationFrame(r));
      still = ol.childElementCount === last ? still + 1 : 0;
      last = ol.childElementCount;
    }
    return ol.childElementCount;
  }, total);
  assert(shown === total, `scrolled to the end: ${shown} of ${total} entries`);
  await s.close();
});

await test('counters are toggled one by one', async () => {
  const c = await open('c');
  const boxes = await c.page.$$('#counterlist input');
  assert(boxes.length === 2, boxes.length + ' counter boxes');
  await frame(c.page); /* (the range is set before the frame that draws them) */
  assert(await pixels(c.page, [255, 102, 102]) > 50 && await pixels(c.page, [255, 127, 0]) > 50, 'counters not drawn');
  await c.page.click('#counters summary');
  await c.page.uncheck('#counterlist input[data-counter="0"]');
  await frame(c.page);
  assert(await pixels(c.page, [255, 102, 102]) === 0, 'alpha still drawn');
  assert(await pixels(c.page, [255, 127, 0]) > 50, 'beta hidden too');
  await c.page.check('#counterlist input[data-counter="0"]');
  await frame(c.page);
  assert(await pixels(c.page, [255, 102, 102]) > 50, 'alpha not back');
  await c.page.close();
});

await test('another trace dropped on the page replaces it', async () => {
  const b64 = fs.readFileSync(need('other.weft')).toString('base64');
  await page.evaluate((data) => {
    const bin = atob(data), u = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([u], 'other.weft'));
    document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, b64);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'other.weft', null, { timeout: 10000 });
  await page.fill('#search', 'GET /index');
  await frame(page);
  assert((await page.textContent('#matches')) === '1 match', 'the dropped trace is not the one shown');
});

await test('a hostile label is text and runs nothing', async () => {
  const h = await open('h');
  await clickAt(h.page, 450, TOP + 13);
  const t = await h.page.textContent('#inspector');
  assert(t.startsWith(HOSTILE), 'inspector: ' + t);
  assert(await h.page.evaluate(() => document.querySelectorAll('img').length) === 0, 'an img was created');
  assert(h.dialogs.length === 0 && dialogs.length === 0, 'a dialog opened');
  assert(!fs.readFileSync(need('h.html'), 'latin1').includes('<img'), 'raw label in the page');
});

await test('a run: a header per process; a click on one collapses its rows, another opens them', async () => {
  if (!fs.existsSync(need('sp.html'))) return; // (built without libuv)
  const p = await open('sp');
  const heads = async () => (await p.page.evaluate(() => document.getElementById('view').dataset.headers))
    .trim().split('\n').map((l) => l.split(' ').map(Number));
  const rows = async () => Number(await p.page.evaluate(() => document.getElementById('view').dataset.rows));
  const h0 = await heads(), r0 = await rows();
  assert(h0.length === 2 && h0.every((h) => h[2] === 0), 'headers: ' + JSON.stringify(h0));
  assert(await pixels(p.page, [204, 214, 237]) > 2000, 'no header bands');
  const [pid, y, , x] = h0[1];
  assert(x > 0 && x < 1200, 'the client\'s header out of sight: ' + JSON.stringify(h0));
  await clickAt(p.page, x, y);
  await frame(p.page);
  const h1 = await heads(), r1 = await rows();
  assert(h1[1][2] === 1 && h1[0][2] === 0 && r1 < r0, `after a click: ${JSON.stringify(h1)}, rows ${r0} -> ${r1}`);
  assert(new RegExp('\\(pid ' + pid + '\\): collapsed').test(await p.page.textContent('#inspector')),
    'inspector: ' + await p.page.textContent('#inspector'));
  await p.page.waitForTimeout(700); // (not a double click)
  await clickAt(p.page, h1[1][3], h1[1][1]);
  await frame(p.page);
  assert((await heads())[1][2] === 0 && (await rows()) === r0, 'not opened again: ' + JSON.stringify(await heads()));
  await p.page.close();
});

await test('sharp on a high-DPI screen: the canvas has devicePixelRatio pixels a CSS pixel', async () => {
  // the same trace in a fresh page at 1x, as the 2x one is fresh
  const p1 = (await open('bad')).page;
  await frame(p1);
  const red1 = await pixels(p1, [204, 0, 0]);
  await p1.close();
  const hi = await browser.newContext({ viewport: { width: 1200, height: 600 }, deviceScaleFactor: 2 });
  await hi.route('**/*', (r) => (r.request().url().startsWith('file:') ? r.continue() : (external++, r.abort())));
  const p2 = await hi.newPage();
  await p2.goto('file://' + need('bad.html'));
  await p2.waitForFunction(() => document.getElementById('view').dataset.range, null, { timeout: 20000 });
  await frame(p2);
  const [cw, w, ch, h] = await p2.evaluate(() => { const c = document.getElementById('view'); return [c.width, c.clientWidth, c.height, c.clientHeight]; });
  assert(cw === 2 * w && ch === 2 * h, `canvas ${cw}x${ch} for ${w}x${h} CSS px`);
  const red2 = await pixels(p2, [204, 0, 0]);
  // the same picture drawn over the whole canvas: about four times the
  // pixels (text glyphs scale unevenly: 5.0x seen), not a quarter of it
  assert(red2 > 3 * red1 && red2 < 6 * red1, `red ${red1} at 1x, ${red2} at 2x`);
  await hi.close();
});

// The page's layout: the toolbar wraps to as many lines as the window's
// width needs (never for its texts: the status, the pointer's time, the
// measure and the range are cut to their room), and the picture takes
// exactly the height left under it -- no page scroll, its bottom at the
// window's, a click on a row's pixel selecting that row -- as the
// window is made narrower and wider again, at 1x and 2x.
await test('the page layout: the picture fills the height under a toolbar of one or two lines, clicks land, no page scroll', async () => {
  const look = (p) => p.evaluate(() => {
    const c = document.getElementById('view'), b = c.getBoundingClientRect(), se = document.scrollingElement;
    return { bar: document.getElementById('bar').getBoundingClientRect().height, top: b.top, bottom: b.bottom,
      h: b.height, w: b.width, cw: c.width, ch: c.height, vh: innerHeight, sh: se.scrollHeight, sch: se.clientHeight, sy: scrollY };
  });
  const { page: p } = await open('bad');
  let one = 0;
  for (const width of [1200, 760, 1200, 480, 760]) {
    await p.setViewportSize({ width, height: 600 });
    await frame(p);
    await frame(p);
    const L = await look(p);
    const at = `at ${width} px: ${JSON.stringify(L)}`;
    if (width === 1200) one = L.bar;
    // (the setup: one line at 1200 px, two at 760)
    if (width === 760) assert(L.bar > 1.6 * one, 'the toolbar is not two lines ' + at);
    if (width === 1200) assert(L.bar < 40, 'the toolbar is not one line ' + at);
    assert(L.sh === L.sch && L.sy === 0, 'the page scrolls ' + at);
    assert(Math.abs(L.bottom - L.vh) < 0.5 && Math.abs(L.top - L.bar) < 0.5, 'the picture is not under the bar to the bottom ' + at);
    assert(L.cw === Math.round(L.w) && L.ch === Math.round(L.h), 'the canvas is not resized ' + at);
    // a click on TCP connect's line (row 2) selects it
    await p.keyboard.press('f');
    await frame(p);
    const y = TOP + 26 * 2 + 13;
    await clickAt(p, await lineX(p, 2), y);
    await frame(p);
    const head = await p.textContent('#inspector');
    assert(head.startsWith('TCP connect'), `the click at row 2 selected ${head.slice(0, 60)} ` + at);
    const L2 = await look(p);
    assert(L2.sh === L2.sch && L2.sy === 0 && L2.top === L.top, 'the click scrolled or moved the picture ' + at);
    // a long status (V: the view's state), a measure, the pointer's time:
    // the bar keeps its height
    await p.keyboard.press('v');
    await p.mouse.move(L.w * 0.3, L.top + 8);
    await p.mouse.down();
    await p.mouse.move(L.w * 0.6, L.top + 8, { steps: 3 });
    await p.mouse.up();
    await frame(p);
    assert((await p.textContent('#status')).startsWith('view: r=') && (await p.textContent('#measure')) && (await p.textContent('#at')), 'the texts (setup)');
    const L3 = await look(p);
    assert(L3.bar === L.bar && L3.top === L.top && L3.h === L.h, `the texts changed the bar: ${JSON.stringify(L3)} ` + at);
    await p.keyboard.press('Escape');
  }
  await p.close();
  // at 2x: the canvas has twice its CSS pixels at each width
  const hi = await browser.newContext({ viewport: { width: 760, height: 600 }, deviceScaleFactor: 2 });
  await hi.route('**/*', (r) => (r.request().url().startsWith('file:') ? r.continue() : (external++, r.abort())));
  const q = await hi.newPage();
  await q.goto('file://' + need('bad.html'));
  await q.waitForFunction(() => document.getElementById('view').dataset.range, null, { timeout: 20000 });
  for (const width of [760, 1200, 760]) {
    await q.setViewportSize({ width, height: 600 });
    await frame(q);
    await frame(q);
    const L = await look(q);
    const at = `at ${width} px, 2x: ${JSON.stringify(L)}`;
    assert(L.sh === L.sch && Math.abs(L.bottom - L.vh) < 0.5, 'the page scrolls ' + at);
    assert(L.cw === Math.round(2 * L.w) && L.ch === Math.round(2 * L.h), 'not sharp ' + at);
  }
  await hi.close();
});

await test('the wasm is deflated in the page (and the page works: every test above)', async () => {
  const html = fs.readFileSync(need('bad.html'), 'utf8');
  const m = /<script type="application\/octet-stream" id="weft-wasm" data-coding="([a-z]*)">([^<]*)<\/script>/.exec(html);
  assert(m, 'no wasm element');
  const raw = fs.statSync(path.join(B, 'viewer/web/weft.wasm')).size;
  const packed = Buffer.from(m[2], 'base64');
  assert(m[1] === 'deflate' && packed.length < 0.6 * raw, `coding '${m[1]}', ${packed.length} bytes for ${raw}`);
  assert(zlib.inflateSync(packed).equals(fs.readFileSync(path.join(B, 'viewer/web/weft.wasm'))), 'inflates to another wasm');
});

// A browser that prefers dark (prefers-color-scheme): the picture dark
// from the start (background 0.1 grey, the page's parts dark too), the
// arrows in their dark colours (hue kept: green, blue, red), none in the
// light ones; T switches to light and back; a change of the preference
// is followed.
await test('dark theme: follows the browser, T switches, the arrows keep their colours', async () => {
  const p = await context.newPage();
  await p.emulateMedia({ colorScheme: 'dark' });
  await p.goto('file://' + need('bad.html'));
  await p.waitForFunction(() => document.getElementById('view').dataset.range, null, { timeout: 20000 });
  await frame(p);
  const th = () => p.getAttribute('#view', 'data-theme');
  assert(await th() === 'dark', 'theme ' + await th());
  const total = await p.evaluate(() => { const c = document.getElementById('view'); return c.width * c.height; });
  assert(await pixels(p, [26, 26, 26]) > total / 2, 'not a dark background: ' + await pixels(p, [26, 26, 26]));
  assert(await pixels(p, [230, 230, 230]) < total / 50, 'light background left');
  assert(await pixels(p, [128, 255, 128]) > 5, 'no green resolve arrow in the dark');
  assert(await pixels(p, [77, 77, 255]) > 5, 'no blue read arrow in the dark');
  assert(await pixels(p, [0, 0, 255]) === 0 && await pixels(p, [0, 128, 0]) === 0, 'light arrow colours in the dark');
  const bg = await p.evaluate(() => getComputedStyle(document.querySelector('.weft-inspector')).backgroundColor);
  assert(bg === 'rgb(30, 30, 30)', 'the inspector stays light: ' + bg);
  await p.keyboard.press('t');
  await frame(p);
  assert(await th() === 'light' && await pixels(p, [230, 230, 230]) > total / 2, 'T did not switch to light');
  assert(await pixels(p, [0, 128, 0]) > 5 && await pixels(p, [0, 0, 255]) > 5, 'no light arrow colours');
  await p.keyboard.press('t');
  await frame(p);
  assert(await th() === 'dark' && await pixels(p, [26, 26, 26]) > total / 2, 'T did not switch back');
  await p.emulateMedia({ colorScheme: 'light' });
  await frame(p);
  assert(await th() === 'light', 'the preference changed to light, the theme did not follow');
  await p.close();
  assert(await page.getAttribute('#view', 'data-theme') === 'light', 'the light page is not light');
});

// The view in the address: kept after '#' as it changes, restored on
// load (range, selection, search, measure), the same state V says and
// `weft render --view` draws: the page opened at that address draws the
// same pixels as the page that made it, and the state's range and
// selection are the PNG's (the picture weft render --view makes has the
// same pixels as weft render with the options it stands for: the
// render-cli test).
await test('the view state: kept in the address, restored on load, said by V', async () => {
  const sig = (p) => p.evaluate(() => {
    const c = document.getElementById('view');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < d.length; i++) h = (h * 31 + d[i]) >>> 0;
    return h + ' ' + c.width + 'x' + c.height;
  });
  const p1 = await context.newPage();
  await p1.goto('file://' + need('bad.html'));
  await p1.waitForFunction(() => document.getElementById('view').dataset.range, null, { timeout: 20000 });
  await frame(p1);
  const st0 = await p1.evaluate(() => location.hash.slice(1));
  assert(/^r=-?\d+,\d+$/.test(st0), 'the address at load: ' + st0);
  // a search, Enter: its match selected and zoomed to; a measure
  await p1.fill('#search', 'tcp connect');
  await p1.press('#search', 'Enter');
  await frame(p1);
  const cb = await p1.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top]; });
  await p1.mouse.move(cb[0] + 400, cb[1] + 8);
  await p1.mouse.down();
  await p1.mouse.move(cb[0] + 500, cb[1] + 8, { steps: 4 });
  await p1.mouse.up();
  // the pointer off the picture (over the inspector): its mark on the
  // ruler is no part of the view's state, and the new page has none.
  // (This case once passed only because the toolbar, wrapped by the
  // measure's text, pushed the picture down from under the pointer.)
  await p1.mouse.move(cb[0] + await p1.evaluate(() => document.getElementById('view').clientWidth) + 60, cb[1] + 300);
  await frame(p1);
  await p1.evaluate(() => document.activeElement.blur()); // (keys to the page)
  await frame(p1);
  const st = await p1.evaluate(() => location.hash.slice(1));
  assert(/^r=-?\d+,\d+&m=\d+,\d+&sel=\d+/.test(st) && st.includes('&q=tcp%20connect'), 'the address after: ' + st);
  assert(st === await p1.getAttribute('#view', 'data-state'), 'data-state is not the address');
  await p1.keyboard.press('v');
  assert(await p1.textContent('#status') === 'view: ' + st, 'V says ' + await p1.textContent('#status'));
  const [range1, s1] = [await range(p1), await sig(p1)];
  const head1 = await p1.textContent('#inspector .head');
  // a new page at that address: the same view, the same pixels
  const p2 = await context.newPage();
  await p2.goto('file://' + need('bad.html') + '#' + st);
  await p2.waitForFunction(() => document.getElementById('view').dataset.range, null, { timeout: 20000 });
  await frame(p2);
  await frame(p2);
  assert((await range(p2)).join(' ') === range1.join(' '), `range ${await range(p2)} not ${range1}`);
  assert(await p2.inputValue('#search') === 'tcp connect', 'search box: ' + await p2.inputValue('#search'));
  assert(await p2.textContent('#inspector .head') === head1, 'inspector: ' + await p2.textContent('#inspector .head'));
  assert(await p2.evaluate(() => location.hash.slice(1)) === st, 'the address changed on load');
  // (the same canvas first: the pixels of two sizes differ anyway)
  const s2 = await sig(p2);
  assert(s2.split(' ')[1] === s1.split(' ')[1], `canvas ${s2.split(' ')[1]} restored, ${s1.split(' ')[1]} before`);
  assert(s2 === s1, 'other pixels');
  // the address changed by hand: followed
  await p2.evaluate(() => { location.hash = '#r=0,20000'; });
  await p2.waitForFunction(() => document.getElementById('view').dataset.range.startsWith(''), null);
  await frame(p2);
  const [a, b] = await range(p2);
  const [t0] = (await p2.getAttribute('#view', 'data-extent')).split(' ').map(Number);
  assert(a - t0 === 0 && b - t0 === 20000, `hashchange: ${a - t0}..${b - t0}`);
  assert(await p2.inputValue('#search') === '' && await p2.textContent('#inspector') === 'click a thread to inspect it', 'not reset');
  // a state it cannot read: said, nothing changes
  await p2.evaluate(() => { location.hash = '#r=0,20000&sel=99999'; });
  await frame(p2);
  assert((await p2.textContent('#status')).includes("bad view state at 'sel'"), 'status: ' + await p2.textContent('#status'));
  await p1.close();
  await p2.close();
});

// Bookmarks: B at the pointer asks for a note and drops a flag there
// (drawn in brown), listed under "bookmarks" with its time and note; ]
// and [ go to them; kept in the address, and restored from it.
await test('bookmarks: B drops one at the pointer with a note; listed, gone to, kept in the address', async () => {
  const p = await context.newPage();
  await p.goto('file://' + need('bad.html'));
  await p.waitForFunction(() => document.getElementById('view').dataset.range, null, { timeout: 20000 });
  await frame(p);
  assert(await p.isHidden('.weft-bookmarks'), 'a bookmarks menu with none');
  const notes = ['first look', ''];
  p.on('dialog', (d) => d.accept(notes.shift()));
  const brown = async () => pixels(p, [115, 64, 0]);
  const b0 = await brown();
  const box = await p.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top]; });
  await p.mouse.move(box[0] + 700, box[1] + 150);
  await p.keyboard.press('b');
  await p.mouse.move(box[0] + 300, box[1] + 150);
  await p.keyboard.press('b');
  await frame(p);
  assert(await p.getAttribute('#view', 'data-bookmarks') === '2', 'bookmarks: ' + await p.getAttribute('#view', 'data-bookmarks'));
  assert(await brown() > b0 + 200, `no flags drawn: ${b0} -> ${await brown()}`);
  const items = await p.$$eval('.weft-marklist div', (l) => l.map((x) => x.textContent));
  assert(items.length === 2 && /^1\. [0-9.]+ (ns|us|ms|s)$/.test(items[0]) && /^2\. [0-9.]+ (ns|us|ms|s)  first look$/.test(items[1]), 'list: ' + items.join(' | '));
  const st = await p.evaluate(() => location.hash.slice(1));
  assert(/&b=\d+:,\d+:first%20look$/.test(st), 'address: ' + st);
  // ] and [ centre the view on them, from the view's centre, round (the
  // one at 700 px is after the centre, the one at 300 px before)
  const mid = async () => { const [a, b] = await range(p); return (a + b) / 2; };
  const m = st.match(/&b=(\d+):,(\d+):/);
  // (the list's times are the flags', as the ruler writes times)
  const [r0, r1] = await range(p);
  for (const k of [1, 2])
    assert(Math.abs(nsOf(items[k - 1].slice(3).replace(/  first look$/, '')) - Number(m[k])) <= (r1 - r0) / 1000, `list ${items} for ${m}`);
  const [t0] = (await p.getAttribute('#view', 'data-extent')).split(' ').map(Number);
  const at = async (k, what) => {
    await frame(p);
    const got = await mid() - t0;
    assert(Math.abs(got - Number(m[k])) <= 1, `${what} went to ${got}, not ${m[k]}`);
  };
  await p.keyboard.press(']');
  await at(2, ']');
  await p.keyboard.press(']');
  await at(1, '] round');
  await p.keyboard.press('[');
  await at(2, '[ round');
  // a click on the list's first entry goes there
  await p.click('.weft-bookmarks summary');
  await p.click('.weft-marklist div:nth-child(1)');
  await at(1, 'the list');
  // a new page at the address has them
  const st2 = await p.evaluate(() => location.hash.slice(1));
  const q = await context.newPage();
  await q.goto('file://' + need('bad.html') + '#' + st2);
  await q.waitForFunction(() => document.getElementById('view').dataset.bookmarks === '2', null, { timeout: 20000 });
  const items2 = await q.$$eval('.weft-marklist div', (l) => l.map((x) => x.textContent));
  assert(items2.join('|') === items.join('|'), 'restored: ' + items2.join(' | '));
  // a cancelled prompt drops none
  p.removeAllListeners('dialog');
  p.on('dialog', (d) => d.dismiss());
  await p.keyboard.press('b');
  await frame(p);
  assert(await p.getAttribute('#view', 'data-bookmarks') === '2', 'a cancelled note dropped one');
  await p.close();
  await q.close();
});

// Several viewers in one page: the runtime (weft html --embed-runtime)
// once, a script a trace (--embed), three <div class="weft-viewer">s in a
// page taller than the window.
const EMB = path.join(T, 'emb');
// (made by embed(), on first use; its error said by the tests)
let embedError = null, embedMade = false;
function embed() {
  if (embedMade) return;
  embedMade = true;
  try {
    fs.mkdirSync(EMB);
    run(W, ['html', '--embed-runtime', '-o', path.join(EMB, 'weft-viewer.js')]);
    run(W, ['html', '--embed', 'bad.weft', '-o', path.join(EMB, 'bad.js')]);
    run(W, ['html', '--embed', 'other.weft', '--name', 'all', '-o', path.join(EMB, 'all.js')]);
    need('c.weft');
    run(W, ['html', '--embed', 'c.weft', '--counters', 'beta', '-o', path.join(EMB, 'c.js')]);
    const para = (h) => `<p style="height:${h}px">Some text of the article.</p>\n`;
    // (one trace's script before the runtime, two after the viewers: each
    // viewer waits for its trace)
    fs.writeFileSync(path.join(EMB, 'page.html'), '<!DOCTYPE html>\n<html><head><meta charset="utf-8">\n' +
      '<script src="bad.js"></script>\n<script src="weft-viewer.js"></script>\n</head><body>\n<h1>Three viewers</h1>\n' +
      para(250) + '<div class="weft-viewer" data-trace="bad"></div>\n' + para(300) +
      '<div class="weft-viewer" data-trace="all"></div>\n' + para(300) +
      '<div class="weft-viewer" data-trace="c" style="height: 300px"></div>\n' + para(900) +
      '<script src="all.js"></script>\n<script src="c.js"></script>\n</body></html>\n');
  } catch (e) { embedError = e; }
}
// the page of three, every viewer drawn; the window's own names noted
// before any script ran
async function openEmbed() {
  embed();
  assert(!embedError, 'weft html --embed: ' + embedError);
  const p = await context.newPage();
  await p.addInitScript(() => {
    window.__names = Object.getOwnPropertyNames(window);
    window.__compiled = 0;
    window.__instances = 0;
    const c = WebAssembly.compile, i = WebAssembly.instantiate;
    WebAssembly.compile = function (...a) { window.__compiled++; return c.apply(this, a); };
    WebAssembly.instantiate = function (...a) { window.__instances++; return i.apply(this, a); };
  });
  await p.goto('file://' + path.join(EMB, 'page.html'));
  await p.waitForFunction(() => [...document.querySelectorAll('.weft-viewer canvas')].filter((c) => c.dataset.range).length === 3,
    null, { timeout: 20000 });
  return p;
}
const viewers = (p) => p.evaluate(() => [...document.querySelectorAll('.weft-viewer canvas')]
  .map((c) => [c.dataset.range.split(' ').map(Number), c.dataset.extent.split(' ').map(Number)]));
// pixels of a colour in viewer k's canvas
const vpixels = (p, k, c) => p.evaluate(([k, c]) => {
  const cv = document.querySelectorAll('.weft-viewer canvas')[k];
  const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4)
    if (Math.abs(d[i] - c[0]) < 16 && Math.abs(d[i + 1] - c[1]) < 16 && Math.abs(d[i + 2] - c[2]) < 16) n++;
  return n;
}, [k, c]);

await test('embedded: three viewers in a page share one wasm module, with no ids or globals of their own', async () => {
  const p = await openEmbed();
  // every viewer drew its own trace
  for (let k = 0; k < 3; k++) assert(await vpixels(p, k, [230, 230, 230]) > 1000, 'viewer ' + k + ' drew nothing');
  assert(await p.evaluate(() => document.querySelectorAll('.weft-viewer .weft-status')[1].textContent) === 'other.weft', 'viewer 2 shows another trace');
  // the wasm's bytes once: in the runtime, not in a trace's script
  const raw = fs.statSync(path.join(B, 'viewer/web/weft.wasm')).size;
  const rt = fs.readFileSync(path.join(EMB, 'weft-viewer.js'), 'utf8');
  const m = /WeftViewer\.wasm\('deflate', '([A-Za-z0-9+/=]+)'\)/.exec(rt);
  assert(m, 'no wasm in the runtime');
  assert(zlib.inflateSync(Buffer.from(m[1], 'base64')).equals(fs.readFileSync(path.join(B, 'viewer/web/weft.wasm'))), 'another wasm');
  const probe = m[1].slice(1000, 1200);
  let total = 0, copies = 0;
  for (const f of ['bad.js', 'all.js', 'c.js', 'weft-viewer.js']) {
    const t = fs.readFileSync(path.join(EMB, f), 'utf8');
    total += t.length;
    copies += t.split(probe).length - 1;
  }
  assert(copies === 1, copies + ' copies of the wasm in the scripts');
  assert(total < raw, `the page's scripts are ${total} bytes, the wasm alone ${raw}`);
  // compiled once, instantiated once per viewer
  const [compiled, instances] = await p.evaluate(() => [window.__compiled, window.__instances]);
  assert(compiled === 1 && instances === 3, `compiled ${compiled}, instantiated ${instances}`);
  // no element ids, one name added to the window
  assert(await p.evaluate(() => document.querySelectorAll('.weft-viewer [id]').length) === 0, 'ids in the viewers');
  const added = await p.evaluate(() => Object.getOwnPropertyNames(window).filter((x) => !window.__names.includes(x) && !x.startsWith('__')));
  assert(added.length === 1 && added[0] === 'WeftViewer', 'globals: ' + added.join(' '));
  await p.close();
});

await test('embedded: wheel and keys act on the viewer that has the focus; the page scrolls past the others', async () => {
  const p = await openEmbed();
  const before = await viewers(p);
  // viewer 2 in sight, clicked (focused): the wheel zooms it, W too
  const box = async (k) => p.evaluate((k) => {
    const b = document.querySelectorAll('.weft-viewer canvas')[k].getBoundingClientRect();
    return [b.left, b.top, b.width, b.height];
  }, k);
  await p.evaluate(() => document.querySelectorAll('.weft-viewer')[1].scrollIntoView());
  await frame(p);
  const y0 = await p.evaluate(() => window.scrollY);
  let b = await box(1);
  await p.mouse.click(b[0] + b[2] / 2, b[1] + b[3] - 20);
  assert(await p.evaluate(() => document.activeElement === document.querySelectorAll('.weft-viewer')[1]), 'the click did not focus viewer 2');
  await p.mouse.wheel(0, -300);
  await frame(p);
  const after = await viewers(p);
  const [[a0, a1]] = [before[1][0]], [c0, c1] = after[1][0];
  assert(c1 - c0 < a1 - a0, `viewer 2 not zoomed: ${a0}..${a1} -> ${c0}..${c1}`);
  assert(await p.evaluate(() => window.scrollY) === y0, 'the page scrolled under the focused viewer');
  await p.keyboard.press('w');
  await frame(p);
  const [d0, d1] = (await viewers(p))[1][0];
  assert(d1 - d0 < c1 - c0, `W did not zoom viewer 2: ${c0}..${c1} -> ${d0}..${d1}`);
  // viewers 1 and 3 kept their ranges
  let now = await viewers(p);
  for (const k of [0, 2]) assert(now[k][0].join(' ') === before[k][0].join(' '), `viewer ${k + 1} moved: ${before[k][0]} -> ${now[k][0]}`);
  // the wheel over viewer 1, which has not the focus: the page scrolls,
  // the viewer keeps its range
  await p.evaluate(() => window.scrollTo(0, 0));
  await frame(p);
  b = await box(0);
  await p.mouse.move(b[0] + b[2] / 2, Math.min(b[1] + b[3] / 2, 580));
  await p.mouse.wheel(0, 300);
  await p.waitForFunction(() => window.scrollY > 0, null, { timeout: 5000 }).catch(() => {});
  await frame(p);
  assert(await p.evaluate(() => window.scrollY) > 0, 'the page did not scroll over an unfocused viewer');
  now = await viewers(p);
  assert(now[0][0].join(' ') === before[0][0].join(' '), `viewer 1 moved: ${before[0][0]} -> ${now[0][0]}`);
  assert((await viewers(p))[1][0].join(' ') === [d0, d1].join(' '), 'viewer 2 moved');
  // a key goes to the focused viewer only (still viewer 2)
  await p.keyboard.press('f');
  await frame(p);
  now = await viewers(p);
  assert(now[0][0].join(' ') === before[0][0].join(' ') && now[2][0].join(' ') === before[2][0].join(' '), 'F reached another viewer');
  assert(now[1][0].join(' ') === before[1][0].join(' '), 'F did not fit viewer 2');
  await p.close();
});

// In an embedded viewer (420 px high) the help fits its box: inside the
// viewer, scrolling within itself if it must.
await test('embedded: the help fits the viewer\'s box', async () => {
  const p = await openEmbed();
  for (const k of [0, 2]) {
    await p.evaluate((k) => document.querySelectorAll('.weft-viewer')[k].scrollIntoView(), k);
    await p.evaluate((k) => document.querySelectorAll('.weft-viewer .weft-keys')[k].click(), k);
    const [v, h, sh, ch] = await p.evaluate((k) => {
      const r = document.querySelectorAll('.weft-viewer')[k].getBoundingClientRect();
      const el = document.querySelectorAll('.weft-viewer .weft-help')[k];
      const b = el.getBoundingClientRect();
      return [[r.left, r.top, r.right, r.bottom], [b.left, b.top, b.right, b.bottom], el.scrollHeight, el.clientHeight];
    }, k);
    assert(h[2] > h[0] && h[0] >= v[0] && h[1] >= v[1] && h[2] <= v[2] && h[3] <= v[3],
      `viewer ${k + 1}: the help ${h} is not inside ${v}`);
    assert(sh <= ch || await p.evaluate((k) => getComputedStyle(document.querySelectorAll('.weft-viewer .weft-help')[k]).overflowY === 'auto', k),
      'the help is cut');
    await p.evaluate((k) => document.querySelectorAll('.weft-viewer .weft-keys')[k].click(), k);
    assert(await p.evaluate((k) => document.querySelectorAll('.weft-viewer .weft-help')[k].hidden, k), 'not hidden again');
  }
  await p.close();
});

// An embedded viewer's picture stays put while its times grow longer
// (a deep zoom into a trace of 0.37 s: "190.755 033 ms .. 191.227 905 ms
// (472.872 us)", the pointer's time, a measure, a long status): the bar
// wraps only for the window's width, never for its texts.  (Before, at
// 1200 px, the pointer's time on the ruler wrapped the bar, the picture
// jumped down from under the pointer, the time went and the bar
// unwrapped: a flicker.)
await test('embedded: the picture does not move when the times get longer', async () => {
  embed();
  assert(!embedError, 'weft html --embed: ' + embedError);
  need('small.weft');
  run(W, ['html', '--embed', 'small.weft', '-o', path.join(EMB, 'small.js')]);
  fs.writeFileSync(path.join(EMB, 'one.html'), '<!DOCTYPE html>\n<html><head><meta charset="utf-8">\n' +
    '<script src="weft-viewer.js"></script>\n</head><body>\n<p style="height:40px">Text.</p>\n' +
    '<div class="weft-viewer" data-trace="small"></div>\n<p style="height:900px">More.</p>\n' +
    '<script src="small.js"></script>\n</body></html>\n');
  for (const width of [1200, 800]) {
    const p = await context.newPage();
    await p.setViewportSize({ width, height: 600 });
    await p.goto('file://' + path.join(EMB, 'one.html'));
    await p.waitForFunction(() => document.querySelector('.weft-viewer canvas').dataset.range, null, { timeout: 20000 });
    await frame(p);
    const look = () => p.evaluate(() => {
      const v = document.querySelector('.weft-viewer'), c = v.querySelector('canvas'), t = (k) => v.querySelector('.weft-' + k).textContent;
      return { top: c.getBoundingClientRect().top - v.getBoundingClientRect().top, h: c.clientHeight, range: t('range'), at: t('at'), measure: t('measure'), status: t('status') };
    });
    const L0 = await look();
    const b = await p.evaluate(() => { const r = document.querySelector('.weft-viewer canvas').getBoundingClientRect(); return [r.left, r.top, r.width]; });
    const same = async (what) => {
      await frame(p);
      const L = await look();
      assert(L.top === L0.top && L.h === L0.h, `at ${width} px, ${what}: the picture moved from ${L0.top} (${L0.h} high) to ${L.top} (${L.h}): ${JSON.stringify(L)}`);
      return L;
    };
    await p.mouse.click(b[0] + b[2] * 0.6, b[1] + 200); // (the focus)
    for (let i = 0; i < 30; i++) await p.keyboard.press('w');
    const L1 = await same('zoomed in');
    await p.mouse.move(b[0] + b[2] * 0.3, b[1] + 8);
    const L2 = await same('the pointer on the ruler');
    await p.mouse.down();
    await p.mouse.move(b[0] + b[2] * 0.5, b[1] + 8, { steps: 3 });
    await p.mouse.up();
    const L3 = await same('measured');
    await p.keyboard.press('v');
    const L4 = await same('V');
    // (the setup: the times did grow longer)
    assert(L1.range.length > L0.range.length + 10 && /\d \d/.test(L1.range) && L2.at && L3.measure && L4.status.startsWith('view: '),
      `the texts (setup): ${JSON.stringify([L0, L1, L2, L3, L4])}`);
    await p.close();
  }
});

await test('embedded: a finger over a viewer without the focus leaves it; after Esc in its search box the keys stay with it', async () => {
  const p = await openEmbed();
  const before = await viewers(p);
  await p.evaluate(() => document.querySelectorAll('.weft-viewer')[2].scrollIntoView());
  await frame(p);
  const b = await p.evaluate(() => { const r = document.querySelectorAll('.weft-viewer canvas')[2].getBoundingClientRect(); return [r.left, r.top]; });
  const cdp = await context.newCDPSession(p);
  const touch = (type, pts) => cdp.send('Input.dispatchTouchEvent', {
    type, touchPoints: pts.map(([x, y], id) => ({ x: b[0] + x, y: b[1] + y, id })),
  });
  // (up and a little to the right: the page scrolls; a focused viewer
  // would pan in time)
  const y0 = await p.evaluate(() => window.scrollY);
  await touch('touchStart', [[400, 250]]);
  for (let i = 1; i <= 10; i++) await touch('touchMove', [[400 + 6 * i, 250 - 20 * i]]);
  await touch('touchEnd', []);
  await frame(p);
  assert((await viewers(p))[2][0].join(' ') === before[2][0].join(' '), 'a finger dragged an unfocused viewer');
  await p.waitForFunction((y) => window.scrollY > y, y0, { timeout: 3000 }).catch(() => {});
  assert(await p.evaluate(() => window.scrollY) > y0, 'the page did not scroll under the finger');
  // the search box of viewer 2: text, then Esc; W then zooms viewer 2
  const v2 = p.locator('.weft-viewer').nth(1);
  await v2.locator('.weft-search').fill('disk on fire');
  await frame(p);
  assert(await v2.locator('.weft-matches').textContent() === '1 match', 'search in viewer 2: ' + await v2.locator('.weft-matches').textContent());
  assert(await p.locator('.weft-viewer').nth(0).locator('.weft-matches').textContent() === '', 'the search reached viewer 1');
  await v2.locator('.weft-search').press('Escape');
  await p.keyboard.press('w');
  await frame(p);
  const [a0, a1] = before[1][0], [c0, c1] = (await viewers(p))[1][0];
  assert(c1 - c0 < a1 - a0, 'W after Esc did not zoom viewer 2');
  await p.close();
});

await test('--start and --duration give the first range (the page, an embedded trace, data-start)', async () => {
  embed();
  assert(!embedError, 'weft html --embed: ' + embedError);
  const p = await openEmbed();
  const [, [t0, t1]] = (await viewers(p))[0];
  await p.close();
  const len = t1 - t0, s = Math.floor(len / 4), d = Math.floor(len / 3);
  assert(len > 1000, 'trace of ' + len + ' ns');
  const check = async (pg, sel, what) => {
    const [r, e] = await pg.evaluate((sel) => { const c = document.querySelector(sel); return [c.dataset.range, c.dataset.extent]; }, sel);
    const [a, b] = r.split(' ').map(Number), [e0] = e.split(' ').map(Number);
    assert(Math.abs(a - e0 - s) <= 1 && Math.abs(b - a - d) <= 1, `${what}: range ${a - e0}..${b - e0} from the start, asked ${s} for ${d}`);
  };
  // the standalone page
  run(W, ['html', 'bad.weft', '--start', s + 'ns', '--duration', d + 'ns', '-o', 'bad-range.html']);
  const q = (await open('bad-range')).page;
  await check(q, '#view', 'weft html --start');
  await q.close();
  // an embedded trace, and a page's data-start and data-duration (in us)
  run(W, ['html', '--embed', 'bad.weft', '--start', s + 'ns', '--duration', d + 'ns', '-o', path.join(EMB, 'bad.js')]);
  const html = fs.readFileSync(path.join(EMB, 'page.html'), 'utf8');
  fs.writeFileSync(path.join(EMB, 'range.html'), html.replace('data-trace="c"',
    `data-trace="bad" data-start="${(s / 1e3).toFixed(3)}us" data-duration="${(d / 1e3).toFixed(3)}us"`));
  const r = await context.newPage();
  await r.goto('file://' + path.join(EMB, 'range.html'));
  await r.waitForFunction(() => [...document.querySelectorAll('.weft-viewer canvas')].filter((c) => c.dataset.range).length === 3, null, { timeout: 20000 });
  await check(r, '.weft-viewer:nth-of-type(1) canvas', 'weft html --embed --start');
  const [a, b] = await r.evaluate(() => document.querySelectorAll('.weft-viewer canvas')[2].dataset.range.split(' ').map(Number));
  const [e0] = await r.evaluate(() => document.querySelectorAll('.weft-viewer canvas')[2].dataset.extent.split(' ').map(Number));
  assert(Math.abs(a - e0 - s) <= 1 && Math.abs(b - a - d) <= 1, `data-start: ${a - e0}..${b - e0}, asked ${s} for ${d}`);
  await r.close();
  run(W, ['html', '--embed', 'bad.weft', '-o', path.join(EMB, 'bad.js')]);
  // past the end of the trace: an error, as weft render says
  let err = '';
  try { run(W, ['html', 'bad.weft', '--start', '1000s', '-o', 'x.html']); } catch (e) { err = String(e.stderr); }
  assert(/--start 1000 s is past the end of the trace/.test(err), 'no error for --start past the end: ' + err);
});

await test('--counters shows only the counters named (the page, an embedded trace)', async () => {
  const ALPHA = [255, 102, 102], BETA = [255, 127, 0];
  const p = await openEmbed();
  assert(await vpixels(p, 2, ALPHA) === 0 && await vpixels(p, 2, BETA) > 50, 'embedded --counters beta: alpha drawn or beta not');
  const checks = await p.evaluate(() => [...document.querySelectorAll('.weft-viewer')[2].querySelectorAll('.weft-counterlist input')].map((c) => c.checked));
  assert(checks.join(' ') === 'false true', 'check boxes ' + checks);
  await p.close();
  need('c.weft');
  run(W, ['html', 'c.weft', '--counters', 'alpha', '-o', 'c-alpha.html']);
  const q = (await open('c-alpha')).page;
  assert(await pixels(q, ALPHA) > 50 && await pixels(q, BETA) === 0, 'page --counters alpha: beta drawn or alpha not');
  await q.check('#counterlist input[data-counter="1"]').catch(async () => { await q.click('#counters summary'); await q.check('#counterlist input[data-counter="1"]'); });
  await frame(q);
  assert(await pixels(q, BETA) > 50, 'beta not shown when checked');
  await q.close();
  let err = '';
  try { run(W, ['html', 'c.weft', '--counters', 'alpha,gamma', '-o', 'x.html']); } catch (e) { err = String(e.stderr); }
  assert(/no counter 'gamma'/.test(err), 'no error for an unknown counter: ' + err);
});

// Two runs of arp, good and bad: compared (traces_pair's rule), one page.
const pairHtml = spawnSync(W, ['html', 'good.weft', 'bad.weft', '-o', 'pair.html'], { cwd: T, encoding: 'utf8' });
// the pixels of colour rgb in canvas rows [y0, y1)
const pixelsIn = (page, rgb, y0, y1) => page.evaluate(([c, y0, y1]) => {
  const cv = document.getElementById('view');
  const d = cv.getContext('2d').getImageData(0, y0, cv.width, y1 - y0).data;
  let k = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - c[0]) < 16 && Math.abs(d[i + 1] - c[1]) < 16 && Math.abs(d[i + 2] - c[2]) < 16) k++;
  }
  return k;
}, [rgb, y0, y1]);
// the middle of the longest stretch of what is not background on canvas row y
const lineAt = (page, y) => page.evaluate((y) => {
  const cv = document.getElementById('view');
  const d = cv.getContext('2d').getImageData(0, y, cv.width, 1).data;
  let best = [0, 0];
  for (let i = 0, run = 0; i < cv.width; i++) {
    const on = !(d[4 * i] === 230 && d[4 * i + 1] === 230 && d[4 * i + 2] === 230);
    run = on ? run + 1 : 0;
    if (run > best[1]) best = [i - run + 1, run];
  }
  return best[0] + best[1] / 2;
}, y);
const ranges = async (page) => page.evaluate(() => {
  const c = document.getElementById('view');
  return [c.dataset.range, c.dataset.range2].map((r) => (r || '').split(' ').map(Number));
});
const STRIP = 18; // (the strip naming a run, over its half: src/render/pair.h)
const halves = (page) => page.evaluate(() => { const c = document.getElementById('view'); return [c.height, Math.floor(c.clientHeight / 2)]; });

await test('weft html GOOD BAD: "comparing", both halves drawn, the first divergence marked in both and said', async () => {
  assert(pairHtml.status === 0, 'exit ' + pairHtml.status + ': ' + pairHtml.stderr);
  assert(/^weft: comparing good\.weft with bad\.weft: two runs of arp \(--merge reads them as one run\)$/m.test(pairHtml.stderr), 'no note: ' + pairHtml.stderr);
  const q = (await open('pair')).page;
  const [H, mid] = await halves(q);
  const dpr = H / (2 * mid) > 1.5 ? 2 : 1, m = mid * dpr;
  // each half: its strip (the run's name) and the divergence's line
  const STRIPC = [64, 77, 115], DIV = [204, 0, 204];
  const s0 = await pixelsIn(q, STRIPC, 0, STRIP * dpr), s1 = await pixelsIn(q, STRIPC, m, m + STRIP * dpr);
  const d0 = await pixelsIn(q, DIV, STRIP * dpr, m), d1 = await pixelsIn(q, DIV, m + STRIP * dpr, H);
  assert(s0 > 1000 && s1 > 1000, `strips: ${s0} ${s1} pixels`);
  assert(d0 > 100 && d1 > 100, `divergence marks: ${d0} above, ${d1} below`);
  const st = await q.evaluate(() => document.getElementById('status').textContent);
  assert(/^first divergence: a wait on ARP response .* opposite orders$/.test(st), 'status: ' + st);
  const [[a, b], [c, d]] = await ranges(q);
  assert(b > a && d > c && b - a === d - c, `ranges ${a}..${b} and ${c}..${d}`);
  await q.close();
});

await test('weft html GOOD BAD: a wheel zoom in either half, a pan and F act on both halves alike', async () => {
  const q = (await open('pair')).page;
  const [, mid] = await halves(q);
  const r = await q.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top]; });
  const [[a, b], [c, d]] = await ranges(q);
  for (const y of [mid + 120, 120]) { // the bad half, then the good one
    const [[a0, b0], [c0, d0]] = await ranges(q);
    await q.mouse.move(r[0] + 400, r[1] + y);
    await q.mouse.wheel(0, -300);
    await frame(q);
    const [[a1, b1], [c1, d1]] = await ranges(q);
    assert(b1 - a1 < (b0 - a0) * 0.7 && b1 - a1 === d1 - c1, `zoom at y ${y}: ${a0}..${b0} -> ${a1}..${b1}, ${c0}..${d0} -> ${c1}..${d1}`);
    assert(c1 - a1 === c0 - a0, `zoom at y ${y}: the halves' offsets differ, ${c0 - a0} then ${c1 - a1}`);
  }
  const [[a1, b1], [c1, d1]] = await ranges(q);
  await q.mouse.wheel(200, 0);
  await frame(q);
  const [[a2, b2], [c2, d2]] = await ranges(q);
  assert(a2 > a1 && a2 - a1 === c2 - c1 && b2 - a2 === b1 - a1 && d2 - c2 === d1 - c1, `pan: ${a1}..${b1} -> ${a2}..${b2}, ${c1}..${d1} -> ${c2}..${d2}`);
  await q.keyboard.press('f');
  await frame(q);
  const [[e, f], [g, h]] = await ranges(q);
  assert(e === a && f === b && g === c && h === d, 'F does not fit both back');
  await q.close();
});

await test('weft html GOOD BAD: a click on a thread in one half selects its partner in the other', async () => {
  const q = (await open('pair')).page;
  const [H, mid] = await halves(q);
  const dpr = H / (2 * mid) > 1.5 ? 2 : 1;
  const shot = (y0, y1) => q.evaluate(([y0, y1]) => { const cv = document.getElementById('view'); return Array.from(cv.getContext('2d').getImageData(0, y0, cv.width, y1 - y0).data); }, [y0 * dpr, y1 * dpr]);
  const inspector = () => q.evaluate(() => document.getElementById('inspector').textContent);
  const rowY = [];
  for (const [side, top] of [[1, mid + STRIP], [0, STRIP]]) {
    // TCP connect's row in this half, found by clicking each row (the
    // layout of a run places a brief thread by its times: in the good
    // run, the third row or another one, by how long the machine took
    // to start it)
    let y = -1;
    for (let r = 0; r < 8 && y < 0; r++) {
      const yr = top + TOP + 26 * r + 13;
      await clickAt(q, await lineAt(q, yr * dpr) / dpr, yr);
      await frame(q);
      if ((await inspector()).startsWith('TCP connect')) y = yr;
      await q.keyboard.press('Escape');
      await frame(q);
    }
    assert(y >= 0, `side ${side}: no row of TCP connect`);
    rowY[side] = y;
    const [o0, o1] = side ? [0, mid] : [mid, 2 * mid];
    const before = await shot(o0, o1);
    await clickAt(q, await lineAt(q, y * dpr) / dpr, y);
    await frame(q);
    const after = await shot(o0, o1);
    let changed = 0;
    for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) changed++;
    const ins = await q.evaluate(() => { const el = document.getElementById('inspector'); return [el.textContent, el.dataset.side, el.dataset.partner]; });
    const other = side ? 'good' : 'bad';
    assert(ins[0].startsWith('TCP connect') && ins[0].includes(`its partner in the ${other} run: TCP connect`), `side ${side}: inspector says ${ins[0].slice(0, 300)}`);
    assert(ins[1] === String(side) && Number(ins[2]) >= 0, `side ${side}: data-side ${ins[1]}, data-partner ${ins[2]}`);
    assert(changed > 100, `side ${side}: the other half did not change (${changed})`);
    await q.keyboard.press('Escape');
    await frame(q);
  }
  // L lines the runs up at the selected thread and its partner (the GTK
  // viewer's L): each half's range moves so that TCP connect's creation
  // is at one x; with nothing selected, back as at first: lined up at
  // the first divergence
  const ranges = () => q.evaluate(() => { const c = document.getElementById('view'); return [c.dataset.range, c.dataset.range2]; });
  const y = rowY[0];
  await clickAt(q, await lineAt(q, y * dpr) / dpr, y);
  await frame(q);
  const r0 = await ranges();
  await q.keyboard.press('l');
  await frame(q);
  const r1 = await ranges();
  const st = await q.evaluate(() => document.getElementById('status').textContent);
  assert(st === 'align: TCP connect', 'L says ' + st);
  assert(r1[0] !== r0[0] || r1[1] !== r0[1], 'L moved nothing: ' + r0 + ' ' + r1);
  await q.keyboard.press('Escape');
  await q.keyboard.press('l');
  await frame(q);
  assert(await q.evaluate(() => document.getElementById('status').textContent) === 'align: the first divergence', 'L with nothing selected');
  const r2 = await ranges();
  assert(r2[0] === r0[0] && r2[1] === r0[1], 'L with nothing selected: not back as at first: ' + r0 + ' ' + r2);
  await q.close();
});

await test('weft html GOOD BAD --merge: one run, merged, as before; --compare is not for --embed', async () => {
  const m = spawnSync(W, ['html', 'good.weft', 'bad.weft', '--merge', '-o', 'merged.html'], { cwd: T, encoding: 'utf8' });
  assert(m.status === 0 && /^weft: merging good\.weft and bad\.weft as one run: as asked \(--compare compares them\)$/m.test(m.stderr), `exit ${m.status}: ${m.stderr}`);
  const q = (await open('merged')).page;
  const ds = await q.evaluate(() => { const c = document.getElementById('view'); return [c.dataset.range2, c.dataset.divergence, document.getElementById('status').textContent]; });
  assert(ds[0] === undefined && ds[1] === undefined && ds[2] === 'good.weft', 'merged page: ' + ds);
  const strip = await pixelsIn(q, [64, 77, 115], 0, STRIP);
  assert(strip < 1000, 'a strip over the merged view: ' + strip + ' pixels');
  await q.close();
  const e = spawnSync(W, ['html', '--embed', '--compare', 'good.weft', 'bad.weft', '-o', 'x.js'], { cwd: T, encoding: 'utf8' });
  assert(e.status === 2 && /--compare: --embed writes one trace/.test(e.stderr), `--embed --compare: exit ${e.status}: ${e.stderr}`);
});

await test('the standard views: slowest one click away, p99 by kind, pending at the cursor; rows go to their threads', async () => {
  // what weft query and weft stats say of the same trace
  const q = (sql) => JSON.parse(execFileSync(W, ['query', '--json', need('bad.weft'), sql]).toString());
  let slow;
  try { slow = q('SELECT thread, title FROM slowest_requests LIMIT 100'); } catch (e) { slow = null; }
  const st = JSON.parse(spawnSync(W, ['stats', '--json', need('bad.weft')]).stdout.toString());
  // the table's times: as the viewer writes every time ("26.901 ms"),
  // one unit a column -- its largest time's, 1 to 999 of it -- every
  // cell with three decimals (ns: none), within half a thousandth of the
  // unit of its exact ns (data-ns); returns the units
  const UNITS = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
  const timeColumns = async (pg) => {
    const rows = await pg.$$eval('#stdview tr', (l) => l.map((r) => Array.from(r.cells).map((c) => [c.textContent, c.dataset.ns])));
    const units = [];
    for (let i = 0; i < rows[0].length; i++) {
      const cells = rows.slice(1).map((r) => r[i]).filter((c) => c[1] !== undefined);
      if (!cells.length) continue;
      const big = Math.max(...cells.map((c) => Number(c[1])));
      const want = big < 1e3 ? 'ns' : big < 1e6 ? 'us' : big < 1e9 ? 'ms' : 's';
      for (const [text, ns] of cells) {
        const m = /^(\d+(?:\.\d{3})?) (ns|us|ms|s)$/.exec(text);
        assert(m && m[2] === want && (want === 'ns') === !m[1].includes('.'), `column ${rows[0][i][0]}: "${text}" (${ns} ns) in a column of ${want}`);
        assert(Math.abs(Number(m[1]) * UNITS[want] - Number(ns)) <= UNITS[want] / 2000 + 1e-6 * UNITS[want], `column ${rows[0][i][0]}: "${text}" for ${ns} ns`);
      }
      units.push(rows[0][i][0] + ' ' + want);
    }
    return units;
  };
  const { page: p } = await open('bad');
  await p.click('#slowest');
  await p.waitForSelector('#stdview:not([hidden]) tr.go');
  assert((await timeColumns(p)).join() === 'latency us', 'slowest: the time columns ' + await timeColumns(p));
  const rows = await p.$$eval('#stdview tr.go', (l) => l.map((r) => [Number(r.dataset.thread), r.cells[1].textContent]));
  assert(rows.length >= 3, 'slowest rows: ' + JSON.stringify(rows));
  if (slow) assert(JSON.stringify(rows) === JSON.stringify(slow.map((r) => [r.thread, r.title])),
    'slowest: ' + JSON.stringify(rows) + ' != weft query ' + JSON.stringify(slow));
  assert(await p.getAttribute('#view', 'data-marked') === String(rows.length), 'marked: ' + await p.getAttribute('#view', 'data-marked'));
  await frame(p);
  assert(await pixels(p, [255, 255, 0]) > 50, 'the slowest are not highlighted');
  assert((await p.textContent('#matches')) === rows.length + ' matches', await p.textContent('#matches'));
  // the third row goes to its thread
  await p.locator('#stdview tr.go').nth(2).click();
  assert((await p.textContent('#inspector .head')).startsWith(rows[2][1]), await p.textContent('#inspector .head'));
  assert(await p.getAttribute('#inspector', 'data-thread') === String(rows[2][0]), 'went to ' + await p.getAttribute('#inspector', 'data-thread'));
  // p99 by kind: weft stats' kinds, in its order, the same figures (here
  // and on a server-shaped trace: kinds of thousands, p50 != p90 != p99)
  const byKind = async (pg, stats) => {
    await pg.click('#slowest');
    await pg.click('#views button[data-view="1"]');
    await pg.waitForSelector('#stdview[data-view="kinds"]');
    const kinds = await pg.$$eval('#stdview tr:not(:first-child)', (l) => l.map((r) => Array.from(r.cells).map((c) => c.dataset.ns !== undefined ? Number(c.dataset.ns) : c.textContent)));
    const want = stats.kinds.map((g) => [g.key, String(g.count), String(g.pending), String(g.failed),
      g.lifetime_ns.p50 < 0 ? '-' : g.lifetime_ns.p50, g.lifetime_ns.p99 < 0 ? '-' : g.lifetime_ns.p99,
      g.lifetime_ns.max < 0 ? '-' : g.lifetime_ns.max]);
    assert(want.length >= 3, 'kinds (setup): ' + JSON.stringify(want));
    assert(JSON.stringify(kinds) === JSON.stringify(want), 'kinds: ' + JSON.stringify(kinds) + ' != weft stats ' + JSON.stringify(want));
    assert((await timeColumns(pg)).length === 3, 'kinds: the time columns ' + await timeColumns(pg));
    return want;
  };
  await byKind(p, st);
  if (fs.existsSync(need('small.html'))) {
    const { page: sp } = await open('small');
    const ss = JSON.parse(spawnSync(W, ['stats', '--json', need('small.weft')]).stdout.toString());
    const w = await byKind(sp, ss);
    assert(w.some((g) => g[1] > 100 && g[5] !== g[4]), 'a kind of many (setup): ' + JSON.stringify(w));
    // (a column of ms holding times under one: "0.060 ms", not "60 us")
    assert((await timeColumns(sp)).join() === 'p50 ms,p99 ms,max ms' && w.some((g) => g[4] !== '-' && g[4] < 1e6),
      'small: ' + await timeColumns(sp) + ' ' + JSON.stringify(w));
    await sp.close();
  }
  // pending at the cursor: the time of the last click on the picture
  const r = await p.evaluate(() => { const b = document.getElementById('view').getBoundingClientRect(); return [b.left, b.top, b.width]; });
  const pendingAt = async (fx) => {
    await p.mouse.click(r[0] + r[2] * fx, r[1] + 300);
    await frame(p);
    await p.click('#views button[data-view="2"]');
    await p.waitForSelector('#stdview[data-view="pending"]');
    const at = Number(await p.getAttribute('#stdview', 'data-at'));
    const got = await p.$$eval('#stdview tr.go', (l) => l.map((x) => Number(x.dataset.thread)));
    // the time in the head as the pointer's: from the trace's start
    const head = await p.textContent('#stdrows .head');
    const m = / at (-?[0-9][0-9 ]*(?:\.[0-9 ]+)?) (ns|us|ms|s)$/.exec(head);
    const [t0] = (await p.getAttribute('#view', 'data-extent')).split(' ').map(Number);
    const [a, b] = await range(p);
    assert(m && Math.abs(Number(m[1].replace(/ /g, '')) * UNITS[m[2]] - (at - t0)) <= (b - a) / 1000, `head "${head}" for ${at - t0} ns from the start`);
    return [at, got];
  };
  await p.keyboard.press('f');
  let seen = 0;
  for (const fx of [0.2, 0.5, 0.8, 0.97]) {
    const [at, got] = await pendingAt(fx);
    if (slow) {
      const want2 = q('SELECT thread FROM pending_at(' + at + ') ORDER BY thread').map((x) => x.thread);
      assert(JSON.stringify(got) === JSON.stringify(want2), 'pending at ' + at + ': ' + JSON.stringify(got) + ' != pending_at ' + JSON.stringify(want2));
    }
    seen = Math.max(seen, got.length);
  }
  assert(seen >= 2, 'nothing pending anywhere (setup)');
  // Esc: the panel goes, the highlights too
  await p.keyboard.press('Escape');
  assert(await p.isHidden('#stdview'), 'Esc left the panel');
  assert(await p.getAttribute('#view', 'data-marked') === null, 'Esc left the marks');
  await p.close();
});

await test('no network', async () => { assert(external === 0, external + ' external requests'); });

await browser.close();
fs.rmSync(T, { recursive: true, force: true });
console.log(`1..${n}`);
console.log(`# ${n - failed} passed, ${failed} failed, 0 skipped`);
process.exit(failed ? 1 : 0);
