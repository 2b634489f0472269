/* SPDX-License-Identifier: MIT */
/*
 * draw-ruler.c - time: the ruler along the top (ticks at 1, 2, 5 x 10^k
 * ns from the trace's start, as far apart as their labels need, the
 * wall-clock time of the start in the left corner), the time under the
 * pointer, and a measured range drawn over the whole height with its
 * duration.  Times are written as the range summary writes them
 * (weft_time_fmt: "17.094 992 s"), the ruler's and the pointer's in one
 * unit, and `weft render --start` and the HTML viewer read them back.
 */
#include <stdio.h>
#include <string.h>

#include "view-internal.h"
#include "weft/read.h"
#include "weft/stats.h"

#define LABEL_GAP 12.0 /* px between one tick's label and the next tick */
#define CORNER_PAD 4.0

/* ------------------------------------------------------------ numbers */

int64_t weft_view_tick_step(double ns)
{
	if (!(ns > 1))
		return 1;
	for (int64_t d = 1;; d *= 10) {
		if ((double)d >= ns)
			return d;
		if ((double)(2 * d) >= ns)
			return 2 * d;
		if ((double)(5 * d) >= ns || d > INT64_MAX / 100)
			return 5 * d;
	}
}

/* The power of ten a step's times are written to: 10^k for 1, 2 and
 * 5 x 10^k. */
static int64_t prec_of(int64_t step)
{
	int64_t p = 1;
	while (p <= step / 10)
		p *= 10;
	return p;
}

size_t weft_view_time_str(int64_t ns, int64_t step, char *buf, size_t cap)
{
	return weft_time_fmt(ns, prec_of(step > 0 ? step : 1), buf, cap);
}

/* As the range summary writes its range: to the largest power of ten at
 * most a 100 000th of it (weft_summary's prec), so that a measure says
 * what the summary beside it says. */
size_t weft_view_dur_str(int64_t ns, char *buf, size_t cap)
{
	int64_t a = ns < 0 ? -ns : ns, p = 1;
	while (p * 10 <= a / 100000 && p < 1000000000)
		p *= 10;
	return weft_time_fmt(ns, p, buf, cap);
}

/* The unit of every time on the ruler (its labels, the pointer's): the
 * one the visible range's farthest time from the start is written in,
 * so that one screen never mixes "800 us" and "1 ms". */
static int64_t ruler_unit(const struct weft_view *v)
{
	int64_t a = v->time.t0 - v->time.tmin, b = v->time.t1 - v->time.tmin;
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	int64_t m = a > b ? a : b;
	return m < 1000		? 1
	       : m < 1000000	? 1000
	       : m < 1000000000 ? 1000000
				: 1000000000;
}

/* ------------------------------------------------------------ the state */

double weft_view_ruler_h(const struct weft_view *v)
{
	(void)v;
	return RULER_H;
}

int64_t weft_view_time_at(const struct weft_view *v, double x)
{
	return tof(v, x);
}

double weft_view_x_of(const struct weft_view *v, int64_t t)
{
	return xof(v, t);
}

/* to a tenth of a tick */
static int64_t pointer_prec(const struct weft_view *v)
{
	return v->ruler.step >= 10 ? v->ruler.step / 10 : 1;
}

size_t weft_view_pointer_str(const struct weft_view *v, char *buf, size_t cap)
{
	if (v->ruler.pointer_x < 0) {
		if (cap)
			*buf = 0;
		return 0;
	}
	return weft_time_fmt_in(tof(v, v->ruler.pointer_x) - v->time.tmin,
				prec_of(pointer_prec(v)), ruler_unit(v), buf,
				cap);
}

void weft_view_set_measure(struct weft_view *v, int64_t t0, int64_t t1)
{
	v->ruler.meas0 = t0 < t1 ? t0 : t1;
	v->ruler.meas1 = t0 < t1 ? t1 : t0;
}

void weft_view_clear_measure(struct weft_view *v)
{
	v->ruler.meas0 = v->ruler.meas1 = 0;
}

/* A drag keeps its first end where it was pressed: that end is the
 * start, meas0, until the drag goes left of it. */
void weft_view_measure_from(struct weft_view *v, double x)
{
	v->ruler.meas0 = v->ruler.meas1 = tof(v, x);
	v->ruler.meas_anchor = v->ruler.meas0;
}

