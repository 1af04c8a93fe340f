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

static const char *const dashes[] = { "", "6,3", "2,3", "8,3,2,3" };
#define NDASHES (sizeof(dashes) / sizeof(dashes[0]))

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

/* Tick label: %g, with -0 and float noise (1e-17 for 0) cleaned up. */
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

static double xpos(const struct svg_plot *p, size_t i, double lo, double hi)
{
	if (!p->xval)
		return LEFT + PW * (i + 0.5) / p->nx;
	return LEFT + PW * (p->xval[i] - lo) / (hi - lo);
}

static void write_axes(FILE *f, const struct svg_plot *p, double xlo,
		       double xhi, double xstep, double ylo, double yhi,
		       double ystep)
{
	fprintf(f,
		"<g class=\"axes\" stroke=\"#000\" stroke-width=\"1\">\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</g>\n",
		LEFT, TOP + PH, LEFT + PW, TOP + PH, LEFT, TOP, LEFT, TOP + PH);

	/* y ticks and grid */
	fputs("<g class=\"yticks\" font-size=\"12\" text-anchor=\"end\">\n", f);
	for (int k = 0;; k++) {
		double v = ylo + k * ystep, y;

		if (v > yhi + ystep * 1e-6)
			break;
		y = TOP + PH - PH * (v - ylo) / (yhi - ylo);
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
			"stroke=\"#ddd\"/>\n"
			"<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
			"stroke=\"#000\"/>\n<text x=\"%d\" y=\"%.2f\">",
			LEFT, y, LEFT + PW, y, LEFT - 5, y, LEFT, y, LEFT - 8,
			y + 4);
		tick_label(f, v, ystep);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);

	/* x ticks: each category, or nice steps over the numeric range */
	fputs("<g class=\"xticks\" font-size=\"12\" text-anchor=\"middle\">\n",
	      f);
	if (!p->xval) {
		for (size_t i = 0; i < p->nx; i++) {
			double x = xpos(p, i, 0, 1);

			fprintf(f,
				"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
				"y2=\"%d\" stroke=\"#000\"/>\n"
				"<text x=\"%.2f\" y=\"%d\">",
				x, TOP + PH, x, TOP + PH + 5, x, TOP + PH + 20);
			svg_escape(f, p->xnames[i]);
			fputs("</text>\n", f);
		}
	} else {
		for (int k = 0;; k++) {
			double v = xlo + k * xstep, x;

			if (v > xhi + xstep * 1e-6)
				break;
			x = LEFT + PW * (v - xlo) / (xhi - xlo);
			fprintf(f,
				"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
				"y2=\"%d\" stroke=\"#000\"/>\n"
				"<text x=\"%.2f\" y=\"%d\">",
				x, TOP + PH, x, TOP + PH + 5, x, TOP + PH + 20);
			tick_label(f, v, xstep);
			fputs("</text>\n", f);
		}
	}
	fputs("</g>\n", f);

	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"14\" "
		"text-anchor=\"middle\">",
		LEFT + PW / 2, HEIGHT - 20);
	svg_escape(f, p->xlabel);
	fprintf(f,
		"</text>\n<text x=\"20\" y=\"%d\" font-size=\"14\" "
		"text-anchor=\"middle\" transform=\"rotate(-90 20 %d)\">",
		TOP + PH / 2, TOP + PH / 2);
	svg_escape(f, p->ylabel);
	fputs("</text>\n", f);
}

static double ypos(double v, double ylo, double yhi)
{
	return TOP + PH - PH * (v - ylo) / (yhi - ylo);
}

