package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"math/rand"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/basext"
	"github.com/rnsec/ecmul/curves"
	"github.com/rnsec/ecmul/gpu"
)

const benchHelp = `Usage: ecmul bench [flags]

Measures throughput (scalar multiplications per second) and latency (the time
of one batch) versus batch size, for every combination of the listed curves,
base extensions, thread mappings and items per block, with one warm-up run and
the median of --reps runs. End-to-end times include packing, transfers,
conversions, the batched inversion and y-recovery; on the gpu backend the
kernel alone is also timed on resident data (CUDA events).

In the same run it measures the CPU peers of this host: the cpu backend on all
cores and, when openssl is installed, "openssl speed -multi <cores> ecdhp224"
(ecdhp256 for P-256), and prints every figure as a ratio to the best peer.
Results go to --json (a file) and a table on standard output.

Flags:
`

// benchResult is one measured configuration.
type benchResult struct {
	Curve         string  `json:"curve"`
	Backend       string  `json:"backend"`
	Ext           string  `json:"ext,omitempty"`
	Mapping       string  `json:"mapping,omitempty"`
	ItemsPerBlock int     `json:"items_per_block,omitempty"`
	Batch         int     `json:"batch"`
	LatencyMs     float64 `json:"latency_ms"`
	OpsPerSec     float64 `json:"ops_per_s"`
	KernelMs      float64 `json:"kernel_ms,omitempty"`
	KernelOps     float64 `json:"kernel_ops_per_s,omitempty"`
	KernelBatch   int     `json:"kernel_batch,omitempty"`
	FillMs        float64 `json:"fill_ms,omitempty"`
	CopyMs        float64 `json:"copy_ms,omitempty"`
	GPUPipelineMs float64 `json:"gpu_pipeline_ms,omitempty"`
	RatioToPeer   float64 `json:"ratio_to_best_peer,omitempty"`
}

type benchPeer struct {
	Curve     string  `json:"curve"`
	Name      string  `json:"name"`
	OpsPerSec float64 `json:"ops_per_s"`
	Command   string  `json:"command,omitempty"`
}

type benchReport struct {
	Date      string        `json:"date"`
	Commit    string        `json:"commit"`
	GoVersion string        `json:"go_version"`
	HostCores int           `json:"host_cores"`
	Device    string        `json:"device"`
	Driver    string        `json:"driver,omitempty"`
	Results   []benchResult `json:"results"`
	Peers     []benchPeer   `json:"peers"`
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	return "unknown"
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// benchInputs returns batch valid points and random scalars; the points
// cycle through a pool of random multiples of G.
func benchInputs(c *curves.Curve, batch int, rng *rand.Rand) ([]*ecmul.Point, []*big.Int, error) {
	pool := make([]*ecmul.Point, min(batch, 1024))
	for i := range pool {
		k := new(big.Int).Rand(rng, c.N)
		x, y, _, err := c.ReferenceScalarMult(c.Gx, c.Gy, k.Add(k, big.NewInt(1)))
		if err != nil {
			return nil, nil, err
		}
		pool[i] = &ecmul.Point{X: x, Y: y}
	}
	pts, ks := make([]*ecmul.Point, batch), make([]*big.Int, batch)
	for i := range pts {
		pts[i], ks[i] = pool[i%len(pool)], new(big.Int).Rand(rng, c.N)
	}
	return pts, ks, nil
}

var opensslLine = regexp.MustCompile(`ecdh \((nistp\d+)\)\s+[\d.]+s\s+([\d.]+)`)

// opensslPeer runs openssl speed on every core for the curve, if possible.
func opensslPeer(c *curves.Curve, seconds int) (benchPeer, error) {
	alg := map[string]string{"P-224": "ecdhp224", "P-256": "ecdhp256"}[c.Name]
	if alg == "" {
		return benchPeer{}, fmt.Errorf("openssl speed has no ECDH test for %s", c.Name)
	}
	path, err := exec.LookPath("openssl")
	if err != nil {
		return benchPeer{}, err
	}
	args := []string{"speed", "-seconds", strconv.Itoa(seconds), "-multi", strconv.Itoa(runtime.NumCPU()), alg}
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		return benchPeer{}, fmt.Errorf("openssl speed: %v", err)
	}
	m := opensslLine.FindAllStringSubmatch(string(out), -1)
	if len(m) == 0 {
		return benchPeer{}, errors.New("openssl speed: no ecdh figure in its output")
	}
	ops, _ := strconv.ParseFloat(m[len(m)-1][2], 64)
	return benchPeer{Curve: c.Name, Name: fmt.Sprintf("openssl speed -multi %d", runtime.NumCPU()), OpsPerSec: ops,
		Command: "openssl " + strings.Join(args, " ")}, nil
}

