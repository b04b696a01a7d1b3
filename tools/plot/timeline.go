package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// traceLine is one line of "ecmul bench --trace": one timed run of a
// result, its GPU batches and their chunks, in milliseconds from the run's
// start on one clock; the fields keep the file's names.
type traceLine struct {
	Curve  string        `json:"curve"`
	Op     string        `json:"op"`
	GPUs   int           `json:"gpus"`
	Batch  int           `json:"batch"`
	Run    int           `json:"run"`
	WallMs float64       `json:"wall_ms"`
	Chunks []tracedChunk `json:"chunks"`
	Runs   []tracedRun   `json:"runs"`
}

// tracedChunk is a chunk of a trace: when its fill, copy in, kernels and
// copy out ended.
type tracedChunk struct {
	Device   int     `json:"device"`
	Entry    string  `json:"entry"`
	Lo       int     `json:"lo"`
	Hi       int     `json:"hi"`
	Start    float64 `json:"start_ms"`
	CopiedIn float64 `json:"copied_in_ms"`
	Ran      float64 `json:"ran_ms"`
	Done     float64 `json:"done_ms"`
}

// tracedRun is a GPU batch of a trace.
type tracedRun struct {
	Entry   string  `json:"entry"`
	Count   int     `json:"count"`
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
}

// readTrace reads the lines of a trace file.
func readTrace(path string) ([]traceLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []traceLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<28)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", path, n, err)
		}
		lines = append(lines, l)
	}
	return lines, sc.Err()
}

// name is the line's result and run, as a file name stem.
func (l traceLine) name() string {
	return fmt.Sprintf("timeline-%s-%s-g%d-%d-run%d", slug(l.Curve), l.Op, max(l.GPUs, 1), l.Batch, l.Run)
}

// span is an interval of milliseconds.
type span struct{ from, to float64 }

// union returns the length the spans cover together and the gaps between
// them, in order.
func union(spans []span) (covered float64, gaps []span) {
	spans = slices.Clone(spans)
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	end := math.Inf(-1)
	for _, s := range spans {
		if s.from > end && !math.IsInf(end, -1) {
			gaps = append(gaps, span{end, s.from})
		}
		if s.to > end {
			covered += s.to - max(s.from, end)
			end = s.to
		}
	}
	return covered, gaps
}