/* The shaded p5..p95 area of series @p s: along y_hi, back along y_lo. */
static void write_band(FILE *f, const struct svg_plot *p, size_t s, double xlo,
		       double xhi, double ylo, double yhi)
{
	const double *lo = p->y_lo + s * p->nx, *hi = p->y_hi + s * p->nx;
	int first = 1;

	fprintf(f,
		"<polygon class=\"band\" fill=\"%s\" fill-opacity=\"0.15\" "
		"stroke=\"none\" points=\"",
		colours[s % NCOLOURS]);
	for (size_t i = 0; i < p->nx; i++) {
		if (isnan(hi[i]))
			continue;
		fprintf(f, "%s%.2f,%.2f", first ? "" : " ",
			xpos(p, i, xlo, xhi), ypos(hi[i], ylo, yhi));
		first = 0;
	}
	for (size_t i = p->nx; i-- > 0;) {
		if (isnan(lo[i]))
			continue;
		fprintf(f, " %.2f,%.2f", xpos(p, i, xlo, xhi),
			ypos(lo[i], ylo, yhi));
	}
	fputs("\"/>\n", f);
}

static void write_series(FILE *f, const struct svg_plot *p, size_t s,
			 double xlo, double xhi, double ylo, double yhi)
{
	const char *colour = colours[s % NCOLOURS];
	const char *dash = dashes[(s / NCOLOURS) % NDASHES];
	const double *y = p->y + s * p->nx;

	fputs("<g class=\"line\"><title>", f);
	svg_escape(f, p->names[s]);
	fprintf(f,
		"</title>\n<polyline class=\"series\" fill=\"none\" "
		"stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"",
		colour, *dash ? " stroke-dasharray=\"" : "", dash,
		*dash ? "\"" : "");
	for (size_t i = 0, first = 1; i < p->nx; i++) {
		if (isnan(y[i]))
			continue;
		fprintf(f, "%s%.2f,%.2f", first ? "" : " ",
			xpos(p, i, xlo, xhi),
			TOP + PH - PH * (y[i] - ylo) / (yhi - ylo));
		first = 0;
	}
	fputs("\"/>\n", f);
	for (size_t i = 0; i < p->nx; i++) {
		if (isnan(y[i]))
			continue;
		fprintf(f,
			"<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" "
			"fill=\"%s\"/>\n",
			xpos(p, i, xlo, xhi),
			TOP + PH - PH * (y[i] - ylo) / (yhi - ylo), colour);
	}
	fputs("</g>\n", f);
}

