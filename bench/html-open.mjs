// SPDX-License-Identifier: MIT
// html-open.mjs WEFT TRACE - prints `view.html_open_ms`: how long the
// self-contained HTML viewer of TRACE takes in headless Chromium from
// opening the page to its first picture (reading the trace behind the
// progress bar, laying it out, drawing).  Median of 3.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const [weft, trace] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(path.join(here, '..', 'package.json'));
let chromium;
try { ({ chromium } = require('playwright-core')); } catch {
  console.log('# view.html_open_ms: playwright-core not installed (npm ci)');
  process.exit(0);
}
const T = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-html-open-'));
const page = path.join(T, 'v.html');
execFileSync(weft, ['html', trace, '-o', page]);
const events = /events:\s+(\d+)/.exec(execFileSync(weft, ['info', trace]).toString())[1];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const times = [];
for (let i = 0; i < 3; i++) {
  const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const t0 = Date.now();
  await p.goto('file://' + page, { timeout: 120000 });
  await p.waitForFunction(() => document.getElementById('view').dataset.range, null,
    { timeout: 120000, polling: 20 });
  times.push(Date.now() - t0);
  await p.close();
}
await browser.close();
fs.rmSync(T, { recursive: true, force: true });
times.sort((a, b) => a - b);
console.log(`${'view.html_open_ms'.padEnd(26)} ${String(times[1]).padStart(14)} ${'ms'.padEnd(9)} # weft html of server-gen's ${events} events in Chromium, open to first picture, progress shown (target <= 5000)`);