func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), benchHelp); fs.PrintDefaults() }
	curveList := fs.String("curve", "p224", "comma-separated curves")
	backendName := fs.String("backend", "auto", "backend: auto, gpu, rns-cpu or cpu")
	extList := fs.String("ext", "shenoy,kawamura", "comma-separated base extensions (rns-cpu and gpu)")
	mapList := fs.String("mapping", "warp", "comma-separated thread mappings of the gpu backend: warp, block")
	ipbList := fs.String("ipb", "8", "comma-separated items per block of the gpu backend")
	batchList := fs.String("batch", "1,16,256,4096,65536,1048576", "comma-separated batch sizes")
	reps := fs.Int("reps", 3, "timed runs per configuration (the median is reported)")
	chunk := fs.Int("chunk", 1<<17, "most items per kernel launch (gpu)")
	peers := fs.Bool("peers", true, "measure the CPU peers in the same run")
	peerSeconds := fs.Int("peer-seconds", 3, "seconds of each openssl speed run")
	jsonPath := fs.String("json", "", "write the full results as JSON to this file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	batches, err := intList(*batchList)
	if err == nil {
		var ipbs []int
		if ipbs, err = intList(*ipbList); err == nil && *reps > 0 {
			return benchMain(stdout, stderr, *curveList, *backendName, *extList, *mapList, ipbs, batches, *reps, *chunk, *peers, *peerSeconds, *jsonPath)
		}
	}
	fmt.Fprintf(stderr, "ecmul bench: %v\n", err)
	return exitUsage
}

