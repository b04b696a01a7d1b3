package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// syntheticReport is a bench report with made-up but plausible figures: a
// fixed cost per batch, a cost per item, and a kernel that runs in waves.
func syntheticReport(commit string, curves []string, exts, mappings []string, ipbs, batches []int) *benchReport {
	rep := &benchReport{Date: "2026-11-21T13:23:05Z", Commit: commit, HostCores: 16,
		Device: "0: NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB, 1980 MHz)", Driver: "13.0", Reps: 3, Chunk: 131072}
	for ci, c := range curves {
		scale := 1 + float64(ci)
		for ei, e := range exts {
			for mi, m := range mappings {
				for _, ipb := range ipbs {
					for _, b := range batches {
						kb := min(b, rep.Chunk)
						waves := math.Ceil(float64(kb) / float64(132*ipb*4))
						kms := scale * (0.42 + 0.01*float64(ei+mi)) * waves * (1 + 0.02*float64(ipb))
						lat := 0.15 + float64(b)/2.2e3*scale + kms*math.Ceil(float64(b)/float64(kb))*0.3
						rep.Results = append(rep.Results, benchResult{Curve: c, Backend: "gpu", Ext: e, Mapping: m,
							ItemsPerBlock: ipb, Batch: b, LatencyMs: lat, OpsPerSec: float64(b) / lat * 1e3,
							KernelMs: kms, KernelOps: float64(kb) / kms * 1e3, KernelBatch: kb})
					}
				}
			}
		}
		rep.Peers = append(rep.Peers,
			benchPeer{Curve: c, Name: "openssl speed -multi 16", OpsPerSec: 261437.3 / scale},
			benchPeer{Curve: c, Name: "ecmul cpu backend (16 cores)", OpsPerSec: 115815.2 / scale, Batch: 65536})
	}
	return rep
}

// cli runs the command with args and returns its exit status and outputs.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeReport(t *testing.T, path string, rep *benchReport) {
	t.Helper()
	b, err := json.MarshalIndent(rep, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// checkSVG parses the file as XML to the end and returns its text.
func checkSVG(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotEmpty(t, b, path)
	d := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	require.Equal(t, "svg", root, path)
	return string(b)
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err, path)
	require.Greater(t, img.Bounds().Dx(), 800, path)
	require.Greater(t, img.Bounds().Dy(), 500, path)
}

func TestPlot(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "p224.json"), filepath.Join(dir, "p256.json")
	batches := []int{1, 2, 4, 8, 16, 64, 1024, 16384, 131072, 1048576}
	writeReport(t, a, syntheticReport("72199bed4fae09c182793e8f694c8dfc66f410b4", []string{"P-224"},
		[]string{"shenoy", "kawamura"}, []string{"warp", "block"}, []int{1, 4, 16}, batches))
	writeReport(t, b, syntheticReport("72199bed4fae09c182793e8f694c8dfc66f410b4", []string{"P-256", "secp256k1"},
		[]string{"shenoy", "kawamura"}, []string{"block"}, []int{28}, []int{1, 1024, 131072}))
	out := filepath.Join(dir, "plots")
	code, stdout, stderr := cli(t, "--in", a+","+b, "--out", out)
	require.Equal(t, exitOK, code, stderr)

	var want []string
	for _, stem := range []string{"latency-p224", "throughput-p224", "ipb-p224", "latency-p256", "throughput-p256",
		"latency-secp256k1", "throughput-secp256k1"} {
		want = append(want, stem+".png", stem+".svg")
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	require.ElementsMatch(t, want, got, "one item per block for P-256: no ipb chart")

	for _, name := range got {
		path := filepath.Join(out, name)
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.Positive(t, st.Size(), name)
		if strings.HasSuffix(name, ".png") {
			checkPNG(t, path)
			continue
		}
		svg := checkSVG(t, path)
		curve := map[string]string{"p224": "P-224", "p256": "P-256", "secp256k1": "secp256k1"}[strings.TrimSuffix(name[strings.Index(name, "-")+1:], ".svg")]
		for _, s := range []string{curve, "NVIDIA H200", "72199be"} {
			require.Contains(t, svg, s, "%s: the title names the device, curve and commit", name)
		}
		require.NotContains(t, svg, "72199bed", name)
	}
	svg := checkSVG(t, filepath.Join(out, "ipb-p224.svg"))
	require.Contains(t, svg, "one block", "batches equal to the items per block give the paper's Figure 1 panel")
	svg = checkSVG(t, filepath.Join(out, "throughput-p224.svg"))
	require.Contains(t, svg, "OpenSSL speed -multi 16: 261 k op/s")
	require.Contains(t, svg, "ecmul cpu (16 cores): 116 k op/s")

	for _, s := range []string{"P-224", "P-256", "secp256k1", "Shenoy, warp mapping, 16/block", "vs best peer"} {
		require.Contains(t, stdout, s)
	}
	for _, name := range want {
		require.Contains(t, stderr, name)
	}
}

func TestPlotFormats(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "r.json")
	writeReport(t, in, syntheticReport("abc", []string{"P-224"}, []string{"shenoy"}, []string{"warp"}, []int{8}, []int{1, 64}))
	code, _, stderr := cli(t, "--in", in, "--out", dir, "--format", "svg")
	require.Equal(t, exitOK, code, stderr)
	_, err := os.Stat(filepath.Join(dir, "latency-p224.svg"))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "latency-p224.png"))
	require.True(t, os.IsNotExist(err))
	_, err = os.Stat(filepath.Join(dir, "ipb-p224.svg"))
	require.True(t, os.IsNotExist(err), "one item per block: no ipb chart")
}

