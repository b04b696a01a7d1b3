package main

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// jsonField is a field of a struct as encoding/json names it.
type jsonField struct {
	name      string
	index     int
	omitEmpty bool
}

// jsonFields lists the scalar fields of struct type t under their JSON
// names, in declaration order; slices, pointers (lists and objects, the
// JSON's only) and untagged fields are left out.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("json")
		if !ok || tag == "-" || f.Type.Kind() == reflect.Slice || f.Type.Kind() == reflect.Pointer {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		out = append(out, jsonField{name: name, index: i, omitEmpty: slices.Contains(strings.Split(opts, ","), "omitempty")})
	}
	return out
}

// csvCell formats a field: floats in the shortest form that reads back
// exactly; an omitempty field at its zero value is left empty, as the JSON
// leaves it out.
func csvCell(v reflect.Value, omitEmpty bool) string {
	if omitEmpty && v.IsZero() {
		return ""
	}
	switch v.Kind() {
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Int:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.String:
		return v.String()
	}
	return fmt.Sprint(v.Interface())
}

// benchCSVHeader returns the CSV columns: kind ("result" or "peer"), the
// report's own fields, every field of a result, then the fields of a peer
// that a result does not have; each named as in the JSON.
func benchCSVHeader() []string {
	head := []string{"kind"}
	for _, t := range []reflect.Type{reflect.TypeFor[benchReport](), reflect.TypeFor[benchResult](), reflect.TypeFor[benchPeer]()} {
		for _, f := range jsonFields(t) {
			if !slices.Contains(head, f.name) {
				head = append(head, f.name)
			}
		}
	}
	return head
}

// writeBenchCSV writes one row per result, peer and GPU peer under
// benchCSVHeader; each row repeats the report's fields.
func writeBenchCSV(w io.Writer, rep *benchReport) error {
	head := benchCSVHeader()
	col := make(map[string]int, len(head))
	for i, h := range head {
		col[h] = i
	}
	base := make([]string, len(head))
	rv := reflect.ValueOf(*rep)
	for _, f := range jsonFields(rv.Type()) {
		base[col[f.name]] = csvCell(rv.Field(f.index), f.omitEmpty)
	}
	row := func(kind string, v reflect.Value) []string {
		r := slices.Clone(base)
		r[0] = kind
		for _, f := range jsonFields(v.Type()) {
			r[col[f.name]] = csvCell(v.Field(f.index), f.omitEmpty)
		}
		return r
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range rep.Results {
		if err := cw.Write(row("result", reflect.ValueOf(r))); err != nil {
			return err
		}
	}
	for _, p := range rep.Peers {
		if err := cw.Write(row("peer", reflect.ValueOf(p))); err != nil {
			return err
		}
	}
	for _, p := range rep.GPUPeers {
		if err := cw.Write(row("gpu_peer", reflect.ValueOf(p))); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// benchColumns are the table's columns: the configuration, then the
// figures.
var benchColumns = []string{"curve", "op", "backend", "schedule", "ext", "bits", "mapping", "ipb", "gpus", "batch",
	"latency ms", "end-to-end op/s", "bytes API op/s", "kernel op/s", "vs best peer", "vs k·P", "vs k·G"}

// printBench writes the report as a table: its header line, the peers,
// then a row per result.
func printBench(w io.Writer, rep *benchReport) {
	fmt.Fprintf(w, "device: %s  driver: %s  host: %d cores %s  commit: %.12s  %s\n", rep.Device, rep.Driver, rep.HostCores, rep.HostCPU, rep.Commit, rep.Date)
	for _, p := range rep.Peers {
		fmt.Fprintf(w, "peer %-9s %-5s %-40s %12.0f op/s\n", p.Curve, p.Op, p.Name, p.OpsPerSec)
	}
	for _, p := range rep.GPUPeers {
		fmt.Fprintf(w, "gpu peer %s %s %s, batch %d: %.0f op/s\n", p.Curve, cmp.Or(p.Op, "-"), p.Name, p.Batch, p.OpsPerSec)
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t\n", strings.Join(benchColumns, "\t"))
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(tableRow(r), "\t"))
	}
	tw.Flush()
}

// tableRow returns r's cells under benchColumns: "-" for a setting that
// means nothing on r's backend and a figure not measured, "default" for
// items per block left for the library to choose.
func tableRow(r benchResult) []string {
	dash := func(s string) string {
		if s == "" || s == "0" {
			return "-"
		}
		return s
	}
	figure := func(v float64, format string) string {
		if v <= 0 {
			return "-"
		}
		return fmt.Sprintf(format, v)
	}
	return []string{r.Curve, dash(r.Op), r.Backend, dash(r.Schedule), dash(r.Ext), dash(strconv.Itoa(r.ChannelBits)), dash(r.Mapping), dash(strconv.Itoa(r.ItemsPerBlock)),
		dash(strconv.Itoa(r.GPUs)), strconv.Itoa(r.Batch), fmt.Sprintf("%.3f", r.LatencyMs), fmt.Sprintf("%.0f", r.OpsPerSec),
		figure(r.BytesOpsPerSec, "%.0f"), figure(r.KernelOps, "%.0f"), figure(r.RatioToPeer, "%.2fx"), figure(r.RatioToMul, "%.2fx"), figure(r.RatioToBase, "%.2fx")}
}