// inFlight returns, for each count k, how long exactly k of the spans
// were open together, from the first one's start to the last one's end.
func inFlight(spans []span) []float64 {
	type edge struct {
		at    float64
		delta int
	}
	var edges []edge
	for _, s := range spans {
		edges = append(edges, edge{s.from, 1}, edge{s.to, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
	var times []float64
	open := 0
	for i, e := range edges {
		if i > 0 {
			for len(times) <= open {
				times = append(times, 0)
			}
			times[open] += e.at - edges[i-1].at
		}
		open += e.delta
	}
	return times
}

// inFlightShares is ": k chunk(s) x%" for each count k above zero of
// inFlight, as shares of the time any chunk was in flight.
func inFlightShares(times []float64) string {
	total := 0.0
	for k, t := range times {
		if k > 0 {
			total += t
		}
	}
	var parts []string
	for k, t := range times {
		if k > 0 && total > 0 {
			parts = append(parts, fmt.Sprintf("%d %.0f%%", k, 100*t/total))
		}
	}
	return strings.Join(parts, ", ")
}

// devices returns the devices of the line's chunks, in order.
func (l traceLine) devices() []int {
	var ds []int
	for _, c := range l.Chunks {
		if !slices.Contains(ds, c.Device) {
			ds = append(ds, c.Device)
		}
	}
	slices.Sort(ds)
	return ds
}

// kernelSpans returns device d's chunks' kernel spans: from the copy in
// to the end of their last kernel.
func (l traceLine) kernelSpans(d int) []span {
	var out []span
	for _, c := range l.Chunks {
		if c.Device == d {
			out = append(out, span{c.CopiedIn, c.Ran})
		}
	}
	return out
}

// printTraceSummary writes, for each line, each device's time with a
// kernel running, its first kernel's start and last chunk's end, its gaps
// of over half a millisecond, and the shares of the time that 1, 2, …
// chunks were in flight on it (from the copy in to the copy out): a
// device whose chunks come one at a time runs its kernels back to back
// but not side by side.
func printTraceSummary(w io.Writer, lines []traceLine) {
	for _, l := range lines {
		fmt.Fprintf(w, "%s %s gpus=%d batch=%d run %d: %.1f ms, %d GPU batches, %d chunks\n",
			l.Curve, l.Op, max(l.GPUs, 1), l.Batch, l.Run, l.WallMs, len(l.Runs), len(l.Chunks))
		for _, d := range l.devices() {
			spans := l.kernelSpans(d)
			busy, gaps := union(spans)
			first, last := math.Inf(1), 0.0
			var chunks []span
			for _, c := range l.Chunks {
				if c.Device == d {
					first, last = min(first, c.CopiedIn), max(last, c.Done)
					chunks = append(chunks, span{c.Start, c.Done})
				}
			}
			var long []string
			idle := 0.0
			for _, g := range gaps {
				if g.to-g.from > 0.5 {
					long = append(long, fmt.Sprintf("%.1f at %.1f", g.to-g.from, g.from))
					idle += g.to - g.from
				}
			}
			fmt.Fprintf(w, "  device %d: kernels busy %.1f ms (%.0f%% of the run), from %.1f to %.1f ms; %d gap(s) over 0.5 ms, %.1f ms in all%s\n",
				d, busy, 100*busy/l.WallMs, first, last, len(long), idle, listed(long))
			fmt.Fprintf(w, "    chunks in flight: %s\n", inFlightShares(inFlight(chunks)))
		}
	}
}

// listed is ": a, b, c" of the first few of items, or nothing.
func listed(items []string) string {
	if len(items) == 0 {
		return ""
	}
	if len(items) > 6 {
		items = append(items[:6:6], "…")
	}
	return ": " + strings.Join(items, ", ")
}

// bars draws rectangles on a panel: a Gantt chart.
type bars []bar

type bar struct {
	x0, x1, y0, y1 float64
	color          color.Color
}

func (b bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, r := range b {
		pts := []vg.Point{{X: trX(r.x0), Y: trY(r.y0)}, {X: trX(r.x1), Y: trY(r.y0)}, {X: trX(r.x1), Y: trY(r.y1)}, {X: trX(r.x0), Y: trY(r.y1)}}
		c.FillPolygon(r.color, c.ClipPolygonXY(pts))
	}
}

func (b bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin, xmax, ymax = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, r := range b {
		xmin, xmax, ymin, ymax = min(xmin, r.x0), max(xmax, r.x1), min(ymin, r.y0), max(ymax, r.y1)
	}
	return xmin, xmax, ymin, ymax
}

// lanes places spans on lanes so that none overlaps another of its lane:
// each on the first lane free at its start. It returns each span's lane
// and the number of lanes.
func lanes(spans []span) (lane []int, n int) {
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(spans[a].from, spans[b].from) })
	lane = make([]int, len(spans))
	var ends []float64
	for _, i := range order {
		k := slices.IndexFunc(ends, func(e float64) bool { return e <= spans[i].from })
		if k < 0 {
			k, ends = len(ends), append(ends, 0)
		}
		lane[i], ends[k] = k, spans[i].to
	}
	return lane, len(ends)
}

// timelineFigure draws a line of a trace: on top, the GPU batches on the
// host; below, each device's chunks, on as many rows as overlap, each
// chunk's copies grey and its kernels in its entry point's colour.
func timelineFigure(l traceLine) *figure {
	p := newPanel("", "milliseconds from the run's start", "")
	entries := map[string]color.Color{}
	colorOf := func(e string) color.Color {
		if c, ok := entries[e]; ok {
			return c
		}
		entries[e] = plotColors[len(entries)%len(plotColors)]
		return entries[e]
	}
	var bs bars
	var ticks []plot.Tick
	y := 0.0
	for _, d := range slices.Backward(l.devices()) {
		var chunks []tracedChunk
		var spans []span
		for _, c := range l.Chunks {
			if c.Device == d {
				chunks, spans = append(chunks, c), append(spans, span{c.Start, c.Done})
			}
		}
		lane, n := lanes(spans)
		grey := color.Gray{Y: 190}
		for i, c := range chunks {
			y0 := y + float64(lane[i])
			bs = append(bs, bar{c.Start, c.CopiedIn, y0 + 0.1, y0 + 0.9, grey}, bar{c.CopiedIn, c.Ran, y0 + 0.1, y0 + 0.9, colorOf(c.Entry)},
				bar{c.Ran, c.Done, y0 + 0.1, y0 + 0.9, grey})
		}
		ticks = append(ticks, plot.Tick{Value: y + float64(n)/2, Label: fmt.Sprintf("device %d", d)})
		y += float64(n) + 0.5
	}
	var spans []span
	for _, r := range l.Runs {
		spans = append(spans, span{r.StartMs, r.EndMs})
	}
	lane, n := lanes(spans)
	for i, r := range l.Runs {
		y0 := y + float64(lane[i])
		bs = append(bs, bar{r.StartMs, r.EndMs, y0 + 0.1, y0 + 0.9, colorOf(r.Entry)})
	}
	ticks = append(ticks, plot.Tick{Value: y + float64(n)/2, Label: "host: batches"})
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(bs)
	p.X.Min, p.X.Max = 0, max(l.WallMs, p.X.Max)
	f := newFigure(fmt.Sprintf("%s %s, %d GPU(s), batch %d, run %d: %.1f ms", l.Curve, l.Op, max(l.GPUs, 1), l.Batch, l.Run, l.WallMs),
		"each chunk: copy in (grey), its kernels (its entry point's colour), copy out (grey); on top, the host's GPU batches",
		[]*plot.Plot{p})
	names := make([]string, 0, len(entries))
	for e := range entries {
		names = append(names, e)
	}
	slices.Sort(names)
	for _, e := range names {
		f.legend = append(f.legend, legendEntry{name: e, thumbs: []plot.Thumbnailer{swatch{entries[e]}}})
	}
	return f
}

// swatch is a legend's filled square of a colour.
type swatch struct{ color color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(s.color, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// writeTimelines writes each trace line's timeline chart into dir in every
// format, naming each file written on stderr.
func writeTimelines(lines []traceLine, dir string, formats []string, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	setPlotFonts()
	for _, l := range lines {
		f := timelineFigure(l)
		for _, format := range formats {
			name := filepath.Join(dir, l.name()+"."+format)
			if err := f.save(name, format); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			fmt.Fprintf(stderr, "wrote %s\n", name)
		}
	}
	return nil
}