void weft_view_measure_to(struct weft_view *v, double x)
{
	weft_view_set_measure(v, v->ruler.meas_anchor, tof(v, x));
}

int weft_view_measure(const struct weft_view *v, int64_t *t0, int64_t *t1)
{
	if (v->ruler.meas0 == v->ruler.meas1)
		return 0;
	*t0 = v->ruler.meas0;
	*t1 = v->ruler.meas1;
	return 1;
}

int weft_view_zoom_measure(struct weft_view *v)
{
	if (v->ruler.meas0 == v->ruler.meas1)
		return -1;
	weft_view_set_range(v, v->ruler.meas0, v->ruler.meas1);
	return 0;
}

/* ------------------------------------------------------------ drawing */

static double width(struct pen *p, const char *s)
{
	return p->c->text_width(p->c->ctx, FONT, s);
}

/* The widest label a step gives over the visible range: those at its
 * ends (the longest numbers, and the signs before the start). */
static double label_w(const struct weft_view *v, struct pen *p, int64_t step)
{
	char a[48], b[48];
	int64_t u = ruler_unit(v), q = prec_of(step);
	weft_time_fmt_in((v->time.t0 - v->time.tmin) / step * step, q, u, a,
			 sizeof a);
	weft_time_fmt_in((v->time.t1 - v->time.tmin) / step * step, q, u, b,
			 sizeof b);
	double wa = width(p, a), wb = width(p, b);
	return wa > wb ? wa : wb;
}

/* The finest step whose labels do not overlap. */
static int64_t ruler_step(const struct weft_view *v, struct pen *p)
{
	int64_t step = weft_view_tick_step(8 * v->time.ns_per_px);
	while (step < INT64_MAX / 20 &&
	       (label_w(v, p, step) + 3 + LABEL_GAP) * v->time.ns_per_px >
		       (double)step)
		/* (the next of 1, 2, 5: step + 1 is step again in a
		 * double, past 2^53) */
		step = weft_view_tick_step((double)step * 1.5);
	return step;
}

/* Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm):
 * the wasm build has no gmtime. */