func benchMain(stdout, stderr io.Writer, curveList, backendName, extList, mapList string, ipbs, batches []int, reps, chunk int, peers bool, peerSeconds int, jsonPath string) int {
	backend, err := ecmul.ParseBackend(backendName)
	if err != nil {
		fmt.Fprintf(stderr, "ecmul bench: %v\n", err)
		return exitUsage
	}
	var cs []*curves.Curve
	for _, name := range splitList(curveList) {
		c, err := curves.ByName(name)
		if err != nil {
			fmt.Fprintf(stderr, "ecmul bench: %v\n", err)
			return exitUsage
		}
		cs = append(cs, c)
	}
	var exts []basext.Variant
	for _, name := range splitList(extList) {
		v, err := basext.ParseVariant(name)
		if err != nil {
			fmt.Fprintf(stderr, "ecmul bench: %v\n", err)
			return exitUsage
		}
		exts = append(exts, v)
	}
	mappings := splitList(mapList)
	rep := benchReport{Date: time.Now().UTC().Format(time.RFC3339), Commit: commit(), GoVersion: runtime.Version(),
		HostCores: runtime.NumCPU(), Device: "cpu"}
	if d, err := gpu.DefaultDriver(); err == nil {
		if devs, v, err := gpu.Devices(d); err == nil && len(devs) > 0 {
			rep.Device, rep.Driver = devs[0].String(), gpu.FormatDriverVersion(v)
		}
	}
	ctx := context.Background()
	rng := rand.New(rand.NewSource(1))
	measure := func(eng *ecmul.Engine, pts []*ecmul.Point, ks []*big.Int, r *benchResult) error {
		var times []float64
		for i := range reps + 1 {
			t0 := time.Now()
			res, err := eng.ScalarMult(ctx, pts, ks)
			el := time.Since(t0).Seconds() * 1e3
			if err != nil {
				return err
			}
			for j := range res {
				if res[j].Err != nil {
					return res[j].Err
				}
			}
			if i > 0 { // the first run warms up
				times = append(times, el)
			}
		}
		r.LatencyMs = median(times)
		r.OpsPerSec = float64(r.Batch) / (r.LatencyMs / 1e3)
		if st, ok := eng.LastGPUStats(); ok {
			r.FillMs, r.CopyMs, r.GPUPipelineMs = st.FillMs, st.CopyMs, st.WallMs
		}
		return nil
	}
	for _, c := range cs {
		maxBatch := slices.Max(batches)
		allPts, allKs, err := benchInputs(c, maxBatch, rng)
		if err != nil {
			fmt.Fprintf(stderr, "ecmul bench: %v\n", err)
			return exitFail
		}
		if peers {
			if p, err := opensslPeer(c, peerSeconds); err == nil {
				rep.Peers = append(rep.Peers, p)
			} else {
				fmt.Fprintf(stderr, "ecmul bench: peer skipped: %v\n", err)
			}
			eng, err := ecmul.New(c, ecmul.Options{Backend: ecmul.CPU})
			if err == nil {
				n := min(maxBatch, 1<<16)
				r := benchResult{Batch: n}
				if err := measure(eng, allPts[:n], allKs[:n], &r); err == nil {
					rep.Peers = append(rep.Peers, benchPeer{Curve: c.Name, Name: fmt.Sprintf("ecmul cpu backend (%d cores)", runtime.NumCPU()), OpsPerSec: r.OpsPerSec})
				}
				eng.Close()
			}
		}
		for _, ext := range exts {
			for _, mapping := range mappings {
				for _, ipb := range ipbs {
					eng, err := ecmul.New(c, ecmul.Options{Backend: backend, Ext: ext,
						GPU: ecmul.GPUOptions{Mapping: mapping, ItemsPerBlock: ipb, Chunk: chunk}})
					if err != nil {
						fmt.Fprintf(stderr, "ecmul bench: %v\n", err)
						return exitFail
					}
					for _, batch := range batches {
						r := benchResult{Curve: c.Name, Backend: string(eng.Backend()), Batch: batch}
						if eng.Backend() == ecmul.GPU || eng.Backend() == ecmul.RNSCPU {
							r.Ext = ext.String()
						}
						if eng.Backend() == ecmul.GPU {
							r.Mapping, r.ItemsPerBlock = mapping, ipb
						}
						if err := measure(eng, allPts[:batch], allKs[:batch], &r); err != nil {
							fmt.Fprintf(stderr, "ecmul bench: %s batch %d: %v\n", c.Name, batch, err)
							eng.Close()
							return exitFail
						}
						if eng.Backend() == ecmul.GPU {
							kb := min(batch, chunk)
							if ts, err := eng.KernelTimes(allPts[:kb], allKs[:kb], reps); err == nil {
								r.KernelMs, r.KernelBatch = median(ts), kb
								r.KernelOps = float64(kb) / (r.KernelMs / 1e3)
							}
						}
						rep.Results = append(rep.Results, r)
						fmt.Fprintf(stderr, "%s %s %s %s ipb=%d batch=%d: %.0f op/s end-to-end, %.3f ms\n",
							c.Name, r.Backend, r.Ext, r.Mapping, ipb, batch, r.OpsPerSec, r.LatencyMs)
					}
					eng.Close()
					if eng.Backend() != ecmul.GPU {
						break // items per block and mapping mean nothing off the GPU
					}
				}
				if backend != ecmul.GPU && backend != ecmul.Auto {
					break
				}
			}
		}
	}
	best := map[string]float64{}
	for _, p := range rep.Peers {
		best[p.Curve] = max(best[p.Curve], p.OpsPerSec)
	}
	for i := range rep.Results {
		if b := best[rep.Results[i].Curve]; b > 0 {
			rep.Results[i].RatioToPeer = rep.Results[i].OpsPerSec / b
		}
	}
	if jsonPath != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(jsonPath, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintf(stderr, "ecmul bench: %v\n", err)
			return exitFail
		}
	}
	printBench(stdout, &rep)
	return exitOK
}

func printBench(w io.Writer, rep *benchReport) {
	fmt.Fprintf(w, "device: %s  driver: %s  host cores: %d  commit: %.12s  %s\n", rep.Device, rep.Driver, rep.HostCores, rep.Commit, rep.Date)
	for _, p := range rep.Peers {
		fmt.Fprintf(w, "peer %-9s %-40s %12.0f op/s\n", p.Curve, p.Name, p.OpsPerSec)
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "curve\tbackend\text\tmapping\tipb\tbatch\tlatency ms\tend-to-end op/s\tkernel op/s\tvs best peer\t\n")
	for _, r := range rep.Results {
		kern := "-"
		if r.KernelOps > 0 {
			kern = fmt.Sprintf("%.0f", r.KernelOps)
		}
		ratio := "-"
		if r.RatioToPeer > 0 {
			ratio = fmt.Sprintf("%.2fx", r.RatioToPeer)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%.3f\t%.0f\t%s\t%s\t\n", r.Curve, r.Backend, r.Ext, r.Mapping, r.ItemsPerBlock, r.Batch, r.LatencyMs, r.OpsPerSec, kern, ratio)
	}
	tw.Flush()
}
