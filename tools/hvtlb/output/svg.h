/* SPDX-License-Identifier: MIT */
/*
 * Self-contained SVG 1.1 plots (no dependencies): a line plot with optional
 * bands for `hvtlb sweep --svg`, a tornado plot for `hvtlb sensitivity
 * --svg`. Nothing here allocates; the caller owns every array.
 */
#ifndef HVTLB_TOOL_SVG_H
#define HVTLB_TOOL_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/** One plot: @nseries lines over the same @nx x positions. */
struct svg_plot {
	const char *title;  /**< text above the plot (escaped for XML) */
	const char *xlabel; /**< x axis label */
	const char *ylabel; /**< y axis label */
	size_t nx;
	const char *const *xnames; /**< @nx tick labels (categorical axis) */
	const double *xval; /**< @nx numbers, or NULL: categorical, evenly
			     *   spaced and labelled with @xnames */
	size_t nseries;
	const char *const *names; /**< @nseries legend entries */
	const double *y;	  /**< y[s * nx + i]; NaN: no point (skipped) */
	/** Optional bands, laid out like @y (NULL: none): each series gets a
	 *  shaded area from y_lo to y_hi (class "band") under its line. */
	const double *y_lo, *y_hi;
	/** Logarithmic axes: ticks at each decade (and 2 and 5 times it
	 *  over less than three decades); values <= 0 are left out on the
	 *  y axis, and make a log x axis fail (-EDOM). */
	bool log_x, log_y;
};

/** A tornado plot: one horizontal bar per parameter, from the value of
 *  the outcome at the low end of its range to the one at the high end,
 *  around a vertical line at the baseline. */
struct svg_tornado {
	const char *title;
	const char *xlabel;
	double baseline;
	size_t n; /**< bars, drawn top to bottom in this order */
	const char *const *names;
	const double *at_low, *at_high;
	const char *const *low_text, *const *high_text; /**< end labels */
};

/**
 * Writes @p p as an SVG document to @p f. Each series is one <polyline>
 * (class "series") whose points are its non-NaN values in x order, a
 * marker per point (class "marker") and a legend entry; series s has
 * colour s % 10, dash pattern s % 4 and marker shape s % 6 (circle,
 * square, triangle, diamond, inverted triangle, cross). The title has
 * class "title", the axis labels "xlabel" and "ylabel" (", log scale"
 * added on a log axis). Returns 0, -EINVAL for an empty plot (nx or
 * nseries 0), -EDOM when a log axis has nothing positive to show (or a
 * categorical x), or -EIO when writing failed.
 */
int svg_plot_write(FILE *f, const struct svg_plot *p);

/**
 * Writes @p t as an SVG document: each row is a <rect class="low"> (upper
 * half) and a <rect class="high"> (lower half) from the baseline to the
 * outcome at each end, labelled with low_text / high_text. Returns 0,
 * -EINVAL for no bars, or -EIO.
 */
int svg_tornado_write(FILE *f, const struct svg_tornado *t);

/** Writes @p s with &, <, >, " and ' escaped and control bytes replaced. */
void svg_escape(FILE *f, const char *s);

#endif
