// SPDX-License-Identifier: MIT
/*
 * SVG plots: the line plot of `hvtlb sweep --svg` (plain SVG 1.1 text, a
 * fixed page size, "nice" 1/2/5 tick steps, a legend to the right of the
 * plot area, optional shaded bands) and the tornado plot of `hvtlb
 * sensitivity --svg`.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "svg.h"

#define WIDTH 960
#define HEIGHT 540
#define LEFT 90
#define RIGHT 260
#define TOP 60
#define BOTTOM 70
#define PW (WIDTH - LEFT - RIGHT)
#define PH (HEIGHT - TOP - BOTTOM)

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

/* Series s gets colour s % 10, dash s % 4 and marker s % 6: any two of
 * the first 60 series differ in at least one, and neighbours in all
 * three, so lines stay apart in grey print and for colour-blind eyes. */
static const char *const dashes[] = { "", "6,3", "2,3", "8,3,2,3" };
#define NDASHES (sizeof(dashes) / sizeof(dashes[0]))

enum marker {
	M_CIRCLE,
	M_SQUARE,
	M_TRIANGLE,
	M_DIAMOND,
	M_DOWN,
	M_CROSS,
	NMARKERS
};

void svg_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			/* XML 1.0 forbids most control characters. */
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
		}
	}
}

/* A 1, 2 or 5 times a power of ten step giving about @n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag, norm;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	if (norm < 1.5)
		return mag;
	if (norm < 3.5)
		return 2 * mag;
	if (norm < 7.5)
		return 5 * mag;
	return 10 * mag;
}

/* Widens [*lo, *hi] to whole steps; returns the step. */
static double nice_range(double *lo, double *hi, int n)
{
	double step;

	if (*hi <= *lo) {
		double d = *lo ? fabs(*lo) / 2 : 1;

		*lo -= d;
		*hi += d;
	}
	step = nice_step(*hi - *lo, n);
	*lo = floor(*lo / step) * step;
	*hi = ceil(*hi / step) * step;
	return step;
}

/* Tick label: %g, with -0 and float noise (1e-17 for 0) cleaned up
 * (@p step: the tick spacing, or the value itself on a log axis). */
static void tick_label(FILE *f, double v, double step)
{
	if (fabs(v) < step * 1e-9)
		v = 0;
	fprintf(f, "%.6g", v);
}

static int integral(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != floor(v[i]))
			return 0;
	return 1;
}

/* An axis: its data range (log10 of it on a log axis) and ticks. */
struct axis {
	bool log;
	double lo, hi, step; /* step: 0 on a log axis (decades) */
};

/* The position along an axis, 0 at lo and 1 at hi; NaN for a value a
 * log axis cannot show. */
static double frac(const struct axis *a, double v)
{
	if (a->log)
		v = v > 0 ? log10(v) : NAN;
	return (v - a->lo) / (a->hi - a->lo);
}

static double xpos(const struct svg_plot *p, const struct axis *ax, size_t i)
{
	if (!p->xval)
		return LEFT + PW * (i + 0.5) / p->nx;
	return LEFT + PW * frac(ax, p->xval[i]);
}

static double ypos(const struct axis *ay, double v)
{
	return TOP + PH - PH * frac(ay, v);
}

/* The ticks of an axis: its values in *v (at most @p max), the count
 * returned. A log axis ticks each decade, and 2 and 5 times it when it
 * spans less than three decades. */
static size_t ticks(const struct axis *a, double *v, size_t max)
{
	size_t n = 0;

	if (!a->log) {
		for (int k = 0; n < max; k++) {
			double t = a->lo + k * a->step;

			if (t > a->hi + a->step * 1e-6)
				break;
			v[n++] = fabs(t) < a->step * 1e-9 ? 0 : t;
		}
		return n;
	}
	for (double d = a->lo; d <= a->hi + 1e-9 && n < max; d++) {
		static const double mult[] = { 1, 2, 5 };

		for (size_t m = 0; m < 3 && n < max; m++) {
			double t = mult[m] * pow(10, d);

			if (m && a->hi - a->lo >= 3)
				break;
			if (log10(t) <= a->hi + 1e-9)
				v[n++] = t;
		}
	}
	return n;
}

