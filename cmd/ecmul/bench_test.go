package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
	"github.com/rnsec/ecmul/internal/ladder"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{10, 1}, 5.5},
		{[]float64{5, 5, 1, 9, 5}, 5},
	} {
		in := append([]float64(nil), c.in...)
		require.Equal(t, c.want, median(in), "%v", c.in)
		require.Equal(t, c.in, in, "median must not reorder its input")
	}
}

func TestLists(t *testing.T) {
	require.Equal(t, []string{"p224", "p256"}, splitList(" p224, ,p256,p224,"))
	require.Nil(t, splitList(" , "))

	got, err := intList("--batch", "4, 1,4,16", 1, nil)
	require.NoError(t, err)
	require.Equal(t, []int{4, 1, 16}, got)
	for _, bad := range []string{"", ",", "0", "-1", "x", "1,2.5", "1e3", "default"} {
		_, err := intList("--batch", bad, 1, nil)
		require.ErrorContains(t, err, "--batch", "%q", bad)
	}
	got, err = intList("--gpus", "1, all,2,1,ALL", 1, map[string]int{"all": 0})
	require.NoError(t, err)
	require.Equal(t, []int{1, 0, 2}, got)
	got, err = intList("--devices", "0,2", 0, nil)
	require.NoError(t, err)
	require.Equal(t, []int{0, 2}, got)
	_, err = intList("--gpus", "0", 1, map[string]int{"all": 0})
	require.ErrorContains(t, err, `"0" is not an integer of at least 1 or all`)

	exts, err := nameList("--ext", "Default,kawamura,shenoy", orDefault(basext.ParseVariant))
	require.NoError(t, err)
	require.Equal(t, []basext.Variant{0, basext.Kawamura}, exts, "default is the zero value, the same as shenoy")
}

func TestBenchGrid(t *testing.T) {
	scheds := []ladder.Kind{ladder.CoZ, ladder.Paper}
	exts := []basext.Variant{basext.Shenoy, basext.Kawamura}
	maps := []string{"warp", "block"}
	ipbs := []int{1, 4, 16}
	c16 := []int{16}

	all := []int{0}
	g := benchGrid(ecmul.GPU, scheds, exts, c16, maps, ipbs, all)
	require.Len(t, g, 24)
	require.Equal(t, benchVariant{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 16, mapping: "warp", ipb: 1}, g[0])
	require.Equal(t, benchVariant{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 16, mapping: "warp", ipb: 4}, g[1])
	require.Equal(t, benchVariant{schedule: ladder.CoZ, ext: basext.Kawamura, bits: 16, mapping: "block", ipb: 16}, g[11])
	require.Equal(t, benchVariant{schedule: ladder.Paper, ext: basext.Kawamura, bits: 16, mapping: "block", ipb: 16}, g[23])

	// wide channels: Shenoy only, warp and block
	g = benchGrid(ecmul.GPU, scheds[:1], exts, []int{30}, []string{"warp", "block", "tile"}, ipbs[:1], all)
	require.Equal(t, []benchVariant{
		{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 30, mapping: "warp", ipb: 1},
		{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 30, mapping: "block", ipb: 1}}, g)

	// the tile mapping: co-Z and Shenoy only, at 16 items per block only
	g = benchGrid(ecmul.GPU, scheds, exts, c16, []string{"tile"}, []int{8, 16}, all)
	require.Equal(t, []benchVariant{{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 16, mapping: "tile", ipb: 16}}, g)
	// the spread mapping: co-Z and Shenoy only, up to 16 items (warps) per block
	g = benchGrid(ecmul.GPU, scheds, exts, []int{30}, []string{"spread"}, []int{8, 16, 32}, all)
	require.Equal(t, []benchVariant{{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 30, mapping: "spread", ipb: 8},
		{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 30, mapping: "spread", ipb: 16}}, g)
	// the mma mapping: co-Z and Shenoy on 30-bit channels only, whole warps
	// of 8 items up to 128 per block
	g = benchGrid(ecmul.GPU, scheds, exts, []int{16, 30}, []string{"mma"}, []int{4, 8, 12, 32, 128, 136}, all)
	require.Equal(t, []benchVariant{{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 30, mapping: "mma", ipb: 8},
		{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 30, mapping: "mma", ipb: 32},
		{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 30, mapping: "mma", ipb: 128}}, g)

	// the devices dimension: one GPU and all of them
	g = benchGrid(ecmul.GPU, scheds[:1], exts[:1], c16, maps[:1], ipbs[:1], []int{1, 0})
	require.Equal(t, []benchVariant{
		{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 16, mapping: "warp", ipb: 1, gpus: 1},
		{schedule: ladder.CoZ, ext: basext.Shenoy, bits: 16, mapping: "warp", ipb: 1, gpus: 0}}, g)
	o0, g0 := g[0].options(ecmul.GPU, 1, false, 0)
	o1, g1 := g[1].options(ecmul.GPU, 1, true, 0)
	require.Equal(t, []int{0}, o0.Devices)
	require.Nil(t, o1.Devices, "all devices")
	require.False(t, g0.HostFinish)
	require.True(t, g1.HostFinish, "--host-finish")

	g = benchGrid(ecmul.RNSCPU, scheds[:1], exts, []int{16, 30}, maps, ipbs, all)
	require.Equal(t, []benchVariant{{ext: basext.Shenoy, bits: 16}, {ext: basext.Shenoy, bits: 30}, {ext: basext.Kawamura, bits: 16}}, g)

	require.Equal(t, []benchVariant{{}}, benchGrid(ecmul.CPU, scheds, exts, c16, maps, ipbs, all))
}

func TestBenchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--reps", "0"},
		{"--reps", "-1"},
		{"--batch", "0"},
		{"--batch", "1,x"},
		{"--batch", ""},
		{"--ipb", "0"},
		{"--mapping", "grid"},
		{"--mapping", ","},
		{"--ext", "montgomery"},
		{"--curve", "p384"},
		{"--curve", ""},
		{"--backend", "fpga"},
		{"--chunk", "-1"},
		{"--peer-seconds", "0"},
		{"--op", "signing"},
		{"--op", ""},
		{"--op", "mul,verify"},
		{"--nope"},
		{"extra"},
	} {
		code, out, errOut := cli(t, "", append([]string{"bench", "--backend", "cpu"}, args...)...)
		require.Equal(t, exitUsage, code, "%q", args)
		require.Empty(t, out, "%q", args)
		require.NotEmpty(t, errOut, "%q", args)
	}
	// An output that cannot be written fails before anything is measured.
	code, out, errOut := cli(t, "", "bench", "--backend", "cpu", "--json", filepath.Join(t.TempDir(), "no", "such", "dir.json"))
	require.Equal(t, exitFail, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "dir.json")
}

// readCSV reads a CSV file into a header and maps from column to cell.
func readCSV(t *testing.T, path string) ([]string, []map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	var out []map[string]string
	for _, r := range rows[1:] {
		require.Len(t, r, len(rows[0]))
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return rows[0], out
}

// readBenchJSON reads the report bench wrote to path with --json, as every
// bench test reads it, and returns it decoded and as written.
func readBenchJSON(t *testing.T, path string) (benchReport, []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rep benchReport
	require.NoError(t, json.Unmarshal(b, &rep))
	return rep, b
}

// TestBenchCPUGrid runs the bench command on the cpu backend with tiny
// batches: mappings, items per block and base extensions are not iterated
// there, repeated curves and batches count once, and the JSON and CSV hold
// the same results.
func TestBenchCPUGrid(t *testing.T) {
	dir := t.TempDir()
	jsonPath, csvPath := filepath.Join(dir, "b.json"), filepath.Join(dir, "b.csv")
	code, out, errOut := cli(t, "", "bench", "--backend", "cpu", "--curve", "p224,P-224,secp256k1",
		"--ext", "shenoy,kawamura", "--mapping", "warp,block", "--ipb", "4,8", "--batch", "4,1,4",
		"--reps", "2", "--peers=false", "--json", jsonPath, "--csv", csvPath)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "P-224")
	// the largest batch's inputs, said once per curve
	require.Contains(t, errOut, "bench: P-224 inputs kept live for the whole run (smaller batches take their first items): 4 points (*ecmul.Point) and 4 scalars (*big.Int)")
	require.Equal(t, 2, strings.Count(errOut, "inputs kept live"))

	rep, _ := readBenchJSON(t, jsonPath)
	require.Equal(t, 2, rep.Reps)
	require.Zero(t, rep.Chunk)
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil && strings.Contains(string(info), "model name") {
		require.NotEmpty(t, rep.HostCPU, "the report names the host's processor")
	}
	type key struct {
		curve string
		batch int
	}
	var got []key
	for _, r := range rep.Results {
		require.Equal(t, "cpu", r.Backend)
		require.Empty(t, r.Ext)
		require.Empty(t, r.Mapping)
		require.Zero(t, r.ItemsPerBlock)
		require.Zero(t, r.KernelMs)
		require.Positive(t, r.LatencyMs)
		require.InDelta(t, float64(r.Batch)/(r.LatencyMs/1e3), r.OpsPerSec, 1e-6*r.OpsPerSec)
		require.Len(t, r.RunsMs, 2, "every timed run")
		require.Equal(t, median(r.RunsMs), r.LatencyMs, "the latency is the runs' median")
		got = append(got, key{r.Curve, r.Batch})
	}
	require.Equal(t, []key{{"P-224", 1}, {"P-224", 4}, {"secp256k1", 1}, {"secp256k1", 4}}, got)
	require.Empty(t, rep.Peers)

	_, rows := readCSV(t, csvPath)
	require.Len(t, rows, len(rep.Results))
	for i, r := range rows {
		require.Equal(t, "result", r["kind"])
		require.Equal(t, rep.Results[i].Curve, r["curve"])
		require.Equal(t, strconv.Itoa(rep.Results[i].Batch), r["batch"])
		require.Equal(t, rep.Commit, r["commit"])
		require.Equal(t, "2", r["reps"])
		require.Empty(t, r["ext"])
	}
}

// TestBenchRNSCPUGrid: on rns-cpu the base extensions are iterated, the
// mappings and items per block are not.
func TestBenchRNSCPUGrid(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "b.json")
	code, _, errOut := cli(t, "", "bench", "--backend", "rns-cpu", "--curve", "p224", "--ext", "kawamura,shenoy",
		"--mapping", "warp,block", "--ipb", "4,8", "--batch", "1", "--reps", "1", "--peers=false", "--json", jsonPath)
	require.Equal(t, exitOK, code, errOut)
	rep, _ := readBenchJSON(t, jsonPath)
	require.Len(t, rep.Results, 2)
	for i, ext := range []string{"kawamura", "shenoy"} {
		r := rep.Results[i]
		require.Equal(t, "rns-cpu", r.Backend)
		require.Equal(t, ext, r.Ext)
		require.Empty(t, r.Mapping)
		require.Zero(t, r.ItemsPerBlock)
	}
}

