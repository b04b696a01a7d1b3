package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
)

// printPlotSummary prints, per group, the peers and each variant's best
// figures: latency of one item, best end-to-end and kernel throughput, and
// those as ratios to the best peer.
func printPlotSummary(w io.Writer, groups []*plotGroup) {
	for i, g := range groups {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  ·  %s\n", g.curve, g.subtitle())
		best := 0.0
		for _, p := range g.peers {
			best = max(best, p.OpsPerSec)
			fmt.Fprintf(w, "  peer: %-34s %10s op/s\n", p.Name, siOps(p.OpsPerSec))
		}
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "variant\t1 item ms\tkernel 1 item ms\tbest end-to-end op/s\tat batch\tvs best peer\tbest kernel op/s\tvs best peer\t\n")
		for _, r := range summaryRows(g) {
			r.print(tw, best)
		}
		tw.Flush()
	}
}

// summaryRow is a variant's best figures.
type summaryRow struct {
	v                   plotVariant
	one, kone, e2e, ker float64 // latency of one item, end to end and kernel only; best op/s, end to end and kernel only
	at                  int     // the batch of the best end-to-end op/s
}

// summaryRows returns each variant's best figures, the fastest end to end
// first.
func summaryRows(g *plotGroup) []summaryRow {
	var rows []summaryRow
	for _, v := range g.variants() {
		r := summaryRow{v: v}
		for _, x := range g.series(v) {
			if x.Batch == 1 {
				r.one, r.kone = x.LatencyMs, x.KernelMs
			}
			if x.OpsPerSec > r.e2e {
				r.e2e, r.at = x.OpsPerSec, x.Batch
			}
			r.ker = max(r.ker, x.KernelOps)
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b summaryRow) int { return int(math.Copysign(1, b.e2e-a.e2e)) })
	return rows
}

// print writes the row as a line of the table, with its throughputs as
// ratios to best, the fastest peer's op/s; "-" marks a figure not measured.
func (r summaryRow) print(tw io.Writer, best float64) {
	num := func(v float64, f string) string {
		if v <= 0 {
			return "-"
		}
		return fmt.Sprintf(f, v)
	}
	kern := func(v float64) string {
		if v <= 0 {
			return "-"
		}
		return siOps(v)
	}
	ratio := func(v float64) string {
		if v <= 0 || best <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2fx", v/best)
	}
	name := r.v.label()
	if name == "" {
		name = r.v.backend
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", name, num(r.one, "%.3f"), num(r.kone, "%.3f"),
		siOps(r.e2e), r.at, ratio(r.e2e), kern(r.ker), ratio(r.ker))
}