/* The start of a picture @p width x @p height: the XML declaration, the
 * <svg> element, a white background and @p title centred on top (its
 * <text> element with @p attrs: " class=..." or ""). */
static void svg_head(FILE *f, int width, int height, const char *attrs,
		     const char *title)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text%s x=\"%d\" y=\"30\" font-size=\"16\" "
		"text-anchor=\"middle\">",
		width, height, width, height, attrs, width / 2);
	svg_escape(f, title);
	fputs("</text>\n", f);
}

/* Fits an axis to the data range [lo, hi] (positive on a log axis). */
static void fit_axis(struct axis *a, double lo, double hi, int nticks)
{
	if (a->log) {
		a->lo = floor(log10(lo));
		a->hi = ceil(log10(hi));
		if (a->hi <= a->lo)
			a->hi = a->lo + 1;
		a->step = 0;
		return;
	}
	a->lo = lo;
	a->hi = hi;
	a->step = nice_range(&a->lo, &a->hi, nticks);
}

static void write_axes(FILE *f, const struct svg_plot *p, const struct axis *ax,
		       const struct axis *ay)
{
	double tv[64];
	size_t nt;

	fprintf(f,
		"<g class=\"axes\" stroke=\"#000\" stroke-width=\"1\">\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</g>\n",
		LEFT, TOP + PH, LEFT + PW, TOP + PH, LEFT, TOP, LEFT, TOP + PH);

	/* y ticks and grid */
	fputs("<g class=\"yticks\" font-size=\"12\" text-anchor=\"end\">\n", f);
	nt = ticks(ay, tv, 64);
	for (size_t k = 0; k < nt; k++) {
		double y = ypos(ay, tv[k]);

		fprintf(f,
			"<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
			"stroke=\"#ddd\"/>\n"
			"<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
			"stroke=\"#000\"/>\n<text x=\"%d\" y=\"%.2f\">",
			LEFT, y, LEFT + PW, y, LEFT - 5, y, LEFT, y, LEFT - 8,
			y + 4);
		tick_label(f, tv[k], ay->log ? tv[k] : ay->step);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);

	/* x ticks: each category, or steps over the numeric range */
	fputs("<g class=\"xticks\" font-size=\"12\" text-anchor=\"middle\">\n",
	      f);
	nt = p->xval ? ticks(ax, tv, 64) : p->nx;
	for (size_t k = 0; k < nt; k++) {
		double x =
			p->xval ? LEFT + PW * frac(ax, tv[k]) : xpos(p, ax, k);

		fprintf(f,
			"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
			"y2=\"%d\" stroke=\"#000\"/>\n"
			"<text x=\"%.2f\" y=\"%d\">",
			x, TOP + PH, x, TOP + PH + 5, x, TOP + PH + 20);
		if (p->xval)
			tick_label(f, tv[k], ax->log ? tv[k] : ax->step);
		else
			svg_escape(f, p->xnames[k]);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);

	fprintf(f,
		"<text class=\"xlabel\" x=\"%d\" y=\"%d\" font-size=\"14\" "
		"text-anchor=\"middle\">",
		LEFT + PW / 2, HEIGHT - 20);
	svg_escape(f, p->xlabel);
	if (ax->log)
		fputs(", log scale", f);
	fprintf(f,
		"</text>\n<text class=\"ylabel\" x=\"20\" y=\"%d\" "
		"font-size=\"14\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 20 %d)\">",
		TOP + PH / 2, TOP + PH / 2);
	svg_escape(f, p->ylabel);
	if (ay->log)
		fputs(", log scale", f);
	fputs("</text>\n", f);
}

/* The shaded p5..p95 area of series @p s: along y_hi, back along y_lo. */
static void write_band(FILE *f, const struct svg_plot *p, size_t s,
		       const struct axis *ax, const struct axis *ay)
{
	const double *lo = p->y_lo + s * p->nx, *hi = p->y_hi + s * p->nx;
	int first = 1;

	fprintf(f,
		"<polygon class=\"band\" fill=\"%s\" fill-opacity=\"0.15\" "
		"stroke=\"none\" points=\"",
		colours[s % NCOLOURS]);
	for (size_t i = 0; i < p->nx; i++) {
		double x = xpos(p, ax, i), y = ypos(ay, hi[i]);

		if (isnan(x) || isnan(y) || isnan(ypos(ay, lo[i])))
			continue;
		fprintf(f, "%s%.2f,%.2f", first ? "" : " ", x, y);
		first = 0;
	}
	for (size_t i = p->nx; i-- > 0;) {
		double x = xpos(p, ax, i), y = ypos(ay, lo[i]);

		if (isnan(x) || isnan(y) || isnan(ypos(ay, hi[i])))
			continue;
		fprintf(f, " %.2f,%.2f", x, y);
	}
	fputs("\"/>\n", f);
}