// jsonObject is v as encoding/json writes it, decoded back into a map.
func jsonObject(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// TestBenchCSV checks the CSV against the JSON: every field of a report, a
// result and a peer is a column under its JSON name, every cell holds the
// JSON's value exactly, and fields the JSON leaves out are empty. Lists
// (the peers, a result's per-device shares) are the JSON's only.
func TestBenchCSV(t *testing.T) {
	rep := benchReport{Date: "2026-01-02T03:04:05Z", Commit: "0123456789abcdef", GoVersion: "go1.26.8", HostCores: 16,
		Device: "0: NVIDIA Test, with a comma", Driver: "13.0", Reps: 3, Chunk: 131072,
		Results: []benchResult{
			{Curve: "P-224", Backend: "gpu", Ext: "shenoy", Mapping: "warp", ItemsPerBlock: 8, Batch: 1048576,
				LatencyMs: 467.6839, OpsPerSec: 2242061.358109612, KernelMs: 32.8746223449707, KernelOps: 3987026.789983853,
				KernelBatch: 131072, FillMs: 0.011, CopyMs: 0.01696000061929226, GPUPipelineMs: 0.759, RatioToPeer: 8.5},
			{Curve: "P-224", Backend: "cpu", Batch: 1, LatencyMs: 0.1, OpsPerSec: 10000},
		},
		Peers: []benchPeer{
			{Curve: "P-224", Name: "openssl speed -multi 16", OpsPerSec: 261437.3, Command: `openssl speed "x"`},
			{Curve: "P-224", Name: "ecmul cpu backend (16 cores)", OpsPerSec: 115815.25872218868, Batch: 65536},
		},
		GPUPeers: []benchPeer{{Curve: "SM2 (256-bit)", Name: "gECC", OpsPerSec: 1.3e7, Batch: 4325376}},
	}
	var buf bytes.Buffer
	require.NoError(t, writeBenchCSV(&buf, &rep))
	path := filepath.Join(t.TempDir(), "b.csv")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	head, rows := readCSV(t, path)

	require.Equal(t, "kind", head[0])
	for _, typ := range []reflect.Type{reflect.TypeFor[benchReport](), reflect.TypeFor[benchResult](), reflect.TypeFor[benchPeer]()} {
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "results" || name == "peers" || name == "gpu_peers" || name == "per_device" || name == "bytes_timeline" || name == "sign_step" || name == "runs_ms" {
				continue
			}
			require.Contains(t, head, name, "%s.%s", typ.Name(), typ.Field(i).Name)
		}
	}
	require.Len(t, rows, 5)

	top := jsonObject(t, rep)
	delete(top, "results")
	delete(top, "peers")
	delete(top, "gpu_peers")
	check := func(row map[string]string, obj map[string]any, kind string) {
		require.Equal(t, kind, row["kind"])
		for k, v := range top {
			obj[k] = v
		}
		for _, h := range head[1:] {
			v, ok := obj[h]
			if !ok {
				require.Empty(t, row[h], "%s: column %s", kind, h)
				continue
			}
			switch v := v.(type) {
			case float64:
				f, err := strconv.ParseFloat(row[h], 64)
				require.NoError(t, err, "%s: column %s", kind, h)
				require.Equal(t, v, f, "%s: column %s", kind, h)
			case string:
				require.Equal(t, v, row[h], "%s: column %s", kind, h)
			default:
				t.Fatalf("column %s: unexpected JSON type %T", h, v)
			}
		}
	}
	for i, r := range rep.Results {
		check(rows[i], jsonObject(t, r), "result")
	}
	for i, p := range rep.Peers {
		check(rows[len(rep.Results)+i], jsonObject(t, p), "peer")
	}
	check(rows[4], jsonObject(t, rep.GPUPeers[0]), "gpu_peer")
}

// TestBenchKernelFiguresGPU (on a GPU host; skipped elsewhere): on the
// gpu backend every operation gets a kernel-only figure, k·G's comb alone
// faster than k·P's ladder, and ECDSA's two kernels together slower than
// the ladder alone; signing's end-to-end figure gets its ratio to k·G.
func TestBenchKernelFiguresGPU(t *testing.T) {
	e, err := ecmul.New(ecmul.P224(), ecmul.Options{Backend: ecmul.GPU})
	if err != nil {
		t.Skipf("no usable GPU: %v", err)
	}
	require.NoError(t, e.Close())
	jsonPath := filepath.Join(t.TempDir(), "b.json")
	code, _, errOut := cli(t, "", "bench", "--backend", "gpu", "--curve", "p224", "--op", "mul,base,ecdsa,sign",
		"--batch", "65536", "--reps", "1", "--peers=false", "--json", jsonPath)
	require.Equal(t, exitOK, code, errOut)
	rep, _ := readBenchJSON(t, jsonPath)
	kernel := map[string]float64{}
	for _, r := range rep.Results {
		require.Positive(t, r.KernelOps, "%s", r.Op)
		require.Positive(t, r.KernelBatch, "%s", r.Op)
		kernel[r.Op] = r.KernelOps
		if r.Op == opSign {
			require.Positive(t, r.RatioToBase)
		}
	}
	require.Len(t, kernel, 4)
	require.Greater(t, kernel["base"], kernel["mul"], "the comb alone against the ladder")
	require.Less(t, kernel["ecdsa"], kernel["mul"], "the ladder and the variable-time comb against the ladder")
}

// TestAddRuns: ecdsa's kernel-only times are the ladder's and the comb's
// added run by run, per GPU; a GPU missing runs in either has none.
func TestAddRuns(t *testing.T) {
	require.Equal(t, [][]float64{{4, 6}, nil, nil},
		addRuns([][]float64{{1, 2}, {3}, nil}, [][]float64{{3, 4}, {1, 2}, {5}}))
	require.Equal(t, [][]float64{nil}, addRuns([][]float64{{1}}, nil))
}

func TestSetRatios(t *testing.T) {
	rep := benchReport{
		Results: []benchResult{{Curve: "P-224", OpsPerSec: 500}, {Curve: "P-256", OpsPerSec: 10}},
		Peers:   []benchPeer{{Curve: "P-224", OpsPerSec: 100}, {Curve: "P-224", OpsPerSec: 250}},
	}
	setRatios(&rep)
	require.Equal(t, 2.0, rep.Results[0].RatioToPeer)
	require.Zero(t, rep.Results[1].RatioToPeer)
}

