// SPDX-License-Identifier: MIT
// otlp-check.js - the OTLP side of tests/fleet/test-otlp.sh, decoding
// with the generated classes of @opentelemetry/otlp-transformer 0.203.0.
//
//   node otlp-check.js receive DIR [FAIL]
//       an OTLP/HTTP receiver on 127.0.0.1 (a random port, written to
//       DIR/port): each POST /v1/traces body is decoded and kept as
//       DIR/msg-N.pb; the first FAIL requests get 503 then 429 (retries);
//       DIR/log has a line per request.  Runs until killed.
//   node otlp-check.js check SOURCE FACTS BUDGET LIMIT [EXPECT...]
//       SOURCE: a file of varint-delimited messages (weft export --otlp)
//       or a receiver's DIR; FACTS: `weft query --json` of the trace
//       (threads, arrows, labels, processes, trace: one line each).
//       Checks every span, link, event and attribute against the facts
//       and prints "ok" and counts, or the first differences (exit 1).
//       EXPECT: hubs=KIND,KIND (these kinds, and only these, are hubs),
//       splits=N (traces split by the budget, at least N).
'use strict';
const fs = require('fs');
const path = require('path');
const http = require('http');
const root = require(path.join(process.env.WEFT_SRC || path.join(__dirname, '..', '..'),
	'node_modules/@opentelemetry/otlp-transformer/build/src/generated/root.js'));
const pb = root.opentelemetry.proto.collector.trace.v1;

function receive(dir, fail) {
	let n = 0, req = 0;
	const srv = http.createServer((rq, rs) => {
		const chunks = [];
		rq.on('data', (c) => chunks.push(c));
		rq.on('end', () => {
			const body = Buffer.concat(chunks);
			req++;
			let status = 200;
			if (rq.method !== 'POST' || rq.url !== '/v1/traces' ||
			    rq.headers['content-type'] !== 'application/x-protobuf')
				status = 400;
			else if (req <= fail)
				status = req % 2 ? 503 : 429;
			if (status === 200) {
				try {
					pb.ExportTraceServiceRequest.decode(body);
				} catch (e) {
					status = 400;
				}
			}
			fs.appendFileSync(path.join(dir, 'log'), `${rq.method} ${rq.url} ${body.length} ${status}\n`);
			if (status === 200)
				fs.writeFileSync(path.join(dir, `msg-${String(n++).padStart(6, '0')}.pb`), body);
			const out = status === 200 ? Buffer.from(pb.ExportTraceServiceResponse.encode({}).finish()) : Buffer.from('busy');
			const h = {'Content-Type': 'application/x-protobuf', 'Content-Length': out.length};
			if (status !== 200 && status !== 400)
				h['Retry-After'] = '0';
			rs.writeHead(status, h);
			rs.end(out);
		});
	});
	srv.listen(0, '127.0.0.1', () => {
		fs.writeFileSync(path.join(dir, 'port.tmp'), String(srv.address().port));
		fs.renameSync(path.join(dir, 'port.tmp'), path.join(dir, 'port'));
	});
}

function readMessages(src) {
	const msgs = [];
	if (fs.statSync(src).isDirectory()) {
		for (const f of fs.readdirSync(src).filter((x) => x.endsWith('.pb')).sort())
			msgs.push(fs.readFileSync(path.join(src, f)));
		return msgs;
	}
	const b = fs.readFileSync(src);
	let p = 0;
	while (p < b.length) {
		let len = 0, shift = 0, c;
		do {
			if (p >= b.length) throw new Error('truncated length');
			c = b[p++];
			len += (c & 0x7f) * 2 ** shift;
			shift += 7;
		} while (c & 0x80);
		if (p + len > b.length) throw new Error('truncated message');
		msgs.push(b.subarray(p, p + len));
		p += len;
	}
	return msgs;
}

const big = (v) => (v === null || v === undefined ? 0n : BigInt(v.toString()));
const blen = (b) => (b ? b.length : 0);
const hex = (b) => Buffer.from(b || []).toString('hex');

function attrs(list) {
	const o = {};
	for (const kv of list || []) {
		const v = kv.value || {};
		let x;
		if (v.stringValue !== null && v.stringValue !== undefined && v.value === 'stringValue') x = v.stringValue;
		else if (v.value === 'boolValue') x = v.boolValue;
		else if (v.value === 'intValue') x = big(v.intValue);
		else x = v[v.value];
		if (kv.key in o) throw new Error(`attribute ${kv.key} twice`);
		o[kv.key] = x;
	}
	return o;
}