static const char *const marker_names[NMARKERS] = {
	"circle", "square", "triangle", "diamond", "down", "cross",
};

/* Marker @p m of series colour @p c centred at (x, y); its class names
 * the shape ("marker triangle"). */
static void marker(FILE *f, enum marker m, double x, double y, const char *c)
{
	const double r = 4;

	switch (m) {
	case M_CIRCLE:
		fprintf(f,
			"<circle class=\"marker %s\" cx=\"%.2f\" cy=\"%.2f\" "
			"r=\"%.1f\" fill=\"%s\"/>\n",
			marker_names[m], x, y, r - 0.5, c);
		break;
	case M_SQUARE:
		fprintf(f,
			"<rect class=\"marker %s\" x=\"%.2f\" y=\"%.2f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
			marker_names[m], x - r + 0.5, y - r + 0.5, 2 * r - 1,
			2 * r - 1, c);
		break;
	case M_TRIANGLE:
	case M_DOWN: {
		double d = m == M_TRIANGLE ? 1 : -1;

		fprintf(f,
			"<polygon class=\"marker %s\" points=\"%.2f,%.2f "
			"%.2f,%.2f "
			"%.2f,%.2f\" fill=\"%s\"/>\n",
			marker_names[m], x, y - d * r, x - r, y + d * r * 0.8,
			x + r, y + d * r * 0.8, c);
		break;
	}
	case M_DIAMOND:
		fprintf(f,
			"<polygon class=\"marker %s\" points=\"%.2f,%.2f "
			"%.2f,%.2f "
			"%.2f,%.2f %.2f,%.2f\" fill=\"%s\"/>\n",
			marker_names[m], x, y - r, x + r, y, x, y + r, x - r, y,
			c);
		break;
	default:
		fprintf(f,
			"<path class=\"marker %s\" d=\"M%.2f %.2fL%.2f "
			"%.2fM%.2f "
			"%.2fL%.2f %.2f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			marker_names[m], x - r, y - r, x + r, y + r, x - r,
			y + r, x + r, y - r, c);
		break;
	}
}

static void line_style(FILE *f, size_t s)
{
	const char *dash = dashes[s % NDASHES];

	fprintf(f, "stroke=\"%s\" stroke-width=\"2\"", colours[s % NCOLOURS]);
	if (*dash)
		fprintf(f, " stroke-dasharray=\"%s\"", dash);
}

static void write_series(FILE *f, const struct svg_plot *p, size_t s,
			 const struct axis *ax, const struct axis *ay)
{
	const double *y = p->y + s * p->nx;
	int first = 1;

	fputs("<g class=\"line\"><title>", f);
	svg_escape(f, p->names[s]);
	fputs("</title>\n<polyline class=\"series\" fill=\"none\" ", f);
	line_style(f, s);
	fputs(" points=\"", f);
	for (size_t i = 0; i < p->nx; i++) {
		double px = xpos(p, ax, i), py = ypos(ay, y[i]);

		if (isnan(px) || isnan(py))
			continue;
		fprintf(f, "%s%.2f,%.2f", first ? "" : " ", px, py);
		first = 0;
	}
	fputs("\"/>\n", f);
	for (size_t i = 0; i < p->nx; i++) {
		double px = xpos(p, ax, i), py = ypos(ay, y[i]);

		if (!isnan(px) && !isnan(py))
			marker(f, (enum marker)(s % NMARKERS), px, py,
			       colours[s % NCOLOURS]);
	}
	fputs("</g>\n", f);
}