func TestReadGPUPeers(t *testing.T) {
	in := "building...\ngecc batch=1081344 op/s=11600000\nother batch=5 op/s=2.5\ngecc batch=x op/s=1\n" +
		"gecc-fixed batch=4325376 op/s=26600000\ngecc-verify batch=4325376 op/s=7900000\ngecc-sign batch=4325376 op/s=26300000\n"
	got, err := readGPUPeers(strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, got, 5)
	require.Equal(t, 1081344, got[0].Batch)
	require.Equal(t, 11.6e6, got[0].OpsPerSec)
	require.Contains(t, got[0].Name, "gECC")
	require.Equal(t, "other, kernel only", got[1].Name)
	require.Equal(t, 2.5, got[1].OpsPerSec)
	require.Empty(t, got[1].Op, "an unknown peer's operation is not guessed")
	var ops []string
	for _, p := range append(got[:1:1], got[2:]...) {
		require.Contains(t, p.Name, "gECC")
		ops = append(ops, p.Op)
	}
	require.Equal(t, []string{"mul", "base", "ecdsa", "sign"}, ops, "gecc.sh's benchmarks, by the operation each measures")
}

// benchConfigOf parses a bench command line.
func benchConfigOf(t *testing.T, args ...string) *benchConfig {
	t.Helper()
	var f benchFlags
	var errOut bytes.Buffer
	_, ok := parseFlags(benchFlagSet(&f), args, &errOut, &errOut)
	require.True(t, ok, errOut.String())
	cfg, err := parseBenchFlags(&f)
	require.NoError(t, err)
	return cfg
}

// TestBenchDefaultsAreTheLibrarys: with no configuration flag, bench runs
// one configuration on each backend, and the engine options it passes leave
// schedule, base extension, channel width, mapping and items per block to
// the library, as mul does.
func TestBenchDefaultsAreTheLibrarys(t *testing.T) {
	cfg := benchConfigOf(t)
	require.Equal(t, []string{"mul"}, cfg.ops, "k·P alone, as before --op")
	var mf mulFlags
	_, ok := parseFlags(mulFlagSet(&mf), nil, new(bytes.Buffer), new(bytes.Buffer))
	require.True(t, ok)
	_, mulOpts, mulGPU, err := engineConfig(&mf)
	require.NoError(t, err)
	for _, b := range []ecmul.Backend{ecmul.GPU, ecmul.RNSCPU} {
		grid := benchGrid(b, cfg.schedules, cfg.exts, cfg.widths, cfg.mappings, cfg.ipbs, cfg.gpus)
		require.Len(t, grid, 1, "%s", b)
		o, g := grid[0].options(b, cfg.chunk, false, 0)
		require.Equal(t, diag.Tuning{}.Schedule, g.Schedule, "%s", b)
		require.Equal(t, diag.Tuning{}.Extension, g.Extension, "%s", b)
		require.Zero(t, g.ChannelBits, "%s: the library picks the width", b)
		require.Equal(t, diag.MappingDefault, g.Mapping, "%s", b)
		require.Zero(t, g.ItemsPerBlock, "%s: the library picks the items per block", b)
		require.Nil(t, o.Devices, "%s: every GPU", b)
		require.Equal(t, mulOpts.Devices, o.Devices, "%s: as mul runs", b)
		require.Equal(t, mulGPU.Schedule, g.Schedule, "%s: as mul runs", b)
		require.Equal(t, mulGPU.Extension, g.Extension, "%s: as mul runs", b)
		require.Equal(t, mulGPU.ChannelBits, g.ChannelBits, "%s: as mul runs", b)
		require.Equal(t, mulGPU.Mapping, g.Mapping, "%s: as mul runs", b)
		require.Equal(t, mulGPU.ItemsPerBlock, g.ItemsPerBlock, "%s: as mul runs", b)
	}
	require.Equal(t, "coz shenoy bits=default mapping=default ipb=default gpus=all",
		benchGrid(ecmul.GPU, cfg.schedules, cfg.exts, cfg.widths, cfg.mappings, cfg.ipbs, cfg.gpus)[0].label(ecmul.GPU))

	// "default" beside named values, in any case
	cfg = benchConfigOf(t, "--channel-bits", "DEFAULT,16", "--ipb", "default,8", "--mapping", "default,warp", "--schedule", "paper,default")
	require.Equal(t, []int{0, 16}, cfg.widths)
	require.Equal(t, []int{0, 8}, cfg.ipbs)
	require.Equal(t, []string{"default", "warp"}, cfg.mappings)
	require.Equal(t, []ladder.Kind{ladder.Paper, 0}, cfg.schedules)

	// the mma mapping by name, in any case, to diag.MappingMma
	cfg = benchConfigOf(t, "--mapping", "MMA,spread", "--ipb", "16")
	require.Equal(t, []string{"mma", "spread"}, cfg.mappings)
	grid := benchGrid(ecmul.GPU, cfg.schedules, cfg.exts, cfg.widths, cfg.mappings, cfg.ipbs, cfg.gpus)
	require.Equal(t, []benchVariant{{mapping: "mma", ipb: 16}, {mapping: "spread", ipb: 16}}, grid)
	_, g := grid[0].options(ecmul.GPU, cfg.chunk, false, 0)
	require.Equal(t, diag.MappingMma, g.Mapping)
}