// TestPlotGroups: one curve measured at two commits gives two sets of
// charts, told apart by commit.
func TestPlotGroups(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	writeReport(t, a, syntheticReport("1111111aaaa", []string{"P-224"}, []string{"shenoy"}, []string{"warp"}, []int{8}, []int{1, 64}))
	writeReport(t, b, syntheticReport("2222222bbbb", []string{"P-224"}, []string{"shenoy"}, []string{"warp"}, []int{8}, []int{1, 64}))
	out := filepath.Join(dir, "out")
	code, _, stderr := cli(t, "--in", a+","+b, "--out", out, "--format", "png")
	require.Equal(t, exitOK, code, stderr)
	for _, name := range []string{"latency-p224-1111111-nvidia-h200-sm-90-132-sms-139-8-gib-1980-mhz.png",
		"latency-p224-2222222-nvidia-h200-sm-90-132-sms-139-8-gib-1980-mhz.png"} {
		checkPNG(t, filepath.Join(out, name))
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{not json"), 0o644))
	empty := filepath.Join(dir, "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte(`{"results": [], "peers": []}`), 0o644))
	for _, c := range []struct {
		args []string
		code int
	}{
		{nil, exitUsage},
		{[]string{"--in", bad, "--format", "gif"}, exitUsage},
		{[]string{"--in", bad, "extra"}, exitUsage},
		{[]string{"--nope"}, exitUsage},
		{[]string{"--in", filepath.Join(dir, "missing.json")}, exitFail},
		{[]string{"--in", bad}, exitFail},
		{[]string{"--in", empty}, exitFail},
	} {
		code, out, errOut := cli(t, c.args...)
		require.Equal(t, c.code, code, "%q", c.args)
		require.Empty(t, out, "%q", c.args)
		require.NotEmpty(t, errOut, "%q", c.args)
	}
}

func TestRoundLog125(t *testing.T) {
	for _, c := range []struct {
		v, down, up float64
	}{{0.418, 0.2, 0.5}, {498.6, 200, 500}, {1, 1, 1}, {3, 2, 5}, {7, 5, 10}, {0.05, 0.05, 0.05}} {
		require.InDelta(t, c.down, math.Pow(10, roundLog125(math.Log10(c.v), false)), 1e-9, "%v", c.v)
		require.InDelta(t, c.up, math.Pow(10, roundLog125(math.Log10(c.v), true)), 1e-9, "%v", c.v)
	}
}

func TestPlotTicks(t *testing.T) {
	var labels []string
	for _, tk := range (pow2Ticks{}).Ticks(0, 20) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"1", "16", "256", "4096", "65536", "1048576"}, labels)

	labels = nil
	for _, tk := range (log10Ticks{}).Ticks(math.Log10(0.4), math.Log10(600)) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"0.5", "1", "2", "5", "10", "20", "50", "100", "200", "500"}, labels)

	labels = nil
	for _, tk := range (linearTicks{}).Ticks(0, 4.1) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"0", "1", "2", "3", "4"}, labels)

	labels = nil
	for _, tk := range (linearTicks{}).Ticks(0.41, 0.545) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"0.425", "0.450", "0.475", "0.500", "0.525"}, labels)
}

// TestThroughputAxisTakesInThePeers: on a cpu report the fastest peer
// (OpenSSL) is above every result; the y axis of each panel reaches it,
// and the x axis is the results' batches.
func TestThroughputAxisTakesInThePeers(t *testing.T) {
	rep := &benchReport{Date: "2026-11-21T13:23:05Z", Commit: "abc1234", Device: "cpu", HostCores: 16, Reps: 3,
		Peers: []benchPeer{{Curve: "P-224", Name: "openssl speed -multi 16", OpsPerSec: 2.6e6},
			{Curve: "P-224", Name: "ecmul cpu backend (16 cores)", OpsPerSec: 1.1e6, Batch: 4096}}}
	for _, b := range []int{1, 64, 4096} {
		rep.Results = append(rep.Results, benchResult{Curve: "P-224", Backend: "cpu", Batch: b,
			LatencyMs: float64(b) / 1e3, OpsPerSec: 1e6 * float64(b) / 4096})
	}
	groups := groupReports([]*benchReport{rep})
	require.Len(t, groups, 1)
	f := throughputFigure(groups[0])
	require.NotEmpty(t, f.panels)
	for _, p := range f.panels {
		require.GreaterOrEqual(t, p.Y.Max, 2.6, "the y axis (M op/s) reaches the fastest peer")
		require.Zero(t, p.Y.Min)
		require.Equal(t, 0.0, p.X.Min, "the x axis starts at the smallest batch (log2)")
		require.Equal(t, 12.0, p.X.Max, "and ends at the largest")
	}
}

// TestPlotReadsCommittedReports draws the charts of the newest P-224
// report of ecmul bench kept in the repository's bench folder: the reader
// takes the bench command's JSON as written.
func TestPlotReadsCommittedReports(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "bench", "*", "*-p224.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no report in bench/")
	slices.Sort(paths)
	in := paths[len(paths)-1]
	rep, err := readReport(in)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Results, in)
	out := t.TempDir()
	code, stdout, stderr := cli(t, "--in", in, "--out", out, "--format", "svg")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "P-224")
	checkSVG(t, filepath.Join(out, "latency-p224.svg"))
	checkSVG(t, filepath.Join(out, "throughput-p224.svg"))
}

// TestPlotFormatNamesInAnyCase: --format takes its names in any case.
func TestPlotFormatNamesInAnyCase(t *testing.T) {
	_, paths, formats, code, ok := parsePlotFlags([]string{"--in", "r.json", "--format", "SVG,Png"}, new(bytes.Buffer))
	require.True(t, ok)
	require.Equal(t, exitOK, code)
	require.Equal(t, []string{"r.json"}, paths)
	require.Equal(t, []string{"svg", "png"}, formats)
}