static void write_legend(FILE *f, const struct svg_plot *p)
{
	int x = LEFT + PW + 20;

	fputs("<g class=\"legend\" font-size=\"12\">\n", f);
	for (size_t s = 0; s < p->nseries; s++) {
		const char *dash = dashes[(s / NCOLOURS) % NDASHES];
		double y = TOP + 10 + 20.0 * (double)s;

		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"2\"%s%s%s/>\n"
			"<text x=\"%d\" y=\"%.1f\">",
			x, y, x + 24, y, colours[s % NCOLOURS],
			*dash ? " stroke-dasharray=\"" : "", dash,
			*dash ? "\"" : "", x + 30, y + 4);
		svg_escape(f, p->names[s]);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

int svg_plot_write(FILE *f, const struct svg_plot *p)
{
	double ylo = 0, yhi = 0, xlo = 0, xhi = 1, ystep, xstep = 1;
	int have = 0;

	if (!p->nx || !p->nseries)
		return -EINVAL;
	for (size_t k = 0; k < p->nx * p->nseries; k++) {
		double lo = p->y[k], hi = p->y[k];

		if (p->y_lo && p->y_hi && !isnan(p->y_lo[k]) &&
		    !isnan(p->y_hi[k])) {
			lo = isnan(lo) ? p->y_lo[k] : fmin(lo, p->y_lo[k]);
			hi = isnan(hi) ? p->y_hi[k] : fmax(hi, p->y_hi[k]);
		}
		if (isnan(lo))
			continue;
		if (!have || lo < ylo)
			ylo = lo;
		if (!have || hi > yhi)
			yhi = hi;
		have = 1;
	}
	/* Start the y axis at 0 for non-negative data: honest ratios. */
	if (ylo > 0)
		ylo = 0;
	ystep = nice_range(&ylo, &yhi, 6);
	if (p->xval) {
		xlo = xhi = p->xval[0];
		for (size_t i = 1; i < p->nx; i++) {
			xlo = fmin(xlo, p->xval[i]);
			xhi = fmax(xhi, p->xval[i]);
		}
		xstep = nice_range(&xlo, &xhi, 8);
		if (xstep < 1 && integral(p->xval, p->nx)) {
			/* No 2.5-CPU ticks between whole-number values. */
			xstep = 1;
			xlo = floor(xlo);
			xhi = ceil(xhi);
		}
	}

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text x=\"%d\" y=\"30\" font-size=\"16\" "
		"text-anchor=\"middle\">",
		WIDTH, HEIGHT, WIDTH, HEIGHT, WIDTH / 2);
	svg_escape(f, p->title);
	fputs("</text>\n", f);
	write_axes(f, p, xlo, xhi, xstep, ylo, yhi, ystep);
	for (size_t s = 0; p->y_lo && p->y_hi && s < p->nseries; s++)
		write_band(f, p, s, xlo, xhi, ylo, yhi);
	for (size_t s = 0; s < p->nseries; s++)
		write_series(f, p, s, xlo, xhi, ylo, yhi);
	write_legend(f, p);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------ tornado */

#define T_LEFT 250
#define T_RIGHT 60
#define T_ROW 26

static double tx(double v, double lo, double hi)
{
	return T_LEFT + (WIDTH - T_LEFT - T_RIGHT) * (v - lo) / (hi - lo);
}

#define T_HALF ((T_ROW - 6) / 2)

/* One half of a row (the low end above, the high end below): a bar from
 * the baseline to @p end and its label past the end. */
static void tornado_half(FILE *f, const char *cls, const char *colour,
			 double base, double end, const char *text, double y,
			 double lo, double hi)
{
	double a = tx(fmin(base, end), lo, hi), b = tx(fmax(base, end), lo, hi);
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

int svg_tornado_write(FILE *f, const struct svg_tornado *t)
{
	int height = TOP + T_ROW * (int)t->n + BOTTOM;
	double lo = t->baseline, hi = t->baseline, step;

	if (!t->n)
		return -EINVAL;
	for (size_t k = 0; k < t->n; k++) {
		lo = fmin(lo, fmin(t->at_low[k], t->at_high[k]));
		hi = fmax(hi, fmax(t->at_low[k], t->at_high[k]));
	}
	step = nice_range(&lo, &hi, 8);
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text x=\"%d\" y=\"30\" font-size=\"16\" "
		"text-anchor=\"middle\">",
		WIDTH, height, WIDTH, height, WIDTH / 2);
	svg_escape(f, t->title);
	fputs("</text>\n<g class=\"xticks\" font-size=\"12\" "
	      "text-anchor=\"middle\">\n",
	      f);
	for (int k = 0;; k++) {
		double v = lo + k * step, x;

		if (v > hi + step * 1e-6)
			break;
		x = tx(v, lo, hi);
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
			T_LEFT - 8, y + T_HALF + 4.0);
		svg_escape(f, t->names[k]);
		fputs("</text>\n", f);
		tornado_half(f, "low", colours[0], t->baseline, t->at_low[k],
			     t->low_text[k], y, lo, hi);
		tornado_half(f, "high", colours[1], t->baseline, t->at_high[k],
			     t->high_text[k], y + T_HALF, lo, hi);
		fputs("</g>\n", f);
	}
	fprintf(f,
		"<line class=\"baseline\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
		"y2=\"%d\" stroke=\"#000\" stroke-dasharray=\"4,3\"/>\n"
		"<text x=\"%d\" y=\"%d\" font-size=\"14\" "
		"text-anchor=\"middle\">",
		tx(t->baseline, lo, hi), TOP, tx(t->baseline, lo, hi),
		height - BOTTOM, T_LEFT + (WIDTH - T_LEFT - T_RIGHT) / 2,
		height - 20);
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