// TestBenchGridUnset: a width or items per block left to the library stays
// in the grid where some choice of it has the kernel, and goes where none
// has.
func TestBenchGridUnset(t *testing.T) {
	all := []int{0}
	g := benchGrid(ecmul.GPU, []ladder.Kind{ladder.CoZ}, []basext.Variant{basext.Shenoy}, []int{0},
		[]string{"default", "tile", "spread", "mma"}, []int{0}, all)
	require.Equal(t, []benchVariant{{mapping: "default"}, {mapping: "tile"}, {mapping: "spread"}, {mapping: "mma"}}, g)
	// Kawamura's extension: neither the tile, the spread nor the mma mapping at any width
	g = benchGrid(ecmul.GPU, []ladder.Kind{ladder.CoZ}, []basext.Variant{basext.Kawamura}, []int{0},
		[]string{"default", "tile", "spread", "mma", "warp"}, []int{0}, all)
	require.Equal(t, []benchVariant{{ext: basext.Kawamura, mapping: "default"}, {ext: basext.Kawamura, mapping: "warp"}}, g)
	// the library's mapping on 30-bit channels: Shenoy's extension only
	g = benchGrid(ecmul.GPU, []ladder.Kind{ladder.CoZ}, []basext.Variant{basext.Shenoy, basext.Kawamura}, []int{30},
		[]string{"default"}, []int{0}, all)
	require.Equal(t, []benchVariant{{bits: 30, mapping: "default"}}, g)
	g = benchGrid(ecmul.RNSCPU, []ladder.Kind{ladder.CoZ}, []basext.Variant{basext.Kawamura}, []int{0, 30}, nil, nil, all)
	require.Equal(t, []benchVariant{{ext: basext.Kawamura}}, g)
}

// TestBenchTableNamesEverySetting: the table has a column for each setting
// of the grid, the channel width included, so that two widths do not print
// rows that look the same; a width left to the library shows the one that
// ran.
func TestBenchTableNamesEverySetting(t *testing.T) {
	code, out, errOut := cli(t, "", "bench", "--backend", "rns-cpu", "--curve", "p224", "--ext", "shenoy",
		"--channel-bits", "16,30,default", "--batch", "1", "--reps", "1", "--peers=false")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, benchColumns[:9], strings.Fields(strings.Join(strings.Fields(lines[1]), " "))[:9])
	var bits []string
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		require.Equal(t, []string{"P-224", "mul", "rns-cpu", "coz", "shenoy"}, f[:5], l)
		bits = append(bits, f[5])
	}
	require.Equal(t, []string{"16", "30", "30"}, bits)

	row := tableRow(benchResult{Curve: "P-256", Backend: "gpu", Op: "base", Schedule: "coz", Ext: "shenoy", ChannelBits: 30, Mapping: "block",
		ItemsPerBlock: 51, Batch: 4, RatioToMul: 1.5})
	require.Equal(t, []string{"P-256", "base", "gpu", "coz", "shenoy", "30", "block", "51", "-", "4"}, row[:10])
	require.Equal(t, []string{"1.50x", "-"}, row[len(row)-2:], "vs k·P, vs k·G")
	require.Len(t, row, len(benchColumns))
	row = tableRow(benchResult{Curve: "P-256", Backend: "cpu", Op: "sign", Batch: 4, RatioToBase: 0.625})
	require.Equal(t, []string{"-", "0.62x"}, row[len(row)-2:], "vs k·P, vs k·G")
}

// TestHelpStaysInTheRepository: no help points at a file outside the
// repository.
func TestHelpStaysInTheRepository(t *testing.T) {
	for _, c := range commands() {
		text := helpText(c.flags())
		require.NotContains(t, text, "../", "%s", c.name)
		require.NotContains(t, text, "shared/", "%s", c.name)
	}
}

// TestBenchOps runs every operation on the cpu backend: a result per
// operation and batch, operation by operation, each naming its operation in
// the JSON, the CSV and the table; base and ecdsa get their ratio to k·P
// of the same batch; each measurement starts from a collected heap.
func TestBenchOps(t *testing.T) {
	dir := t.TempDir()
	jsonPath, csvPath := filepath.Join(dir, "b.json"), filepath.Join(dir, "b.csv")
	collections := 0
	defer func(f func()) { benchCollect = f }(benchCollect)
	benchCollect = func() { collections++ }
	code, out, errOut := cli(t, "", "bench", "--backend", "cpu", "--curve", "secp256k1", "--op", "mul,BASE,ecdsa,base",
		"--batch", "3,1", "--reps", "1", "--peers=false", "--json", jsonPath, "--csv", csvPath)
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, 6, collections, "bench -h: each operation and batch starts from a collected heap")
	rep, b := readBenchJSON(t, jsonPath)
	type key struct {
		op    string
		batch int
	}
	var got []key
	for _, r := range rep.Results {
		got = append(got, key{r.Op, r.Batch})
		require.Positive(t, r.OpsPerSec)
		require.InDelta(t, float64(r.Batch)/(r.LatencyMs/1e3), r.OpsPerSec, 1e-6*r.OpsPerSec)
		require.Zero(t, r.BytesOpsPerSec)
		require.Zero(t, r.KernelOps)
		if r.Op == "mul" {
			require.Zero(t, r.RatioToMul)
		} else {
			require.Positive(t, r.RatioToMul, "%s batch %d", r.Op, r.Batch)
		}
	}
	require.Equal(t, []key{{"mul", 1}, {"mul", 3}, {"base", 1}, {"base", 3}, {"ecdsa", 1}, {"ecdsa", 3}}, got)
	for _, r := range rep.Results[2:] {
		mul := rep.Results[0]
		if r.Batch == 3 {
			mul = rep.Results[1]
		}
		require.InDelta(t, r.OpsPerSec/mul.OpsPerSec, r.RatioToMul, 1e-9)
	}
	m := map[string]any{}
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, "mul", m["results"].([]any)[0].(map[string]any)["op"], "the JSON names the operation")

	_, rows := readCSV(t, csvPath)
	require.Len(t, rows, len(rep.Results))
	for i, r := range rows {
		require.Equal(t, rep.Results[i].Op, r["op"])
	}
	var ops []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[2:] {
		ops = append(ops, strings.Fields(l)[1])
	}
	require.Equal(t, []string{"mul", "mul", "base", "base", "ecdsa", "ecdsa"}, ops)
}

