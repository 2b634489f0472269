/* SPDX-License-Identifier: MIT */
/*
 * metadata.c - the event table as data, and the CTF 1.8 metadata (TSDL)
 * that describes a weft packet, generated from it.
 *
 * The same text is embedded in every ring file at start (with the clock
 * frequency calibrated then) and written by `weft ctf` (with the refined
 * frequency and the names of the trace as enumerations).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "weft/events.h"
#include "format.h"
#include "out.h"

const struct weft__evspec weft__events[] = {
#define F(t, n) {WEFT_FT_##t, n},
#define X(E, id, name, cur, doc, fields) [id] = {#name, doc, cur, {fields}},
	WEFT_EVENT_MAP(X, F)
#undef X
#undef F
};

/* A TSDL string literal: escapes quotes, backslashes and control bytes. */
static void sb_quoted(struct weft__out *s, const char *str)
{
	weft__put(s, "\"");
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			weft__put(s, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			weft__put(s, "\\x%02x", *p);
		else
			weft__put(s, "%c", *p);
	}
	weft__put(s, "\"");
}

void weft__uuid_str(const uint8_t *u, char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

static const char *ft_tsdl(int t)
{
	switch (t) {
	case WEFT_FT_ID:
		return "weft_id_t";
	case WEFT_FT_NAME:
		return "weft_name_t";
	case WEFT_FT_I64:
		return "int64_t";
	case WEFT_FT_U64:
		return "uint64_t";
	case WEFT_FT_TRUNC:
		return "uint8_t";
	case WEFT_FT_STR:
		return "string";
	}
	return "uint8_t";
}

int weft__metadata(char *buf, unsigned cap, const struct weft__meta_params *p)
{
	struct weft__out s = {buf, cap, 0};
	char uuid[37];

	weft__uuid_str(p->uuid, uuid);
	if (cap)
		buf[0] = 0;
	/* The CTF clock maps value 0 to the epoch plus offset_s seconds plus
	 * offset ticks: value 0 is origin_real - origin_ticks / freq. */
	long double t0 = (long double)p->origin_real_ns / 1e9L -
			 (long double)p->origin_ticks / (long double)p->freq;
	int64_t off_s = (int64_t)t0;
	if ((long double)off_s > t0)
		off_s--;
	uint64_t off_ticks =
		(uint64_t)((t0 - (long double)off_s) * (long double)p->freq);
	weft__put(&s,
		  "/* CTF 1.8 */\n"
		  "/* weft ring: one stream per OS thread, one packet per "
		  "stream at a time. */\n\n"
		  "typealias integer { size = 8; align = 8; signed = false; } "
		  ":= uint8_t;\n"
		  "typealias integer { size = 16; align = 8; signed = false; } "
		  ":= uint16_t;\n"
		  "typealias integer { size = 32; align = 8; signed = false; } "
		  ":= uint32_t;\n"
		  "typealias integer { size = 64; align = 8; signed = false; } "
		  ":= uint64_t;\n"
		  "typealias integer { size = 64; align = 8; signed = true; } "
		  ":= int64_t;\n"
		  "typealias integer { size = 64; align = 8; signed = false; "
		  "base = hex; } := weft_id_t;\n"
		  "typealias integer { size = 5; align = 1; signed = false; } "
		  ":= uint5_t;\n"
		  "typealias integer { size = 27; align = 1; signed = false; "
		  "map = clock.weft.value; } := uint27_clock_weft_t;\n"
		  "typealias integer { size = 64; align = 8; signed = false; "
		  "map = clock.weft.value; } := uint64_clock_weft_t;\n");
	if (p->names && p->nnames > 1) {
		weft__put(&s, "typealias enum : uint16_t {\n\t\"(none)\" = 0");
		for (uint32_t i = 1; i < p->nnames; i++) {
			if (!p->names[i])
				continue;
			weft__put(&s, ",\n\t");
			sb_quoted(&s, p->names[i]);
			weft__put(&s, " = %u", (unsigned)i);
		}
		weft__put(&s, "\n} := weft_name_t;\n\n");
	} else {
		weft__put(&s, "typealias integer { size = 16; align = 8; "
			      "signed = false; } := weft_name_t;\n\n");
	}
	weft__put(&s,
		  "trace {\n"
		  "\tmajor = 1;\n\tminor = 8;\n"
		  "\tuuid = \"%s\";\n"
		  "\tbyte_order = le;\n"
		  "\tpacket.header := struct {\n"
		  "\t\tuint32_t magic;\n"
		  "\t\tuint8_t uuid[16];\n"
		  "%s"
		  "\t\tuint64_t stream_instance_id;\n"
		  "\t};\n"
		  "};\n\n",
		  uuid,
		  p->export_layout ? ""
				   : "\t\tuint32_t weft_version;\n"
				     "\t\tuint64_t weft_gen;\n");
	weft__put(&s,
		  "env {\n\tdomain = \"weft\";\n\ttracer_name = \"weft\";\n"
		  "\ttracer_major = %d;\n\ttracer_minor = %d;\n",
		  WEFT_FORMAT_MAJOR, WEFT_FORMAT_MINOR);
	if (p->hostname) {
		weft__put(&s, "\thostname = ");
		sb_quoted(&s, p->hostname);
		weft__put(&s, ";\n");
	}
	if (p->comm) {
		weft__put(&s, "\tprocname = ");
		sb_quoted(&s, p->comm);
		weft__put(&s, ";\n");
	}
	weft__put(&s, "\tvpid = %u;\n};\n\n", (unsigned)p->pid);
	weft__put(&s,
		  "clock {\n"
		  "\tname = \"weft\";\n"
		  "\tuuid = \"%s\";\n"
		  "\tdescription = \"%s\";\n"
		  "\tfreq = %llu;\n"
		  "\tprecision = 0;\n"
		  "\toffset_s = %lld;\n"
		  "\toffset = %llu;\n"
		  "\tabsolute = %s;\n"
		  "};\n\n",
		  uuid,
		  p->clock_kind == WEFT_CLOCK_TSC ? "TSC, calibrated against "
						    "CLOCK_MONOTONIC"
		  : p->clock_kind == WEFT_CLOCK_PROGRAM ? "set by the program, "
							  "in nanoseconds"
							: "CLOCK_MONOTONIC in "
							  "nanoseconds",
		  (unsigned long long)p->freq, (long long)off_s,
		  (unsigned long long)off_ticks,
		  p->absolute ? "true" : "false");
	weft__put(&s, "stream {\n"
		      "\tevent.header := struct {\n"
		      "\t\tenum : uint5_t { compact = 0 ... 30, extended = 31 "
		      "} id;\n"
		      "\t\tvariant <id> {\n"
		      "\t\t\tstruct { uint27_clock_weft_t timestamp; } "
		      "compact;\n"
		      "\t\t\tstruct { uint32_t id; uint64_clock_weft_t "
		      "timestamp; "
		      "} extended;\n"
		      "\t\t} v;\n"
		      "\t} align(8);\n\n"
		      "\tpacket.context := struct {\n"
		      "\t\tuint64_clock_weft_t timestamp_begin;\n"
		      "\t\tuint64_clock_weft_t timestamp_end;\n"
		      "\t\tuint64_t content_size;\n"
		      "\t\tuint64_t packet_size;\n"
		      "\t\tuint64_t packet_seq_num;\n"
		      "\t\tuint64_t events_discarded;\n"
		      "\t\tweft_id_t current_thread;\n"
		      "\t\tuint32_t os_tid;\n"
		      "\t};\n"
		      "};\n\n");
	for (int id = 0; id < WEFT_EV_COUNT; id++) {
		const struct weft__evspec *e = &weft__events[id];
		weft__put(&s,
			  "event {\n\tname = \"%s\";\n\tid = %d;\n"
			  "\tfields := struct {\n",
			  e->name, id);
		for (int i = 0; i < 4 && e->f[i].type; i++)
			weft__put(&s, "\t\t%s %s;\n", ft_tsdl(e->f[i].type),
				  e->f[i].name);
		weft__put(&s, "\t};\n};\n\n");
	}
	return (int)s.n;
}
