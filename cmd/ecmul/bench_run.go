package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
)

func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f benchFlags
	if code, ok := parseFlags(benchFlagSet(&f), args, stderr); !ok {
		return code
	}
	cfg, err := parseBenchFlags(&f)
	if err != nil {
		return report(stderr, "bench", exitUsage, err)
	}
	return benchMain(stdout, stderr, cfg)
}

// timeBatch runs the batch once to warm up, then reps times, and returns
// the median wall time in milliseconds.
func timeBatch(ctx context.Context, eng *ecmul.Engine, pts []*ecmul.Point, ks []*big.Int, reps int) (float64, error) {
	var times []float64
	for i := range reps + 1 {
		t0 := time.Now()
		res, err := eng.ScalarMult(ctx, pts, ks)
		el := time.Since(t0).Seconds() * 1e3
		if err != nil {
			return 0, err
		}
		for j := range res {
			if res[j].Err != nil {
				return 0, res[j].Err
			}
		}
		if i > 0 {
			times = append(times, el)
		}
	}
	return median(times), nil
}

// timeBytes is timeBatch through Engine.ScalarMultBytes.
func timeBytes(ctx context.Context, eng *ecmul.Engine, scalars, points []byte, count, reps int) (float64, error) {
	out := make([]byte, count*(1+2*eng.Curve().ByteLen()))
	status := make([]ecmul.Status, count)
	var times []float64
	for i := range reps + 1 {
		t0 := time.Now()
		err := eng.ScalarMultBytes(ctx, out, status, scalars, points)
		el := time.Since(t0).Seconds() * 1e3
		if err != nil {
			return 0, err
		}
		for j, st := range status {
			if st != ecmul.StatusPoint && st != ecmul.StatusInfinity {
				return 0, fmt.Errorf("item %d: %w", j, st.Err())
			}
		}
		if i > 0 {
			times = append(times, el)
		}
	}
	return median(times), nil
}

// benchBytes encodes inputs for the bytes API: big-endian scalars and
// uncompressed SEC1 points.
func benchBytes(c *curves.Curve, pts []*ecmul.Point, ks []*big.Int) (scalars, points []byte) {
	L := c.ByteLen()
	scalars, points = make([]byte, len(ks)*L), make([]byte, 0, len(pts)*(1+2*L))
	for i := range ks {
		ks[i].FillBytes(scalars[i*L : (i+1)*L])
		points = append(points, c.EncodeSEC1((*curves.Point)(pts[i]), false)...)
	}
	return scalars, points
}