static void write_legend(FILE *f, const struct svg_plot *p)
{
	int x = LEFT + PW + 20;

	fputs("<g class=\"legend\" font-size=\"12\">\n", f);
	for (size_t s = 0; s < p->nseries; s++) {
		double y = TOP + 10 + 20.0 * (double)s;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" ",
			x, y, x + 24, y);
		line_style(f, s);
		fputs("/>\n", f);
		marker(f, (enum marker)(s % NMARKERS), x + 12, y,
		       colours[s % NCOLOURS]);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">", x + 30, y + 4);
		svg_escape(f, p->names[s]);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

/* Whether @p v can be shown on an axis (log: positive). */
static bool showable(double v, bool log)
{
	return !isnan(v) && isfinite(v) && (!log || v > 0);
}

int svg_plot_write(FILE *f, const struct svg_plot *p)
{
	struct axis ax = { .log = p->log_x, .lo = 0, .hi = 1, .step = 1 };
	struct axis ay = { .log = p->log_y };
	double ylo = 0, yhi = 0;
	int have = 0;

	if (!p->nx || !p->nseries)
		return -EINVAL;
	for (size_t k = 0; k < p->nx * p->nseries; k++) {
		double v[3] = { p->y[k], p->y_lo ? p->y_lo[k] : NAN,
				p->y_hi ? p->y_hi[k] : NAN };

		for (int j = 0; j < 3; j++) {
			if (!showable(v[j], p->log_y))
				continue;
			if (!have || v[j] < ylo)
				ylo = v[j];
			if (!have || v[j] > yhi)
				yhi = v[j];
			have = 1;
		}
	}
	if (!have && p->log_y)
		return -EDOM;
	/* Start a linear y axis at 0 for non-negative data: honest ratios. */
	if (!p->log_y && ylo > 0)
		ylo = 0;
	if (!have)
		ylo = 0, yhi = 1;
	fit_axis(&ay, ylo, yhi, 6);
	if (p->xval) {
		double xlo = NAN, xhi = NAN;

		for (size_t i = 0; i < p->nx; i++) {
			if (!showable(p->xval[i], p->log_x))
				return -EDOM;
			xlo = isnan(xlo) ? p->xval[i] : fmin(xlo, p->xval[i]);
			xhi = isnan(xhi) ? p->xval[i] : fmax(xhi, p->xval[i]);
		}
		fit_axis(&ax, xlo, xhi, 8);
		if (!ax.log && ax.step < 1 && integral(p->xval, p->nx)) {
			/* No 2.5-CPU ticks between whole-number values. */
			ax.step = 1;
			ax.lo = floor(ax.lo);
			ax.hi = ceil(ax.hi);
		}
	} else if (p->log_x) {
		return -EDOM;
	}

	svg_head(f, WIDTH, HEIGHT, " class=\"title\"", p->title);
	write_axes(f, p, &ax, &ay);
	for (size_t s = 0; p->y_lo && p->y_hi && s < p->nseries; s++)
		write_band(f, p, s, &ax, &ay);
	for (size_t s = 0; s < p->nseries; s++)
		write_series(f, p, s, &ax, &ay);
	write_legend(f, p);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------ tornado */

#define T_LEFT 250
#define T_RIGHT 60
#define T_ROW 26
#define T_HALF ((T_ROW - 6) / 2)

/* The x extent of the bars: the names' column on the left, and room on
 * either side for the value labels past the bars' ends, measured in
 * average glyph widths of a sans-serif face (0.6 em), so that no label
 * runs into the names or off the picture. */
struct t_axis {
	double names; /* where the names' column ends */
	double left, right, lo, hi;
};

static double text_w(const char *s, double font)
{
	return 0.6 * font * (double)strlen(s);
}

static double tx(const struct t_axis *ax, double v)
{
	return ax->left +
	       (ax->right - ax->left) * (v - ax->lo) / (ax->hi - ax->lo);
}

/* One half of a row (the low end above, the high end below): a bar from
 * the baseline to @p end and its label past the end. */
static void tornado_half(FILE *f, const char *cls, const char *colour,
			 double base, double end, const char *text, double y,
			 const struct t_axis *ax)
{
	double a = tx(ax, fmin(base, end)), b = tx(ax, fmax(base, end));
	bool right = end >= base;

	fprintf(f,
		"<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"%s\"/>\n"
		"<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" "
		"text-anchor=\"%s\">",
		cls, a, y, b - a, T_HALF, colour, right ? b + 3 : a - 3,
		y + T_HALF - 1.5, right ? "start" : "end");
	svg_escape(f, text);
	fputs("</text>\n", f);
}

/* The bars' extent for @p t: the names' column as wide as its longest
 * name (at least T_LEFT), then as much room as the widest label that
 * points left, and the same on the right. */
static void tornado_axis(const struct svg_tornado *t, int width,
			 struct t_axis *ax)
{
	double names = T_LEFT, lpad = 0, rpad = 0;

	for (size_t k = 0; k < t->n; k++) {
		const double ends[2] = { t->at_low[k], t->at_high[k] };
		const char *texts[2] = { t->low_text[k], t->high_text[k] };

		names = fmax(names, text_w(t->names[k], 12) + 16);
		for (int e = 0; e < 2; e++) {
			double w = text_w(texts[e], 10) + 6;

			if (ends[e] < t->baseline)
				lpad = fmax(lpad, w);
			else
				rpad = fmax(rpad, w);
		}
	}
	ax->names = names;
	ax->left = names + lpad;
	ax->right = width - fmax(T_RIGHT, rpad + 10);
}

int svg_tornado_write(FILE *f, const struct svg_tornado *t)
{
	int height = TOP + T_ROW * (int)t->n + BOTTOM, width = WIDTH;
	double lo = t->baseline, hi = t->baseline, step;
	struct t_axis ax;

	if (!t->n)
		return -EINVAL;
	/* a title longer than the picture widens it */
	if (text_w(t->title, 16) + 20 > width)
		width = (int)ceil(text_w(t->title, 16)) + 20;
	tornado_axis(t, width, &ax);
	for (size_t k = 0; k < t->n; k++) {
		lo = fmin(lo, fmin(t->at_low[k], t->at_high[k]));
		hi = fmax(hi, fmax(t->at_low[k], t->at_high[k]));
	}
	step = nice_range(&lo, &hi, 8);
	ax.lo = lo;
	ax.hi = hi;
	svg_head(f, width, height, "", t->title);
	fputs("<g class=\"xticks\" font-size=\"12\" "
	      "text-anchor=\"middle\">\n",
	      f);
	for (int k = 0;; k++) {
		double v = lo + k * step, x;

		if (v > hi + step * 1e-6)
			break;
		x = tx(&ax, v);
		fprintf(f,
			"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
			"stroke=\"#ddd\"/>\n<text x=\"%.2f\" y=\"%d\">",
			x, TOP, x, height - BOTTOM, x, height - BOTTOM + 18);
		tick_label(f, v, step);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
	for (size_t k = 0; k < t->n; k++) {
		double y = TOP + T_ROW * (double)k + 4;

		fprintf(f,
			"<g class=\"bar\"><text x=\"%d\" y=\"%.2f\" "
			"font-size=\"12\" text-anchor=\"end\">",
			(int)ax.names - 8, y + T_HALF + 4.0);
		svg_escape(f, t->names[k]);
		fputs("</text>\n", f);
		tornado_half(f, "low", colours[0], t->baseline, t->at_low[k],
			     t->low_text[k], y, &ax);
		tornado_half(f, "high", colours[1], t->baseline, t->at_high[k],
			     t->high_text[k], y + T_HALF, &ax);
		fputs("</g>\n", f);
	}
	fprintf(f,
		"<line class=\"baseline\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
		"y2=\"%d\" stroke=\"#000\" stroke-dasharray=\"4,3\"/>\n"
		"<text x=\"%d\" y=\"%d\" font-size=\"14\" "
		"text-anchor=\"middle\">",
		tx(&ax, t->baseline), TOP, tx(&ax, t->baseline),
		height - BOTTOM, (int)((ax.left + ax.right) / 2), height - 20);
	svg_escape(f, t->xlabel);
	fprintf(f,
		"</text>\n<g class=\"legend\" font-size=\"12\">"
		"<rect x=\"%d\" y=\"40\" width=\"12\" height=\"12\" "
		"fill=\"%s\"/><text x=\"%d\" y=\"50\">low end of the "
		"range</text><rect x=\"%d\" y=\"40\" width=\"12\" "
		"height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"50\">high "
		"end</text></g>\n</svg>\n",
		T_LEFT, colours[0], T_LEFT + 16, T_LEFT + 180, colours[1],
		T_LEFT + 196);
	return ferror(f) ? -EIO : 0;
}