// TestBenchSign runs sign beside base on the cpu and rns-cpu backends:
// a result per batch, every signature made (a failed item fails the
// batch), each result's ratio to k·G of its batch in the JSON, the CSV
// (ratio_to_base) and the table ("vs k·G"), and no ratio to k·P; without
// base, no ratio to k·G.
func TestBenchSign(t *testing.T) {
	for _, backend := range []string{"cpu", "rns-cpu"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			jsonPath, csvPath := filepath.Join(dir, "b.json"), filepath.Join(dir, "b.csv")
			code, out, errOut := cli(t, "", "bench", "--backend", backend, "--curve", "p224,secp256k1", "--op", "base,sign",
				"--batch", "3,1", "--reps", "1", "--peers=false", "--json", jsonPath, "--csv", csvPath)
			require.Equal(t, exitOK, code, errOut)
			rep, _ := readBenchJSON(t, jsonPath)
			require.Len(t, rep.Results, 8)
			base := map[string]float64{}
			for _, r := range rep.Results {
				require.Equal(t, backend, r.Backend)
				require.Positive(t, r.OpsPerSec)
				require.Zero(t, r.RatioToMul, "%s %s", r.Curve, r.Op)
				k := fmt.Sprint(r.Curve, r.Batch)
				if r.Op == opBase {
					require.Zero(t, r.RatioToBase)
					base[k] = r.OpsPerSec
					continue
				}
				require.Equal(t, opSign, r.Op)
				require.InDelta(t, r.OpsPerSec/base[k], r.RatioToBase, 1e-9, "%s batch %d", r.Curve, r.Batch)
			}
			_, rows := readCSV(t, csvPath)
			require.Len(t, rows, len(rep.Results))
			for i, row := range rows {
				if rep.Results[i].Op == opSign {
					f, err := strconv.ParseFloat(row["ratio_to_base"], 64)
					require.NoError(t, err)
					require.Equal(t, rep.Results[i].RatioToBase, f)
				} else {
					require.Empty(t, row["ratio_to_base"])
				}
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.True(t, strings.HasSuffix(lines[1], "vs k·P  vs k·G"), lines[1])
			for i, l := range lines[2:] {
				f := strings.Fields(l)
				want := "-"
				if rep.Results[i].Op == opSign {
					want = fmt.Sprintf("%.2fx", rep.Results[i].RatioToBase)
				}
				require.Equal(t, want, f[len(f)-1], l)
			}
		})
	}
	jsonPath := filepath.Join(t.TempDir(), "b.json")
	code, _, errOut := cli(t, "", "bench", "--backend", "cpu", "--curve", "p256", "--op", "mul,sign",
		"--batch", "2", "--reps", "1", "--peers=false", "--json", jsonPath)
	require.Equal(t, exitOK, code, errOut)
	rep, _ := readBenchJSON(t, jsonPath)
	require.Len(t, rep.Results, 2)
	require.Equal(t, opSign, rep.Results[1].Op)
	require.Zero(t, rep.Results[1].RatioToBase, "no base in the run")
	require.Zero(t, rep.Results[1].RatioToMul, "sign is compared with k·G alone")
}

// TestBenchSignInputs: the digests are SHA-256's length, the keys in
// [1, n), a batch's inputs are the largest batch's first ones.
func TestBenchSignInputs(t *testing.T) {
	for _, c := range curves.All() {
		in := benchSignInputs(c, 1500)
		L := c.ByteLen()
		require.Len(t, in.digests, 1500)
		require.Len(t, in.keys, 1500*L)
		for i := range in.digests {
			require.Len(t, in.digests[i], 32)
			d := new(big.Int).SetBytes(in.keys[i*L : (i+1)*L])
			require.True(t, d.Sign() > 0 && d.Cmp(c.N()) < 0, "key %d", i)
		}
		small := benchSignInputs(c, 10)
		require.Equal(t, small, in.prefix(c, 10))
	}
}

// TestBenchOpsPeers: without mul, no ratio to k·P; the cpu backend is
// measured as a peer of each operation, and so is openssl speed (signing
// for base and sign, verification for ecdsa) where it runs; each result is
// divided by its operation's best peer.
func TestBenchOpsPeers(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "b.json")
	code, out, errOut := cli(t, "", "bench", "--backend", "rns-cpu", "--curve", "p256", "--op", "ecdsa,base,sign",
		"--batch", "2", "--reps", "1", "--peer-seconds", "1", "--json", jsonPath)
	require.Equal(t, exitOK, code, errOut)
	rep, _ := readBenchJSON(t, jsonPath)
	require.Len(t, rep.Results, 3)
	for i, op := range []string{"ecdsa", "base", "sign"} {
		best, cpu, openssl := 0.0, 0, 0
		for _, p := range rep.Peers {
			if p.Op != op {
				continue
			}
			require.Equal(t, "P-256", p.Curve)
			require.Positive(t, p.OpsPerSec)
			best = max(best, p.OpsPerSec)
			switch {
			case strings.HasPrefix(p.Name, "ecmul cpu backend"):
				cpu++
				require.Equal(t, 2, p.Batch)
			case strings.HasPrefix(p.Name, "openssl speed"):
				openssl++
				require.Contains(t, p.Command, "ecdsap256")
			}
		}
		require.Equal(t, 1, cpu, op)
		if openssl == 0 {
			require.Contains(t, errOut, op+" peer skipped", "openssl neither measured nor skipped with a message")
		}
		r := rep.Results[i]
		require.Equal(t, op, r.Op)
		require.Equal(t, "rns-cpu", r.Backend)
		require.Zero(t, r.RatioToMul)
		require.InDelta(t, r.OpsPerSec/best, r.RatioToPeer, 1e-9)
	}
	require.Regexp(t, `(?m)^peer P-256\s+ecdsa\s+ecmul cpu backend`, out)
}