// createOutputs opens the files the report goes to, so that a bad path
// fails before the measurements rather than after them.
func createOutputs(paths ...string) ([]*os.File, error) {
	var fs []*os.File
	for _, p := range paths {
		if p == "" {
			fs = append(fs, nil)
			continue
		}
		f, err := os.Create(p)
		if err != nil {
			for _, g := range fs {
				if g != nil {
					g.Close()
					os.Remove(g.Name())
				}
			}
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// sharesOf lists each device's chunks and fault from a batch's statistics,
// when more than one device took part.
func sharesOf(st diag.Stats) []deviceShare {
	if len(st.Devices) < 2 {
		return nil
	}
	out := make([]deviceShare, len(st.Devices))
	for i, d := range st.Devices {
		out[i] = deviceShare{Device: d.Device, Chunks: d.Chunks}
		if d.Fault != nil {
			out[i].Fault = d.Fault.Error()
		}
	}
	return out
}

// setKernelFigures sets r's kernel-only figures from the launch times of
// kb items on each device, all devices at once: the time is the slowest
// device's median, the rate the sum of every device's. Several devices
// also get their own figures in r.PerDevice.
func setKernelFigures(r *benchResult, kb int, times [][]float64) {
	r.KernelBatch = kb
	for i, ts := range times {
		if len(ts) == 0 {
			continue
		}
		ms := median(ts)
		r.KernelMs = max(r.KernelMs, ms)
		r.KernelOps += float64(kb) / (ms / 1e3)
		if i < len(r.PerDevice) {
			r.PerDevice[i].KernelMs, r.PerDevice[i].KernelOps = ms, float64(kb)/(ms/1e3)
		}
	}
	if r.KernelMs == 0 {
		r.KernelBatch = 0
	}
}

// setRatios sets every result's ratio to the fastest peer of its curve.
func setRatios(rep *benchReport) {
	best := map[string]float64{}
	for _, p := range rep.Peers {
		best[p.Curve] = max(best[p.Curve], p.OpsPerSec)
	}
	for i := range rep.Results {
		rep.Results[i].RatioToPeer = 0
		if b := best[rep.Results[i].Curve]; b > 0 {
			rep.Results[i].RatioToPeer = rep.Results[i].OpsPerSec / b
		}
	}
}

// benchRun is one run of bench: its settings, the report it fills and the
// count of configurations that failed.
type benchRun struct {
	cfg     *benchConfig
	backend ecmul.Backend // resolved: never auto
	rep     benchReport
	stderr  io.Writer
	start   time.Time
	failed  int
}

func benchMain(stdout, stderr io.Writer, cfg *benchConfig) int {
	files, err := createOutputs(cfg.jsonPath, cfg.csvPath, cfg.cpuProfilePath)
	if err != nil {
		return report(stderr, "bench", exitFail, err)
	}
	for _, f := range files {
		if f != nil {
			defer f.Close()
		}
	}
	if files[2] != nil {
		if err := pprof.StartCPUProfile(files[2]); err != nil {
			return report(stderr, "bench", exitFail, fmt.Errorf("--cpuprofile: %w", err))
		}
		defer pprof.StopCPUProfile()
	}
	b, err := newBenchRun(cfg, stderr)
	if err != nil {
		return report(stderr, "bench", exitFail, err)
	}
	for _, c := range cfg.curves {
		b.measureCurve(context.Background(), c)
	}
	setRatios(&b.rep)
	if err := writeBenchOutputs(&b.rep, files[0], files[1]); err != nil {
		return report(stderr, "bench", exitFail, err)
	}
	printBench(stdout, &b.rep)
	fmt.Fprintf(stderr, "bench: %d result(s) in %.0f s\n", len(b.rep.Results), time.Since(b.start).Seconds())
	if b.failed > 0 {
		fmt.Fprintf(stderr, "ecmul bench: %d configuration(s) failed\n", b.failed)
		return exitFail
	}
	return exitOK
}

// newBenchRun resolves the backend and starts the report: the host, the
// device, and the GPU peers of --gpu-peers.
func newBenchRun(cfg *benchConfig, stderr io.Writer) (*benchRun, error) {
	b := &benchRun{cfg: cfg, backend: cfg.backend, stderr: stderr, start: time.Now()}
	if b.backend == ecmul.Auto {
		eng, err := ecmul.New(publicCurve(cfg.curves[0]), ecmul.Options{Backend: ecmul.Auto})
		if err != nil {
			return nil, err
		}
		b.backend = eng.Backend()
		eng.Close()
	}
	b.rep = benchReport{Date: time.Now().UTC().Format(time.RFC3339), Commit: commit(), GoVersion: runtime.Version(),
		HostCores: runtime.NumCPU(), HostCPU: hostCPUModel(), Device: "cpu", Reps: cfg.reps}
	if b.backend == ecmul.GPU {
		b.rep.Chunk = cfg.chunk
	}
	if cfg.gpuPeersPath != "" {
		data, err := os.ReadFile(cfg.gpuPeersPath)
		if err == nil {
			b.rep.GPUPeers, err = readGPUPeers(bytes.NewReader(data))
		}
		if err != nil {
			return nil, fmt.Errorf("--gpu-peers: %w", err)
		}
	}
	if d, err := gpu.DefaultDriver(); err == nil {
		if devs, v, err := gpu.Devices(d); err == nil && len(devs) > 0 {
			b.rep.Device, b.rep.Driver = devs[0].String(), gpu.FormatDriverVersion(v)
		}
	}
	return b, nil
}

// benchItems are the inputs of a curve's largest batch, a smaller batch
// taking their first items; the bytes are set on the gpu backend only.
type benchItems struct {
	pts             []*ecmul.Point
	ks              []*big.Int
	scalars, points []byte
}

// measureCurve measures the peers and every configuration of the grid on
// curve c.
func (b *benchRun) measureCurve(ctx context.Context, c *curves.Curve) {
	cfg := b.cfg
	grid := benchGrid(b.backend, cfg.schedules, cfg.exts, cfg.widths, cfg.mappings, cfg.ipbs, cfg.gpus)
	fmt.Fprintf(b.stderr, "bench: %s on %s: %d configuration(s) × %d batch size(s), %d timed run(s) each after a warm-up\n",
		c.Name(), b.backend, len(grid), len(cfg.batches), cfg.reps)
	var in benchItems
	in.pts, in.ks = benchInputs(c, slices.Max(cfg.batches))
	if b.backend == ecmul.GPU {
		in.scalars, in.points = benchBytes(c, in.pts, in.ks)
	}
	if cfg.peers {
		b.measurePeers(ctx, c, in)
	}
	for _, v := range grid {
		b.measureVariant(ctx, c, v, in)
	}
}

// measurePeers measures openssl and the cpu backend on c; a peer that
// cannot run is skipped with a message.
func (b *benchRun) measurePeers(ctx context.Context, c *curves.Curve, in benchItems) {
	if p, err := opensslPeer(c, b.cfg.peerSeconds); err == nil {
		b.rep.Peers = append(b.rep.Peers, p)
	} else {
		fmt.Fprintf(b.stderr, "ecmul bench: peer skipped: %s\n", message(err))
	}
	eng, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
	if err != nil {
		return
	}
	defer eng.Close()
	n := min(len(in.pts), 1<<16)
	ms, err := timeBatch(ctx, eng, in.pts[:n], in.ks[:n], b.cfg.reps)
	if err != nil {
		fmt.Fprintf(b.stderr, "ecmul bench: peer skipped: %s\n", message(err))
		return
	}
	b.rep.Peers = append(b.rep.Peers, benchPeer{Curve: c.Name(), Name: fmt.Sprintf("ecmul cpu backend (%d cores)", runtime.NumCPU()),
		OpsPerSec: float64(n) / (ms / 1e3), Batch: n})
}

// measureVariant measures one configuration at every batch size, in
// increasing order; a batch that fails ends the configuration.
func (b *benchRun) measureVariant(ctx context.Context, c *curves.Curve, v benchVariant, in benchItems) {
	o, g := v.options(b.backend, b.cfg.chunk)
	eng, err := diag.New(publicCurve(c), o, g)
	if err != nil {
		fmt.Fprintf(b.stderr, "ecmul bench: %s %s: %s (configuration skipped)\n", c.Name(), v.label(b.backend), message(err))
		b.failed++
		return
	}
	defer eng.Close()
	v.bits = eng.ChannelBits() // as it runs, for the messages
	kernelTimes := map[int][][]float64{}
	for _, batch := range b.cfg.batches {
		r := benchResult{Curve: c.Name(), Backend: eng.Backend().String(), Batch: batch}
		if b.backend != ecmul.CPU {
			r.Schedule, r.Ext, r.ChannelBits = v.schedule.String(), v.ext.String(), eng.ChannelBits()
		}
		if k, ok := diag.KernelOf(eng); ok {
			r.Mapping, r.ItemsPerBlock = k.Mapping.String(), k.ItemsPerBlock // as the library chose them
		}
		ms, err := timeBatch(ctx, eng, in.pts[:batch], in.ks[:batch], b.cfg.reps)
		if err != nil {
			b.fail(c, v, batch, "", fmt.Errorf("%w (rest of the configuration skipped)", err))
			return
		}
		r.LatencyMs, r.OpsPerSec = ms, float64(batch)/(ms/1e3)
		if st, ok := diag.LastBatch(eng); ok {
			r.FillMs, r.DrainMs, r.WaitMs = st.FillMs, st.DrainMs, st.WaitMs
			r.CopyMs, r.GPUPipelineMs = st.CopyMs, st.WallMs
			r.GPUs, r.PerDevice = len(st.Devices), sharesOf(st)
		}
		if b.backend == ecmul.GPU {
			b.measureGPU(ctx, eng, c, v, &r, in, kernelTimes)
		}
		b.rep.Results = append(b.rep.Results, r)
		fmt.Fprintf(b.stderr, "[%5.0fs] %s batch=%d: %.3f ms, %.0f op/s end to end\n",
			time.Since(b.start).Seconds(), strings.Join(slices.DeleteFunc([]string{c.Name(), r.Backend, v.label(b.backend)},
				func(s string) bool { return s == "" }), " "), batch, r.LatencyMs, r.OpsPerSec)
	}
}

// measureGPU adds the gpu backend's own figures to r: the batch through
// the bytes API, and the kernel alone on the whole batch or, for a batch
// of more than one chunk, on one of its chunks (whole waves). kernelTimes
// keeps the kernel's times by items launched, for the configuration's
// other batches.
func (b *benchRun) measureGPU(ctx context.Context, eng *ecmul.Engine, c *curves.Curve, v benchVariant, r *benchResult,
	in benchItems, kernelTimes map[int][][]float64) {
	batch, L := r.Batch, c.ByteLen()
	ms, err := timeBytes(ctx, eng, in.scalars[:batch*L], in.points[:batch*(1+2*L)], batch, b.cfg.reps)
	if err != nil {
		b.fail(c, v, batch, "bytes API: ", err)
	} else {
		r.BytesLatencyMs, r.BytesOpsPerSec = ms, float64(batch)/(ms/1e3)
	}
	kb := min(batch, b.cfg.chunk)
	if batch > b.cfg.chunk {
		if items, ok := diag.ChunkItems(eng, batch); ok {
			kb = items
		}
	}
	ts, ok := kernelTimes[kb]
	if !ok {
		if ts, err = diag.KernelTimes(eng, in.pts[:kb], in.ks[:kb], b.cfg.reps); err == nil {
			kernelTimes[kb] = ts
		} else {
			fmt.Fprintf(b.stderr, "ecmul bench: %s %s batch %d: kernel timing: %s\n", c.Name(), v.label(b.backend), batch, message(err))
		}
	}
	setKernelFigures(r, kb, ts)
}

// fail reports a failed measurement of a batch and counts it.
func (b *benchRun) fail(c *curves.Curve, v benchVariant, batch int, what string, err error) {
	fmt.Fprintf(b.stderr, "ecmul bench: %s %s batch %d: %s%s\n", c.Name(), v.label(b.backend), batch, what, message(err))
	b.failed++
}

// writeBenchOutputs writes the report as JSON and CSV to the files that
// are not nil.
func writeBenchOutputs(rep *benchReport, jsonFile, csvFile *os.File) error {
	if jsonFile != nil {
		data, _ := json.MarshalIndent(rep, "", "  ")
		if _, err := jsonFile.Write(append(data, '\n')); err != nil {
			return err
		}
	}
	if csvFile != nil {
		if err := writeBenchCSV(csvFile, rep); err != nil {
			return fmt.Errorf("%s: %w", csvFile.Name(), err)
		}
	}
	return nil
}
