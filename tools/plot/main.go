// Command plot draws latency and throughput charts from the JSON reports
// of "ecmul bench --json". It is a module of its own so that the library
// and the ecmul command do not carry the plotting library. From a checkout
// of the repository:
//
//	cd tools/plot && go run . --in ../../bench.json --out ../../plots
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

const plotHelp = `Usage: plot --in FILE.json[,FILE2.json...] [--out DIR] [flags]

Draws charts from the JSON reports of "ecmul bench --json", as SVG and PNG
files in --out, for each curve of each device and commit found in the files:

  latency-CURVE      latency of one batch versus batch size (log-log), end to
                     end (solid) and kernel only (dashed), one line per
                     variant (base extension, mapping, items per block); on
                     P-224 the paper's GTX 285 figures are marked
  throughput-CURVE   scalar multiplications per second versus batch size (log
                     x), end to end and kernel only, with the CPU peers of the
                     same run as horizontal lines, named in the legend
  ipb-CURVE          latency versus items per block, the paper's Figure 1:
                     end to end at the largest batch measured with several
                     items per block, the kernel alone, and one block
                     (batch = items per block) where measured; only when the
                     data has several items per block

Every axis spans every line of its chart, the peers' included. With many
variants the charts are split into panels, one per base extension and
mapping, with a colour per number of items per block. The title names the
device, the curve and the commit. A summary table (best figures per variant,
as ratios to the best CPU peer) goes to standard output.

With --trace it reads the traces of "ecmul bench --trace" instead, or as
well, and draws for each timed run in them:

  timeline-CURVE-OP-gGPUS-BATCH-runN
                     each GPU chunk on a row of its device (copy in, its
                     kernels, copy out) and the host's GPU batches on top,
                     in milliseconds from the run's start

and prints, for each run, each device's time with a kernel running and its
gaps of over half a millisecond.

Example, from tools/plot in a checkout of the repository:
  ecmul bench --backend gpu --curve p224 --ipb 4,8 --json p224.json
  go run . --in p224.json --out plots

Exit status: 0 on success, 1 when a report cannot be read or a chart cannot
be written, 2 for usage errors.

Flags:
`

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // a report cannot be read or a chart cannot be written
	exitUsage = 2 // bad flags or arguments
)

// plotFlags are the settings of plot.
type plotFlags struct {
	in, trace, out, formats string
	paper                   bool
}

func plotFlagSet(f *plotFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), plotHelp); fs.PrintDefaults() }
	fs.StringVar(&f.in, "in", "", "comma-separated JSON reports written by ecmul bench --json")
	fs.StringVar(&f.trace, "trace", "", "comma-separated traces written by ecmul bench --trace: a timeline chart of each run, and a summary of each device's busy time and gaps")
	fs.StringVar(&f.out, "out", ".", "folder for the charts (created if missing)")
	fs.StringVar(&f.formats, "format", "svg,png", "comma-separated output formats: svg, png")
	fs.BoolVar(&f.paper, "paper", true, "mark the paper's GTX 285 figures on the P-224 latency chart")
	return fs
}

// parsePlotFlags parses args, writing errors and help to stderr, and
// returns the reports and chart formats named. When plot must not go on,
// ok is false and code is its exit status.
func parsePlotFlags(args []string, stderr io.Writer) (f plotFlags, paths, formats []string, code int, ok bool) {
	fs := plotFlagSet(&f)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, nil, nil, exitOK, false
		}
		return f, nil, nil, exitUsage, false
	}
	err := checkPlotFlags(&f)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q: every setting is a flag", fs.Arg(0))
	}
	if err != nil {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		return f, nil, nil, exitUsage, false
	}
	return f, splitList(f.in), splitList(strings.ToLower(f.formats)), exitOK, true
}

// checkPlotFlags checks that reports and known formats are named.
func checkPlotFlags(f *plotFlags) error {
	formats := splitList(strings.ToLower(f.formats))
	switch {
	case len(splitList(f.in)) == 0 && len(splitList(f.trace)) == 0:
		return errors.New("--in or --trace is required")
	case len(formats) == 0:
		return errors.New("--format: empty list")
	}
	for _, f := range formats {
		if f != "svg" && f != "png" {
			return fmt.Errorf("--format: unknown format %q (svg or png)", f)
		}
	}
	return nil
}

// splitList splits a comma-separated list, dropping blanks and repeats.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// run is the command: it reads the reports, writes the charts and prints
// the summary, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	f, paths, formats, code, ok := parsePlotFlags(args, stderr)
	if !ok {
		return code
	}
	if traces := splitList(f.trace); len(traces) > 0 {
		if code := runTraces(traces, f.out, formats, stdout, stderr); code != exitOK || len(paths) == 0 {
			return code
		}
	}
	var reports []*benchReport
	for _, p := range paths {
		rep, err := readReport(p)
		if err != nil {
			fmt.Fprintf(stderr, "plot: %v\n", err)
			return exitFail
		}
		reports = append(reports, rep)
	}
	groups := groupReports(reports)
	if len(groups) == 0 {
		fmt.Fprintln(stderr, "plot: no results in the input")
		return exitFail
	}
	if err := writeCharts(groups, f.out, formats, f.paper, stderr); err != nil {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		return exitFail
	}
	printPlotSummary(stdout, groups)
	return exitOK
}

// runTraces reads the traces, writes their timelines and prints their
// summary, and returns the exit status.
func runTraces(paths []string, dir string, formats []string, stdout, stderr io.Writer) int {
	var lines []traceLine
	for _, p := range paths {
		l, err := readTrace(p)
		if err != nil {
			fmt.Fprintf(stderr, "plot: %v\n", err)
			return exitFail
		}
		lines = append(lines, l...)
	}
	if len(lines) == 0 {
		fmt.Fprintln(stderr, "plot: no runs in the traces")
		return exitFail
	}
	if err := writeTimelines(lines, dir, formats, stderr); err != nil {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		return exitFail
	}
	printTraceSummary(stdout, lines)
	return exitOK
}

// writeCharts writes each group's charts into dir in every format, naming
// each file written on stderr.
func writeCharts(groups []*plotGroup, dir string, formats []string, paper bool, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	setPlotFonts()
	for _, g := range groups {
		figs := []struct {
			stem string
			fig  *figure
		}{
			{"latency-" + g.stem, latencyFigure(g, paper)},
			{"throughput-" + g.stem, throughputFigure(g)},
			{"ipb-" + g.stem, ipbFigure(g)},
		}
		for _, f := range figs {
			if f.fig == nil {
				continue
			}
			for _, format := range formats {
				name := filepath.Join(dir, f.stem+"."+format)
				if err := f.fig.save(name, format); err != nil {
					return fmt.Errorf("%s: %v", name, err)
				}
				fmt.Fprintf(stderr, "wrote %s\n", name)
			}
		}
	}
	return nil
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