// TestOpenSSLFigure reads each operation's figure from openssl speed's
// output as OpenSSL 3.0 prints it (the H100 host's, bench/h100/2026-11-25-comb/).
func TestOpenSSLFigure(t *testing.T) {
	ecdsa := `                              sign    verify    sign/s verify/s
 256 bits ecdsa (nistp256)   0.0000s   0.0000s 421194.0 132251.5
`
	ecdh := `                              op      op/s
 224 bits ecdh (nistp224)   0.0000s 135247.5
`
	for _, c := range []struct {
		op, out string
		want    float64
	}{{opMul, ecdh, 135247.5}, {opBase, ecdsa, 421194.0}, {opECDSA, ecdsa, 132251.5}, {opSign, ecdsa, 421194.0}} {
		got, err := opensslFigure(c.op, c.out)
		require.NoError(t, err, c.op)
		require.Equal(t, c.want, got, c.op)
	}
	_, err := opensslFigure(opECDSA, ecdh)
	require.Error(t, err)
}

// TestTimeRepsCPU: the CPU time of a timed run that keeps a core busy is
// counted, its wall time is at least that, and the warm-up run is not
// counted. Each run spins until the process has used its share of CPU time,
// so that a loaded machine, which stretches the wall time, cannot shrink
// the CPU time measured.
func TestTimeRepsCPU(t *testing.T) {
	if _, ok := processCPU(); !ok {
		t.Skip("no process CPU time on this system")
	}
	calls := 0
	tm, err := timeReps(runs{reps: 2}, func() error {
		calls++
		spin := 40 * time.Millisecond
		if calls == 1 {
			spin = 400 * time.Millisecond // the warm-up
		}
		c0, _ := processCPU()
		for c, _ := processCPU(); c-c0 < spin; c, _ = processCPU() {
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, calls)
	require.GreaterOrEqual(t, tm.CPUMs, 40.0, "a busy core is counted")
	require.Less(t, tm.CPUMs, 300.0, "the warm-up is not")
	require.GreaterOrEqual(t, tm.Ms, 0.5*tm.CPUMs, "the wall time of one busy goroutine")
	require.Len(t, tm.RunsMs, 2, "the timed runs, not the warm-up")
	require.Equal(t, median(tm.RunsMs), tm.Ms)
}

// TestTimeRepsGCCycles: the collections of the timed runs are counted,
// the warm-up's not.
func TestTimeRepsGCCycles(t *testing.T) {
	calls := 0
	tm, err := timeReps(runs{reps: 3}, func() error {
		calls++
		if calls == 1 {
			for range 5 { // the warm-up's
				runtime.GC()
			}
			return nil
		}
		runtime.GC()
		return nil
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, tm.GCCycles, uint64(3))
	require.Less(t, tm.GCCycles, uint64(8), "the warm-up's are not counted")
}

// TestBenchKernelBatchCoversTheBatch: the kernel-only timing of a batch of
// one chunk launches it whole; a larger batch's launches whole chunks of
// the size the batch runs in, as many as cover it (one GPU, a fake driver).
func TestBenchKernelBatchCoversTheBatch(t *testing.T) {
	t.Cleanup(engine.UseGPUDriver(fakecuda.New(), []byte("fatbin")))
	const chunk = 4096
	eng, err := diag.New(ecmul.P256(), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: chunk})
	require.NoError(t, err)
	defer eng.Close()
	b := &benchRun{cfg: &benchConfig{chunk: chunk}}
	require.Equal(t, kernelLaunches{1000, 1}, b.kernelBatch(eng, 1000))
	for _, batch := range []int{chunk + 1, 50000, 1 << 20} {
		kl := b.kernelBatch(eng, batch)
		want, ok := diag.ChunkItems(eng, batch)
		require.True(t, ok)
		require.Equal(t, want, kl.items, "batch %d", batch)
		require.GreaterOrEqual(t, kl.total(), batch, "batch %d", batch)
		require.Less(t, kl.items*(kl.launches-1), batch, "batch %d", batch)
	}
	// --chunk 0, the default: the library's chunk
	lib, err := diag.New(ecmul.P256(), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{})
	require.NoError(t, err)
	defer lib.Close()
	b = &benchRun{cfg: &benchConfig{}}
	require.Equal(t, kernelLaunches{diag.DefaultChunk, 1}, b.kernelBatch(lib, diag.DefaultChunk))
	kl := b.kernelBatch(lib, diag.DefaultChunk+1)
	require.Greater(t, kl.launches, 1)
	var f benchFlags
	require.NoError(t, benchFlagSet(&f).Parse(nil))
	require.Zero(t, f.chunk, "--chunk's default, the library's choice")
}

// TestBenchSignStep: on the gpu backend (a fake driver, its kernels
// emulated, signing on the GPU from the first item), sign's JSON result
// says where its last step on the GPU went: its items and its chunks'
// timeline; the CSV leaves them out.
func TestBenchSignStep(t *testing.T) {
	d := fakecuda.New()
	emulate := kernelemu.Launch(d)
	var signed atomic.Bool
	d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		signed.CompareAndSwap(false, strings.HasPrefix(fn, "ecm_signpack_"))
		return emulate(fn, grid, block, params)
	}
	t.Cleanup(engine.UseGPUDriver(d, []byte("fatbin")))
	t.Cleanup(engine.ItemKernelsFrom(1))
	dir := t.TempDir()
	jsonPath, csvPath := filepath.Join(dir, "b.json"), filepath.Join(dir, "b.csv")
	code, _, errOut := cli(t, "", "bench", "--backend", "gpu", "--curve", "p256", "--op", "sign", "--batch", "40",
		"--reps", "1", "--peers=false", "--json", jsonPath, "--csv", csvPath)
	require.Equal(t, exitOK, code, errOut)
	require.True(t, signed.Load(), "the sign pack kernel ran")
	rep, _ := readBenchJSON(t, jsonPath)
	require.Len(t, rep.Results, 1)
	st := rep.Results[0].StepStats
	require.NotNil(t, st, "the last step's stats")
	require.Equal(t, 40, st.Items)
	require.NotEmpty(t, st.Timeline)
	head, _ := readCSV(t, csvPath)
	require.NotContains(t, head, "sign_step")
}

// TestBenchTrace: --trace writes one JSON line per timed run of each
// result, each with the GPU batches of the run and their chunks on one
// clock, within the run's wall time (one GPU, a fake driver, its kernels
// emulated).
func TestBenchTrace(t *testing.T) {
	d := fakecuda.New()
	d.OnLaunch = kernelemu.Launch(d)
	t.Cleanup(engine.UseGPUDriver(d, []byte("fatbin")))
	t.Cleanup(engine.ItemKernelsFrom(1))
	tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
	code, _, errOut := cli(t, "", "bench", "--backend", "gpu", "--curve", "p256", "--op", "mul,ecdsa", "--batch", "40",
		"--reps", "2", "--peers=false", "--trace", tracePath)
	require.Equal(t, exitOK, code, errOut)
	b, err := os.ReadFile(tracePath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 4, "two ops, two timed runs each")
	for i, l := range lines {
		var tr benchTrace
		require.NoError(t, json.Unmarshal([]byte(l), &tr), "line %d", i)
		require.Equal(t, []string{opMul, opECDSA}[i/2], tr.Op, "line %d", i)
		require.Equal(t, i%2+1, tr.Run, "line %d", i)
		require.Equal(t, "P-256", tr.Curve)
		require.Equal(t, 40, tr.Batch)
		require.NotEmpty(t, tr.Runs, "line %d: the run's GPU batches", i)
		require.NotEmpty(t, tr.Chunks, "line %d: their chunks", i)
		for _, c := range tr.Chunks {
			require.NotEmpty(t, c.Entry)
			require.Zero(t, c.Device)
			require.LessOrEqual(t, c.Start, c.Done)
			require.Less(t, c.Done, tr.WallMs+1, "line %d: a chunk within its run", i)
		}
	}
}

// TestSetMulRatiosBytesAPI: where k·P's bytes API was measured, base and
// ecdsa are compared with its figure, not with the *big.Int API's
// end-to-end one (docs/cli.md); sign with k·G's of the same batch.
func TestSetMulRatiosBytesAPI(t *testing.T) {
	results := []benchResult{
		{Op: opMul, Batch: 8, OpsPerSec: 10, BytesOpsPerSec: 20},
		{Op: opMul, Batch: 4, OpsPerSec: 10},
		{Op: opBase, Batch: 8, OpsPerSec: 60},
		{Op: opECDSA, Batch: 8, OpsPerSec: 16},
		{Op: opECDSA, Batch: 4, OpsPerSec: 8},
		{Op: opSign, Batch: 8, OpsPerSec: 48},
	}
	setMulRatios(results)
	var got [][2]float64
	for _, r := range results {
		got = append(got, [2]float64{r.RatioToMul, r.RatioToBase})
	}
	require.Equal(t, [][2]float64{{0, 0}, {0, 0}, {3, 0}, {0.8, 0}, {0.8, 0}, {0, 0.8}}, got)
}

// TestBenchExecTrace: --exectrace writes a Go execution trace of the run,
// which go tool trace reads (its header names the Go release); a path
// that cannot be created fails the run before anything is measured, and
// one whose writes fail fails it after.
func TestBenchExecTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exec.trace")
	code, _, errOut := cli(t, "", "bench", "--backend", "cpu", "--batch", "4", "--reps", "1", "--peers=false", "--exectrace", path)
	require.Equal(t, exitOK, code, errOut)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(b, []byte("go 1.")), "a trace header, not %q", b[:min(len(b), 16)])
	require.Greater(t, len(b), 1024, "events after the header")

	code, out, errOut := cli(t, "", "bench", "--backend", "cpu", "--batch", "4", "--reps", "1", "--peers=false", "--exectrace", filepath.Join(t.TempDir(), "no", "such", "dir", "t"))
	require.Equal(t, exitFail, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "no such file or directory")

	// a disk that fails under the trace: the run fails, saying why
	if _, err := os.Stat("/dev/full"); err == nil {
		code, _, errOut = cli(t, "", "bench", "--backend", "cpu", "--batch", "4", "--reps", "1", "--peers=false", "--exectrace", "/dev/full")
		require.Equal(t, exitFail, code)
		require.Contains(t, errOut, "--exectrace: write /dev/full: no space left on device")
	}
}

// TestBenchPeersLast: the CPU peers run after every configuration of every
// curve is measured, so that their load on every core does not slow the
// host's part of the runs (bench --help).
func TestBenchPeersLast(t *testing.T) {
	var events []string
	defer func(f func()) { benchCollect = f }(benchCollect)
	benchCollect = func() { events = append(events, "measure") }
	defer func(f func(*curves.Curve, string, int) (benchPeer, error)) { runOpenSSLPeer = f }(runOpenSSLPeer)
	runOpenSSLPeer = func(c *curves.Curve, op string, _ int) (benchPeer, error) {
		events = append(events, "peer "+c.Name())
		return benchPeer{Curve: c.Name(), Op: op, Name: "openssl speed (stand-in)", OpsPerSec: 1}, nil
	}
	code, _, errOut := cli(t, "", "bench", "--backend", "cpu", "--curve", "p224,p256", "--op", "mul,sign", "--batch", "2", "--reps", "1")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, []string{"measure", "measure", "measure", "measure", "peer P-224", "peer P-224", "peer P-256", "peer P-256"}, events)
}