function check(src, factsFile, budget, limit, expect) {
	const errs = [];
	const err = (m) => { if (errs.length < 30) errs.push(m); };
	const lines = fs.readFileSync(factsFile, 'utf8').split('\n').filter((l) => l.trim().startsWith('['));
	const [threads, arrows, labels, procs, tr] = lines.map((l) => JSON.parse(l));
	const t1 = BigInt(tr[0].t1);
	const msgs = readMessages(src);
	const spans = [];
	let maxMsg = 0;
	for (const m of msgs) {
		if (m.length > limit) err(`a message of ${m.length} bytes > ${limit}`);
		maxMsg = Math.max(maxMsg, m.length);
		const req = pb.ExportTraceServiceRequest.decode(m);
		for (const rs of req.resourceSpans) {
			const ra = attrs(rs.resource.attributes);
			for (const ss of rs.scopeSpans) {
				if (ss.scope.name !== 'weft') err(`scope ${ss.scope.name}`);
				for (const s of ss.spans) spans.push({s, a: attrs(s.attributes), ra});
			}
		}
	}
	// each thread is one span: by (pid, id, incarnation), an OS thread by
	// its tid
	const pidOf = (p) => (p === null || p === undefined ? null : procs.find((x) => x.process === p).pid);
	const key = (pid, id, inc, tid) => `${pid}/${id}/${inc}/${tid}`;
	const byKey = new Map();
	for (const x of spans) {
		const a = x.a;
		const k = key(a['process.pid'] === undefined ? null : Number(a['process.pid']), a['weft.id'], a['weft.incarnation'] || 0n,
			a['weft.os_thread'] ? Number(a['thread.id']) : null);
		if (byKey.has(k)) err(`two spans for ${k}`);
		byKey.set(k, x);
	}
	const spanOf = [];
	const osTid = new Map();
	for (const th of threads) {
		const pid = pidOf(th.process);
		let tid = null;
		if (th.root) {
			const m = /^OS thread (\d+)/.exec(th.title);
			tid = m ? Number(m[1]) : null;
		}
		const x = byKey.get(key(pid, BigInt(th.id), BigInt(th.incarnation), tid));
		if (!x) { err(`no span for thread ${th.thread} (${th.title})`); continue; }
		spanOf[th.thread] = x;
		x.th = th;
	}
	if (spans.length !== threads.length) err(`${spans.length} spans for ${threads.length} threads`);
	const ids = new Set();
	let base = null;
	for (const x of spans) {
		const s = x.s, th = x.th;
		if (s.traceId.length !== 16 || s.spanId.length !== 8) err(`span id sizes ${s.traceId.length}/${s.spanId.length}`);
		if (/^0+$/.test(hex(s.spanId)) || /^0+$/.test(hex(s.traceId))) err('a zero id');
		if (ids.has(hex(s.spanId))) err(`span id ${hex(s.spanId)} twice`);
		ids.add(hex(s.spanId));
		if (!th) continue;
		const b = big(s.startTimeUnixNano) - BigInt(th.created);
		if (base === null) base = b;
		if (b !== base) err(`span of ${th.title} starts at ${s.startTimeUnixNano}, not origin+${th.created}`);
		const pending = th.end === 'pending';
		const end = pending ? t1 : BigInt(th.ended);
		if (big(s.endTimeUnixNano) - base !== end) err(`span of ${th.title} ends at +${big(s.endTimeUnixNano) - base}, not ${end}`);
		if ((x.a['weft.pending'] === true) !== pending) err(`weft.pending of ${th.title}`);
		if (x.a['weft.end'] !== th.end) err(`weft.end ${x.a['weft.end']} of ${th.title} (${th.end})`);
		if (!th.root && x.a['weft.kind'] !== th.kind) err(`weft.kind ${x.a['weft.kind']} of ${th.title}`);
		if (!th.root && s.name !== (th.kind || 'async thread')) err(`name ${s.name} of ${th.title}`);
		if ((x.a['weft.label'] ?? null) !== (th.label ?? null)) err(`weft.label ${JSON.stringify(x.a['weft.label'])} of ${th.title}, not ${JSON.stringify(th.label)}`);
		if (!!x.a['weft.should_resolve'] !== !!th.should_resolve) err(`should_resolve of ${th.title}`);
		const comm = th.process === null ? null : procs.find((p) => p.process === th.process).comm;
		if (comm !== null && x.ra['service.name'] !== comm) err(`service.name ${x.ra['service.name']} for ${comm}`);
		const code = th.end === 'failed' ? 2 : th.end === 'resolved' ? 1 : 0;
		if ((s.status ? s.status.code : 0) !== code) err(`status ${s.status && s.status.code} of ${th.title} (${th.end})`);
		if (th.end === 'failed' && (s.status.message || '') !== (th.message || '')) err(`status message of ${th.title}`);
	}
	// parents: in the trace (parentSpanId) or beginning one (a link)
	const hubs = new Set(), traceSize = new Map();
	let splitByBudget = 0, parentLinks = 0;
	for (const x of spans) {
		const s = x.s, th = x.th;
		traceSize.set(hex(s.traceId), (traceSize.get(hex(s.traceId)) || 0) + 1);
		if (x.a['weft.hub']) hubs.add(x.a['weft.kind']);
		if (!th) continue;
		const pl = (s.links || []).filter((l) => attrs(l.attributes)['weft.link'] === 'parent');
		const c = th.creator === null ? null : spanOf[th.creator];
		if (!c) {
			if (blen(s.parentSpanId) || pl.length) err(`a parent for ${th.title}, created by nothing known`);
			continue;
		}
		const heavy = (y) => y.a['weft.hub'] || y.a['weft.os_thread'];
		if (blen(s.parentSpanId)) {
			if (hex(s.parentSpanId) !== hex(c.s.spanId) || hex(s.traceId) !== hex(c.s.traceId)) err(`parent of ${th.title} is not its creator's span`);
			if (heavy(x) || heavy(c)) err(`${th.title} in the trace of hub ${c.th.title}`);
			if (pl.length) err(`${th.title}: parent and parent link`);
		} else {
			parentLinks++;
			if (pl.length !== 1 || hex(pl[0].spanId) !== hex(c.s.spanId) || hex(pl[0].traceId) !== hex(c.s.traceId)) err(`${th.title} begins a trace without one link to its creator`);
			if (hex(s.traceId) === hex(c.s.traceId)) err(`${th.title} begins a trace, in its creator's`);
			if (!heavy(x) && !heavy(c)) splitByBudget++;
		}
	}
	for (const [t, n] of traceSize) if (n > budget) err(`trace ${t} holds ${n} spans > ${budget}`);
	// each trace is a tree: one span without a parent
	const tops = new Map();
	for (const x of spans) if (!blen(x.s.parentSpanId)) tops.set(hex(x.s.traceId), (tops.get(hex(x.s.traceId)) || 0) + 1);
	for (const t of traceSize.keys()) if (tops.get(t) !== 1) err(`trace ${t} has ${tops.get(t) || 0} top spans`);
	// arrows: one link each, on one of its ends, its kind, time and flags
	const linkSeen = new Map();
	let arrowLinks = 0;
	for (const x of spans) {
		for (const l of x.s.links || []) {
			const la = attrs(l.attributes);
			if (la['weft.link'] !== 'arrow') continue;
			arrowLinks++;
			const k = `${x.th ? x.th.thread : '?'}>${hex(l.spanId)}>${la['weft.arrow']}>${la['weft.arrow.out']}>${big(la['weft.arrow.time']) - base}>${la['weft.arrow.flags'] || 0n}`;
			linkSeen.set(k, (linkSeen.get(k) || 0) + 1);
		}
	}
	// links left out of a span too big for one message are counted
	// there (dropped_links_count): an arrow missing must be one of them
	let dropped = 0, missing = 0;
	for (const x of spans) dropped += x.s.droppedLinksCount || 0;
	for (const a of arrows) {
		const f = spanOf[a.from_thread], t = spanOf[a.to_thread];
		if (!f || !t) { err(`arrow ${a.arrow} between unknown threads`); continue; }
		const flags = BigInt((a.followed ? 1 : 0) | (a.message ? 2 : 0));
		const kOut = `${a.from_thread}>${hex(t.s.spanId)}>${a.kind}>true>${a.t}>${flags}`;
		const kIn = `${a.to_thread}>${hex(f.s.spanId)}>${a.kind}>false>${a.t}>${flags}`;
		const k = linkSeen.get(kOut) ? kOut : kIn;
		if (!linkSeen.get(k)) {
			missing++;
			if (!f.s.droppedLinksCount && !t.s.droppedLinksCount)
				err(`arrow ${a.arrow} (${a.kind} ${f.th.title} -> ${t.th.title} at ${a.t}) has no link`);
			continue;
		}
		linkSeen.set(k, linkSeen.get(k) - 1);
		// on the hub's side only when both are heavy
		const heavy = (y) => y.a['weft.hub'] || y.a['weft.os_thread'];
		if (k === kOut && heavy(f) && !heavy(t)) err(`arrow ${a.arrow} on hub ${f.th.title}`);
	}
	if (missing !== dropped || arrowLinks + missing !== arrows.length) err(`${arrowLinks} arrow links and ${missing} missing (${dropped} dropped) for ${arrows.length} arrows`);
	// labels and notes as events, failures as exception events
	let events = 0;
	const want = new Map();
	for (const l of labels) {
		const k = `${l.thread}|${l.kind === 'note' ? 'weft.note' : 'weft.label'}|${l.t}|${l.text}`;
		want.set(k, (want.get(k) || 0) + 1);
	}
	for (const x of spans) {
		if (!x.th) continue;
		for (const e of x.s.events || []) {
			events++;
			const ea = attrs(e.attributes);
			if (e.name === 'exception') {
				if (x.th.end !== 'failed' || ea['exception.message'] !== (x.th.message || '')) err(`exception event on ${x.th.title}`);
				continue;
			}
			const k = `${x.th.thread}|${e.name}|${big(e.timeUnixNano) - base}|${ea['weft.text']}`;
			if (!want.get(k)) err(`event ${k} not in the trace`);
			else want.set(k, want.get(k) - 1);
		}
	}
	for (const [k, n] of want) if (n) err(`label ${k} not exported`);
	const failed = threads.filter((t) => t.end === 'failed').length;
	if (events !== labels.length + failed) err(`${events} events for ${labels.length} labels and notes and ${failed} failures`);
	for (const e of expect) {
		const [k, v] = e.split('=');
		if (k === 'hubs') {
			const w = v.split(',').filter(Boolean).sort().join(',');
			const got = [...hubs].sort().join(',');
			if (w !== got) err(`hubs ${got}, expected ${w}`);
		} else if (k === 'splits') {
			if (splitByBudget < Number(v)) err(`${splitByBudget} traces split by the budget, expected at least ${v}`);
		} else if (k === 'traces') {
			if (traceSize.size !== Number(v)) err(`${traceSize.size} traces, expected ${v}`);
		} else if (k === 'messages') {
			if (msgs.length < Number(v)) err(`${msgs.length} messages, expected at least ${v}`);
		} else err(`unknown expectation ${e}`);
	}
	if (errs.length) {
		for (const e of errs) console.log(`# ${e}`);
		process.exit(1);
	}
	console.log(`ok spans=${spans.length} traces=${traceSize.size} links=${arrowLinks}+${parentLinks} events=${events} dropped=${dropped} messages=${msgs.length} biggest=${maxMsg} splits=${splitByBudget} hubs=${[...hubs].sort().join(',')}`);
}