static void civil(int64_t days, int *y, int *m, int *d)
{
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	int64_t doe = days - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* The wall-clock time of the trace's start, UTC to the millisecond, or
 * "start" when the trace does not know it. */
static void wall_start(const struct weft_view *v, char *buf, size_t cap)
{
	struct weft_reader *r = weft_model_reader(v->m);
	const struct weft_trace_info *in = r ? weft_reader_info(r) : NULL;
	int64_t ns; /* (a hostile header's clock may overflow) */
	if (!in || in->origin_real_ns <= 0 ||
	    __builtin_add_overflow(in->origin_real_ns, v->time.tmin, &ns) ||
	    ns < 0) {
		snprintf(buf, cap, "start");
		return;
	}
	int64_t ms = ns / 1000000;
	int64_t s = ms / 1000, day = s / 86400, sec = s % 86400;
	int y, m, d;
	civil(day, &y, &m, &d);
	snprintf(buf, cap, "start %04d-%02d-%02d %02d:%02d:%02d.%03d UTC", y, m,
		 d, (int)(sec / 3600), (int)(sec / 60 % 60), (int)(sec % 60),
		 (int)(ms % 1000));
}

/* The corner: the start's wall-clock time.  Its width (0: a picture too
 * narrow for it, where the ticks matter more); drawn when `draw`. */
static double corner(struct weft_view *v, struct pen *p, int draw)
{
	char buf[64];
	wall_start(v, buf, sizeof buf);
	double w = width(p, buf) + 2 * CORNER_PAD;
	if (w > v->geo.w / 2)
		return 0;
	if (draw) {
		color(p, 0.8, 0.77, 0.62, 1);
		rect(p, 0, 0, w, RULER_H - 1);
		color(p, 0.15, 0.15, 0.25, 1);
		text(p, CORNER_PAD, RULER_H - 6, buf);
	}
	return w;
}

/* The minor ticks' step: fifths of a step of 1 or 5 x 10^k, quarters of
 * one of 2 x 10^k (halves of 2 ns). */
static int64_t minor_step(int64_t step)
{
	int64_t mant = step;
	while (mant % 10 == 0)
		mant /= 10;
	if (mant == 2)
		return step / 4 ? step / 4 : step / 2;
	return step / 5 ? step / 5 : 1;
}

static void draw_ticks(struct weft_view *v, struct pen *p, int64_t step,
		       double left)
{
	int64_t m = minor_step(step);
	int64_t rel0 = v->time.t0 - v->time.tmin,
		rel1 = v->time.t1 - v->time.tmin;
	int64_t first = rel0 / m * m - m;
	char buf[48];
	for (int64_t t = first; t <= rel1; t += m) {
		double x = (double)(long long)xof(v, v->time.tmin + t) + 0.5;
		if (x < left || x > v->geo.w)
			continue;
		if (t % step) {
			color(p, 0.45, 0.45, 0.5, 1);
			line(p, x, RULER_H - 5, x, RULER_H);
			continue;
		}
		color(p, 0.3, 0.3, 0.35, 1);
		line(p, x, 2, x, RULER_H);
		weft_time_fmt_in(t, prec_of(step), ruler_unit(v), buf,
				 sizeof buf);
		if (x + 3 + width(p, buf) < v->geo.w)
			text(p, x + 3, RULER_H - 6, buf);
	}
}

double weft__draw_ruler(struct weft_view *v, struct pen *p)
{
	int64_t step = ruler_step(v, p);
	color(p, 0.88, 0.86, 0.74, 1);
	rect(p, 0, 0, v->geo.w, RULER_H);
	p->c->line_width(p->c->ctx, 1);
	/* no tick under the corner, where its label would be cut */
	draw_ticks(v, p, step, corner(v, p, 0));
	corner(v, p, 1);
	color(p, 0.5, 0.5, 0.58, 1);
	rect(p, 0, RULER_H - 1, v->geo.w, 1);
	v->ruler.step = step;
	return (double)step;
}

/* A label in a box at the top, at x or left of it when it does not fit
 * right of it. */
static void tag(struct weft_view *v, struct pen *p, double x, const char *s,
		const double box[3], const double ink[3])
{
	double w = width(p, s) + 6;
	if (x + w > v->geo.w)
		x = x - w > 0 ? x - w : v->geo.w - w;
	if (x < 0)
		x = 0;
	color(p, box[0], box[1], box[2], 1);
	rect(p, x, 1, w, RULER_H - 3);
	color(p, ink[0], ink[1], ink[2], 1);
	text(p, x + 3, RULER_H - 6, s);
}

static void draw_band(struct weft_view *v, struct pen *p)
{
	double x0 = xof(v, v->ruler.meas0), x1 = xof(v, v->ruler.meas1);
	if (x1 < 0 || x0 > v->geo.w)
		return;
	x0 = x0 < -1 ? -1 : x0;
	x1 = x1 > v->geo.w + 1 ? v->geo.w + 1 : x1;
	color(p, 0.3, 0.5, 1, 0.18);
	rect(p, x0, 0, x1 - x0 > 1 ? x1 - x0 : 1, v->geo.h);
	color(p, 0.15, 0.3, 0.8, 1);
	rect(p, x0, 0, 1, v->geo.h);
	rect(p, x1 - 1, 0, 1, v->geo.h);
	char buf[48];
	weft_view_dur_str(v->ruler.meas1 - v->ruler.meas0, buf, sizeof buf);
	static const double box[3] = {0.15, 0.3, 0.8}, ink[3] = {1, 1, 1};
	tag(v, p, (x0 + x1) / 2 - (width(p, buf) + 6) / 2, buf, box, ink);
}

void weft__draw_measure(struct weft_view *v, struct pen *p)
{
	if (v->ruler.meas0 != v->ruler.meas1)
		draw_band(v, p);
	if (v->ruler.pointer_x < 0)
		return;
	double x = (double)(long long)v->ruler.pointer_x + 0.5;
	color(p, 0.1, 0.1, 0.3, 1);
	p->c->line_width(p->c->ctx, 1);
	line(p, x, 0, x, RULER_H);
	char buf[48];
	weft_view_pointer_str(v, buf, sizeof buf);
	static const double box[3] = {1, 1, 0.8}, ink[3] = {0.1, 0.1, 0.3};
	tag(v, p, x + 2, buf, box, ink);
}