// Every text a person wrote, as JSON lines: the spans' weft.label and
// status message, the events' weft.text and exception.message.
function texts(src) {
	for (const m of readMessages(src))
		for (const rs of pb.ExportTraceServiceRequest.decode(m).resourceSpans)
			for (const ss of rs.scopeSpans)
				for (const s of ss.spans) {
					const a = attrs(s.attributes);
					if ('weft.label' in a) console.log(JSON.stringify(['label', a['weft.label']]));
					if (s.status && s.status.message) console.log(JSON.stringify(['status', s.status.message]));
					for (const e of s.events || []) {
						const ea = attrs(e.attributes);
						console.log(JSON.stringify([e.name, ea['weft.text'] ?? ea['exception.message']]));
					}
				}
}

// Counts, for bench/otlp-bench.sh: "SPANS TRACES BIGGEST_TRACE
// BIGGEST_MESSAGE MESSAGES" (a trace's spans may lie in several messages).
function count(src) {
	const size = new Map();
	let spans = 0, big = 0, n = 0;
	for (const m of readMessages(src)) {
		n++;
		big = Math.max(big, m.length);
		for (const rs of pb.ExportTraceServiceRequest.decode(m).resourceSpans)
			for (const ss of rs.scopeSpans)
				for (const s of ss.spans) {
					spans++;
					const k = hex(s.traceId);
					size.set(k, (size.get(k) || 0) + 1);
				}
	}
	let most = 0;
	for (const v of size.values()) most = Math.max(most, v);
	console.log(`${spans} ${size.size} ${most} ${big} ${n}`);
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'receive') receive(args[0], Number(args[1] || 0));
else if (cmd === 'texts') texts(args[0]);
else if (cmd === 'count') count(args[0]);
else if (cmd === 'check') check(args[0], args[1], Number(args[2]), Number(args[3]), args.slice(4));
else {
	console.error('usage: otlp-check.js receive DIR [FAIL] | check SOURCE FACTS BUDGET LIMIT [EXPECT...]');
	process.exit(2);
}
