package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/par"
)

func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f benchFlags
	if code, ok := parseFlags(benchFlagSet(&f), args, stdout, stderr); !ok {
		return code
	}
	cfg, err := parseBenchFlags(&f)
	if err != nil {
		return report(stderr, "bench", exitUsage, err)
	}
	return benchMain(stdout, stderr, cfg)
}

// timing is a measurement's timed runs: the median wall time in
// milliseconds, every run's, the median process CPU time (user + system,
// every thread; 0 where the system does not report it), and the garbage
// collections that ran during the timed runs, which the runs' spread may
// come from.
type timing struct {
	Ms, CPUMs float64
	RunsMs    []float64
	GCCycles  uint64
	Traces    []diag.Trace // each timed run's, where traced
}

// runs is how an operation is timed: reps timed runs after a warm-up,
// each traced (diag.StartTrace) where traced is set.
type runs struct {
	reps   int
	traced bool
}

// timeReps runs once to warm up, then rs.reps times, and returns the
// timed runs' timing; a run's error ends it.
func timeReps(rs runs, once func() error) (timing, error) {
	var t timing
	var cpus []float64
	var gc0 uint64
	for i := range rs.reps + 1 {
		if i == 1 {
			gc0 = gcCycles()
		}
		traced := rs.traced && i > 0
		if traced {
			diag.StartTrace()
		}
		c0, cpuOK := processCPU()
		region := trace.StartRegion(context.Background(), "run")
		trace.Logf(context.Background(), "run", "%d (0: the warm-up)", i)
		t0 := time.Now()
		err := once()
		region.End()
		el := time.Since(t0).Seconds() * 1e3
		c1, _ := processCPU()
		if traced {
			t.Traces = append(t.Traces, diag.StopTrace())
		}
		if err != nil {
			return timing{}, err
		}
		if i > 0 {
			t.RunsMs = append(t.RunsMs, el)
			if cpuOK {
				cpus = append(cpus, (c1-c0).Seconds()*1e3)
			}
		}
	}
	t.GCCycles = gcCycles() - gc0
	if len(cpus) > 0 {
		t.CPUMs = median(cpus)
	}
	t.Ms = median(t.RunsMs)
	return t, nil
}

// gcCycles returns the garbage collections the process has completed.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// timeBatch runs the batch once to warm up, then reps times, and returns
// the timed runs' timing. The results of the last run are checked after
// the timing, as in the other time* functions: a program reads its results
// at its own pace.
func timeBatch(ctx context.Context, eng *ecmul.Engine, pts []*ecmul.Point, ks []*big.Int, rs runs) (timing, error) {
	res := make([]ecmul.Result, len(pts))
	t, err := timeReps(rs, func() error { return eng.ScalarMult(ctx, res, ks, pts) })
	if err != nil {
		return timing{}, err
	}
	for j := range res {
		if res[j].Err != nil {
			return timing{}, fmt.Errorf("item %d: %w", j, res[j].Err)
		}
	}
	return t, nil
}

// timeBytes is timeBatch through Engine.ScalarMultBytes.
func timeBytes(ctx context.Context, eng *ecmul.Engine, scalars, points []byte, count int, rs runs) (timing, error) {
	return timeBytesCall(eng, count, rs, func(out []byte, status []ecmul.Status) error {
		return eng.ScalarMultBytes(ctx, out, status, scalars, points)
	})
}

// timeBase is timeBatch of k·G through Engine.ScalarBaseMultBytes.
func timeBase(ctx context.Context, eng *ecmul.Engine, scalars []byte, count int, rs runs) (timing, error) {
	return timeBytesCall(eng, count, rs, func(out []byte, status []ecmul.Status) error {
		return eng.ScalarBaseMultBytes(ctx, out, status, scalars)
	})
}

// timeBytesCall times call, a batch of count items of the bytes API
// (uncompressed SEC1 out), as timeBatch times its batch.
func timeBytesCall(eng *ecmul.Engine, count int, rs runs, call func(out []byte, status []ecmul.Status) error) (timing, error) {
	out := make([]byte, count*(1+2*eng.Curve().ByteLen()))
	status := make([]ecmul.Status, count)
	t, err := timeReps(rs, func() error { return call(out, status) })
	if err != nil {
		return timing{}, err
	}
	for j, st := range status {
		if st != ecmul.StatusPoint && st != ecmul.StatusInfinity {
			return timing{}, fmt.Errorf("item %d: %w", j, st.Err())
		}
	}
	return t, nil
}

// timeECDSA is timeBatch of ecdsa.Verify on the signatures, all valid.
func timeECDSA(ctx context.Context, eng *ecmul.Engine, sigs benchSigs, rs runs) (timing, error) {
	verdicts := make([]ecdsa.Verdict, len(sigs.digests))
	t, err := timeReps(rs, func() error { return ecdsa.Verify(ctx, eng, verdicts, sigs.digests, sigs.sigs, sigs.keys) })
	if err != nil {
		return timing{}, err
	}
	for j, v := range verdicts {
		if v != ecdsa.Valid {
			return timing{}, fmt.Errorf("item %d: a valid signature verified as %s", j, v)
		}
	}
	return t, nil
}

// timeSign is timeBatch of ecdsa.Sign with its default options on the
// items, every one of which must be signed.
func timeSign(ctx context.Context, eng *ecmul.Engine, in benchSignItems, rs runs) (timing, error) {
	sigs := make([]byte, len(in.digests)*2*eng.Curve().ByteLen())
	errs := make([]error, len(in.digests))
	t, err := timeReps(rs, func() error { return ecdsa.Sign(ctx, eng, sigs, errs, in.digests, in.keys, ecdsa.SignOptions{}) })
	if err != nil {
		return timing{}, err
	}
	for j, err := range errs {
		if err != nil {
			return timing{}, fmt.Errorf("item %d: %w", j, err)
		}
	}
	return t, nil
}

// benchSignItems are signing's inputs as ecdsa.Sign takes them.
type benchSignItems struct {
	digests [][]byte
	keys    []byte
}

// benchSignInputs returns count SHA-256-sized digests and private keys in
// [1, n), cycling through a pool of at most 1,024 drawn as the scalars of
// benchInputs are.
func benchSignInputs(c *curves.Curve, count int) benchSignItems {
	L := c.ByteLen()
	rng := sampler{c, 1}.rng(streamBenchPoint, 1<<60)
	ks := newScalarSampler(c.N())
	pool := min(count, 1024)
	digests, keys := make([]byte, pool*32), make([]byte, pool*L)
	for i := range pool {
		copy(keys[i*L:], ks.next(rng))
		for j := range 32 {
			digests[i*32+j] = byte(rng.Uint32())
		}
	}
	in := benchSignItems{digests: make([][]byte, count)}
	for i := range in.digests {
		in.digests[i] = digests[i%pool*32 : i%pool*32+32]
	}
	in.keys = bytes.Repeat(keys, (count+pool-1)/pool)[:count*L]
	return in
}

// prefix returns the first n items.
func (s benchSignItems) prefix(c *curves.Curve, n int) benchSignItems {
	return benchSignItems{digests: s.digests[:n], keys: s.keys[:n*c.ByteLen()]}
}

// benchBytes encodes inputs for the bytes API: big-endian scalars and
// uncompressed SEC1 points.
func benchBytes(c *curves.Curve, pts []*ecmul.Point, ks []*big.Int) (scalars, points []byte) {
	L := c.ByteLen()
	points = make([]byte, 0, len(pts)*(1+2*L))
	for i := range pts {
		points = append(points, c.EncodeSEC1((*curves.Point)(pts[i]), false)...)
	}
	return benchScalars(c, ks), points
}

// benchScalars encodes scalars for the bytes API: L bytes each, big-endian.
func benchScalars(c *curves.Curve, ks []*big.Int) []byte {
	L := c.ByteLen()
	scalars := make([]byte, len(ks)*L)
	for i := range ks {
		ks[i].FillBytes(scalars[i*L : (i+1)*L])
	}
	return scalars
}

// benchSigs are ECDSA inputs laid out as ecdsa.Verify takes them.
type benchSigs struct {
	digests    [][]byte
	sigs, keys []byte
}

// benchSignatures returns count valid signatures, cycling through a pool
// of at most 1,024 made as verify --op ecdsa makes its valid items.
func benchSignatures(c *curves.Curve, count int) benchSigs {
	gen := ecdsaItems{c, 1}
	pool := make([]ecdsaItem, min(count, 1024))
	par.DoAllCores(len(pool), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			pool[i] = gen.item(int64(i), caseValid)
		}
	})
	digests, sigs, keys := encodeECDSA(c, pool)
	s := benchSigs{digests: make([][]byte, count)}
	for i := range s.digests {
		s.digests[i] = digests[i%len(pool)]
	}
	reps := (count + len(pool) - 1) / len(pool)
	s.sigs = bytes.Repeat(sigs, reps)[:count*len(sigs)/len(pool)]
	s.keys = bytes.Repeat(keys, reps)[:count*len(keys)/len(pool)]
	return s
}

// prefix returns the first n signatures.
func (s benchSigs) prefix(c *curves.Curve, n int) benchSigs {
	L := c.ByteLen()
	return benchSigs{digests: s.digests[:n], sigs: s.sigs[:n*2*L], keys: s.keys[:n*(1+2*L)]}
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

// firstError is a writer that keeps the first error of w's writes: the
// execution tracer writes from a goroutine of its own and drops them.
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(b []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.w.Write(b)
	f.err = err
	return n, err
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

// setRatios sets every result's ratio to the fastest peer of its curve
// and operation.
func setRatios(rep *benchReport) {
	type key struct{ curve, op string }
	best := map[key]float64{}
	for _, p := range rep.Peers {
		k := key{p.Curve, p.Op}
		best[k] = max(best[k], p.OpsPerSec)
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		r.RatioToPeer = 0
		if b := best[key{r.Curve, r.Op}]; b > 0 {
			r.RatioToPeer = r.OpsPerSec / b
		}
	}
}

// setMulRatios sets, among the results of one configuration, the ratio
// to k·P of every result of base and ecdsa: its op/s over the bytes API
// figure of the mul result of the same batch where measured, else over its
// end-to-end figure; and the ratio to k·G of every result of sign: its
// op/s over the base result's of the same batch.
func setMulRatios(results []benchResult) {
	mul, base := map[int]float64{}, map[int]float64{}
	for _, r := range results {
		switch r.Op {
		case opMul:
			mul[r.Batch] = r.OpsPerSec
			if r.BytesOpsPerSec > 0 {
				mul[r.Batch] = r.BytesOpsPerSec
			}
		case opBase:
			base[r.Batch] = r.OpsPerSec
		}
	}
	for i := range results {
		r := &results[i]
		r.RatioToMul, r.RatioToBase = 0, 0
		if m := mul[r.Batch]; (r.Op == opBase || r.Op == opECDSA) && m > 0 {
			r.RatioToMul = r.OpsPerSec / m
		}
		if b := base[r.Batch]; r.Op == opSign && b > 0 {
			r.RatioToBase = r.OpsPerSec / b
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
	traces  *json.Encoder // --trace's file, or nil
}

// runs is how timeOp times an operation on eng: --reps runs, traced with
// --trace where eng is of the gpu backend.
func (b *benchRun) runs(eng *ecmul.Engine) runs {
	return runs{reps: b.cfg.reps, traced: b.traces != nil && eng.Backend() == ecmul.GPU}
}

// benchTrace is one line of --trace's file: one timed run of a result.
type benchTrace struct {
	Curve   string  `json:"curve"`
	Op      string  `json:"op"`
	Backend string  `json:"backend"`
	GPUs    int     `json:"gpus,omitempty"`
	Batch   int     `json:"batch"`
	Run     int     `json:"run"` // 1 to --reps
	WallMs  float64 `json:"wall_ms"`
	diag.Trace
}

// writeTraces writes r's timed runs' traces, one line each, to --trace's
// file.
func (b *benchRun) writeTraces(r *benchResult, t timing) error {
	for i, tr := range t.Traces {
		line := benchTrace{Curve: r.Curve, Op: r.Op, Backend: r.Backend, GPUs: r.GPUs, Batch: r.Batch, Run: i + 1, WallMs: t.RunsMs[i], Trace: tr}
		if err := b.traces.Encode(line); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
	}
	return nil
}

func benchMain(stdout, stderr io.Writer, cfg *benchConfig) (code int) {
	files, err := createOutputs(cfg.jsonPath, cfg.csvPath, cfg.cpuProfilePath, cfg.tracePath, cfg.execTracePath)
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
	if files[4] != nil {
		w := &firstError{w: files[4]}
		if err := trace.Start(w); err != nil {
			return report(stderr, "bench", exitFail, fmt.Errorf("--exectrace: %w", err))
		}
		defer func() {
			trace.Stop()
			if w.err != nil && code == exitOK {
				code = report(stderr, "bench", exitFail, fmt.Errorf("--exectrace: %w", w.err))
			}
		}()
	}
	b, err := newBenchRun(cfg, stderr)
	if err != nil {
		return report(stderr, "bench", exitFail, err)
	}
	if files[3] != nil {
		b.traces = json.NewEncoder(files[3])
	}
	for _, c := range cfg.curves {
		b.measureCurve(context.Background(), c)
	}
	if cfg.peers {
		for _, c := range cfg.curves {
			b.measurePeers(context.Background(), c)
		}
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
// taking their first items: the points for k·P's bytes API on the gpu
// backend only, the scalars' bytes there and for k·G, the signatures for
// ECDSA verification, the digests and keys for signing.
type benchItems struct {
	pts             []*ecmul.Point
	ks              []*big.Int
	scalars, points []byte
	sigs            benchSigs
	signs           benchSignItems
}

// live says which inputs the run holds: the *big.Int data a collection
// marks on every batch of ScalarMult, and the byte buffers beside them.
func (in benchItems) live() string {
	parts := []string{fmt.Sprintf("%d points (*ecmul.Point) and %d scalars (*big.Int)", len(in.pts), len(in.ks))}
	if len(in.scalars) > 0 {
		parts = append(parts, fmt.Sprintf("%d B of scalar bytes", len(in.scalars)))
	}
	if len(in.points) > 0 {
		parts = append(parts, fmt.Sprintf("%d B of point bytes", len(in.points)))
	}
	if n := len(in.sigs.digests); n > 0 {
		parts = append(parts, fmt.Sprintf("%d signatures to verify", n))
	}
	if n := len(in.signs.digests); n > 0 {
		parts = append(parts, fmt.Sprintf("%d digests and keys to sign", n))
	}
	return strings.Join(parts, ", ")
}

// measureCurve measures every configuration of the grid on curve c.
func (b *benchRun) measureCurve(ctx context.Context, c *curves.Curve) {
	cfg := b.cfg
	grid := benchGrid(b.backend, cfg.schedules, cfg.exts, cfg.widths, cfg.mappings, cfg.ipbs, cfg.gpus)
	fmt.Fprintf(b.stderr, "bench: %s on %s: %d configuration(s) × %d operation(s) (%s) × %d batch size(s), %d timed run(s) each after a warm-up\n",
		c.Name(), b.backend, len(grid), len(cfg.ops), strings.Join(cfg.ops, ","), len(cfg.batches), cfg.reps)
	in := b.inputs(c, slices.Max(cfg.batches))
	fmt.Fprintf(b.stderr, "bench: %s inputs kept live for the whole run (smaller batches take their first items): %s\n", c.Name(), in.live())
	for _, v := range grid {
		b.measureVariant(ctx, c, v, in)
	}
}

// inputs returns the inputs of the run's operations on c, most items of
// each.
func (b *benchRun) inputs(c *curves.Curve, most int) benchItems {
	cfg := b.cfg
	var in benchItems
	in.pts, in.ks = benchInputs(c, most)
	switch {
	case b.backend == ecmul.GPU && slices.Contains(cfg.ops, opMul):
		in.scalars, in.points = benchBytes(c, in.pts, in.ks)
	case slices.Contains(cfg.ops, opBase):
		in.scalars = benchScalars(c, in.ks)
	}
	if slices.Contains(cfg.ops, opECDSA) {
		in.sigs = benchSignatures(c, most)
	}
	if slices.Contains(cfg.ops, opSign) {
		in.signs = benchSignInputs(c, most)
	}
	return in
}

// peerItems is the most items of the cpu backend's batch as a peer.
const peerItems = 1 << 16

// measurePeers measures, for each operation, openssl speed (ECDH for mul,
// ECDSA signing for base and sign, ECDSA verification for ecdsa) and the cpu
// backend on c; a peer that cannot run is skipped with a message. The run
// measures them after every configuration of every curve: on a host that
// had just run openssl speed on every core for seconds, the runs of ECDSA
// signing on the GPU that followed took 1.25 to 1.5 times as long
// (bench/h200x2/2026-11-30-trace/).
func (b *benchRun) measurePeers(ctx context.Context, c *curves.Curve) {
	in := b.inputs(c, min(slices.Max(b.cfg.batches), peerItems))
	for _, op := range b.cfg.ops {
		if p, err := runOpenSSLPeer(c, op, b.cfg.peerSeconds); err == nil {
			b.rep.Peers = append(b.rep.Peers, p)
		} else {
			fmt.Fprintf(b.stderr, "ecmul bench: %s peer skipped: %s\n", op, message(err))
		}
	}
	eng, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
	if err != nil {
		return
	}
	defer eng.Close()
	n := len(in.pts)
	for _, op := range b.cfg.ops {
		t, err := b.timeOp(ctx, eng, c, op, in, n)
		if err != nil {
			fmt.Fprintf(b.stderr, "ecmul bench: %s peer skipped: %s\n", op, message(err))
			continue
		}
		b.rep.Peers = append(b.rep.Peers, benchPeer{Curve: c.Name(), Op: op, Name: fmt.Sprintf("ecmul cpu backend (%d cores)", runtime.NumCPU()),
			OpsPerSec: float64(n) / (t.Ms / 1e3), Batch: n})
	}
}

// timeOp times operation op on the first batch items of in on eng, an
// engine of c, end to end, as timeBatch does.
func (b *benchRun) timeOp(ctx context.Context, eng *ecmul.Engine, c *curves.Curve, op string, in benchItems, batch int) (timing, error) {
	switch op {
	case opBase:
		return timeBase(ctx, eng, in.scalars[:batch*c.ByteLen()], batch, b.runs(eng))
	case opECDSA:
		return timeECDSA(ctx, eng, in.sigs.prefix(c, batch), b.runs(eng))
	case opSign:
		return timeSign(ctx, eng, in.signs.prefix(c, batch), b.runs(eng))
	}
	return timeBatch(ctx, eng, in.pts[:batch], in.ks[:batch], b.runs(eng))
}

// benchCollect runs a garbage collection before each measurement, as go
// test does before each benchmark: an operation's runs then do not pay
// for a collection of what the operations before it left.
var benchCollect = runtime.GC

// measureVariant measures one configuration: each operation at every
// batch size, in increasing order; a batch that fails ends the operation
// on the configuration.
func (b *benchRun) measureVariant(ctx context.Context, c *curves.Curve, v benchVariant, in benchItems) {
	o, g := v.options(b.backend, b.cfg.chunk, b.cfg.hostFinish, b.cfg.finishItems)
	eng, err := diag.New(publicCurve(c), o, g)
	if err != nil {
		fmt.Fprintf(b.stderr, "ecmul bench: %s %s: %s (configuration skipped)\n", c.Name(), v.label(b.backend), message(err))
		b.failed++
		return
	}
	defer eng.Close()
	v.bits = diag.ChannelBits(eng) // as it runs, for the messages
	first := len(b.rep.Results)
	for _, op := range b.cfg.ops {
		kernelTimes := map[kernelLaunches][][]float64{}
		for _, batch := range b.cfg.batches {
			r := benchResult{Curve: c.Name(), Backend: eng.Backend().String(), Op: op, Batch: batch}
			if b.backend != ecmul.CPU {
				r.Schedule, r.Ext, r.ChannelBits = v.schedule.String(), v.ext.String(), diag.ChannelBits(eng)
			}
			kernelOf := diag.KernelOf
			if op == opBase || op == opSign {
				kernelOf = diag.BaseKernelOf // the comb's configuration, not the ladder's
			}
			if k, ok := kernelOf(eng); ok {
				r.Mapping, r.ItemsPerBlock = k.Mapping.String(), k.ItemsPerBlock // as the library chose them
			}
			benchCollect()
			tctx, task := trace.NewTask(ctx, fmt.Sprintf("%s %s %s batch=%d", c.Name(), op, v.label(b.backend), batch))
			t, err := b.timeOp(tctx, eng, c, op, in, batch)
			task.End()
			if err != nil {
				b.fail(c, op, v, batch, "", fmt.Errorf("%w (rest of the operation on the configuration skipped)", err))
				break
			}
			r.LatencyMs, r.OpsPerSec, r.RunsMs, r.GCCycles = t.Ms, float64(batch)/(t.Ms/1e3), t.RunsMs, t.GCCycles
			if st, ok := diag.LastBatch(eng); ok {
				r.GPUs = len(st.Devices)
				r.Finish = "host"
				if st.ItemKernels {
					r.Finish, r.FinishItems = "gpu", cmp.Or(b.cfg.finishItems, kernels.FinishItemsPerThread)
				}
				switch op {
				case opECDSA: // ecdsa.Verify makes two batches: the last is part of the call
				case opSign: // ecdsa.Sign makes one per step
					r.StepStats = stepStatsOf(st)
				default:
					r.FillMs, r.DrainMs, r.WaitMs = st.FillMs, st.DrainMs, st.WaitMs
					r.CopyMs, r.GPUPipelineMs, r.DeviceKernelsMs = st.CopyMs, st.WallMs, st.KernelMs
					r.PrepareMs, r.FinishMs = st.PrepareMs, st.FinishMs
					r.PerDevice = sharesOf(st)
				}
			}
			if err := b.writeTraces(&r, t); err != nil {
				b.fail(c, op, v, batch, "", err)
			}
			switch {
			case b.backend != ecmul.GPU:
			case op == opMul:
				b.measureGPU(ctx, eng, c, v, &r, in, kernelTimes)
			default:
				b.measureCombKernels(eng, c, v, &r, in, kernelTimes)
			}
			b.rep.Results = append(b.rep.Results, r)
			fmt.Fprintf(b.stderr, "[%5.0fs] %s batch=%d: %.3f ms, %.0f op/s end to end\n",
				time.Since(b.start).Seconds(), strings.Join(slices.DeleteFunc([]string{c.Name(), op, r.Backend, v.label(b.backend)},
					func(s string) bool { return s == "" }), " "), batch, r.LatencyMs, r.OpsPerSec)
		}
	}
	setMulRatios(b.rep.Results[first:])
}

// stepStatsOf is st as stepStats, nil for a batch with no chunk.
func stepStatsOf(st diag.Stats) *stepStats {
	if st.Chunks == 0 {
		return nil
	}
	items := 0
	for _, c := range st.Timeline {
		items += c.Hi - c.Lo
	}
	return &stepStats{Items: items, WallMs: st.WallMs, KernelsMs: st.KernelMs, CopyMs: st.CopyMs, FillMs: st.FillMs,
		DrainMs: st.DrainMs, WaitMs: st.WaitMs, Timeline: st.Timeline}
}

// measureGPU adds the gpu backend's own figures to r: the batch through
// the bytes API, and the kernel alone on the whole batch or, for a batch
// of more than one chunk, on one of its chunks (whole waves). kernelTimes
// keeps the kernel's times by items launched, for the configuration's
// other batches.
func (b *benchRun) measureGPU(ctx context.Context, eng *ecmul.Engine, c *curves.Curve, v benchVariant, r *benchResult,
	in benchItems, kernelTimes map[kernelLaunches][][]float64) {
	batch, L := r.Batch, c.ByteLen()
	t, err := timeBytes(ctx, eng, in.scalars[:batch*L], in.points[:batch*(1+2*L)], batch, runs{reps: b.cfg.reps})
	if err != nil {
		b.fail(c, opMul, v, batch, "bytes API: ", err)
	} else {
		r.BytesLatencyMs, r.BytesOpsPerSec = t.Ms, float64(batch)/(t.Ms/1e3)
		r.BytesHostCPUNsPerItem = t.CPUMs * 1e6 / float64(batch)
		if st, ok := diag.LastBatch(eng); ok {
			r.BytesTimeline = st.Timeline
		}
	}
	kl := b.kernelBatch(eng, batch)
	ts, ok := kernelTimes[kl]
	if !ok {
		if ts, err = diag.KernelTimes(eng, in.pts[:kl.items], in.ks[:kl.items], kl.launches, b.cfg.reps); err == nil {
			kernelTimes[kl] = ts
		} else {
			fmt.Fprintf(b.stderr, "ecmul bench: %s %s batch %d: kernel timing: %s\n", c.Name(), v.label(b.backend), batch, message(err))
		}
	}
	setKernelFigures(r, kl.total(), ts)
}

// kernelLaunches is what a kernel-only timing launches on each GPU:
// launches launches of items items.
type kernelLaunches struct{ items, launches int }

// total is the items a timing covers on each GPU.
func (k kernelLaunches) total() int { return k.items * k.launches }

// kernelBatch returns what a kernel-only timing of a batch launches on
// each GPU: the whole batch in one launch, or for a batch of more than one
// chunk as many of its chunks as cover a GPU's share (the last one whole),
// queued as the batch's are, so that one launch's last wave overlaps the
// next one's first as in the batch.
func (b *benchRun) kernelBatch(eng *ecmul.Engine, batch int) kernelLaunches {
	chunk := b.cfg.chunk
	if chunk == 0 {
		chunk = diag.DefaultChunk
	}
	if batch <= chunk {
		return kernelLaunches{batch, 1}
	}
	items, ok := diag.ChunkItems(eng, batch)
	if !ok {
		return kernelLaunches{chunk, 1}
	}
	devices := 1
	if st, ok := diag.LastBatch(eng); ok {
		devices = max(1, len(st.Devices))
	}
	share := (batch + devices - 1) / devices
	return kernelLaunches{items, (share + items - 1) / items}
}

// measureCombKernels adds the kernel-only figures of base, sign or ecdsa
// to r, on as many items as measureGPU times k·P's kernel on: for base and
// sign the comb's kernel alone (signing's k·G); for ecdsa the two kernels of a verification, the
// ladder's of u2·Q and the variable-time comb's of u1·G, each alone, their
// times added run by run. kernelTimes keeps the times by items launched.
func (b *benchRun) measureCombKernels(eng *ecmul.Engine, c *curves.Curve, v benchVariant, r *benchResult,
	in benchItems, kernelTimes map[kernelLaunches][][]float64) {
	kl := b.kernelBatch(eng, r.Batch)
	ts, ok := kernelTimes[kl]
	if !ok {
		var err error
		if ts, err = combKernelTimes(eng, r.Op, in.pts[:kl.items], in.ks[:kl.items], kl.launches, b.cfg.reps); err != nil {
			fmt.Fprintf(b.stderr, "ecmul bench: %s %s %s batch %d: kernel timing: %s\n", c.Name(), r.Op, v.label(b.backend), r.Batch, message(err))
			return
		}
		kernelTimes[kl] = ts
	}
	setKernelFigures(r, kl.total(), ts)
}

// combKernelTimes times op's kernels alone on each of eng's GPUs: the
// comb's on ks for base and sign; for ecdsa the ladder's on pts and ks and the
// variable-time comb's on ks, each run's two times added.
func combKernelTimes(eng *ecmul.Engine, op string, pts []*ecmul.Point, ks []*big.Int, launches, reps int) ([][]float64, error) {
	comb, err := diag.BaseKernelTimes(eng, op == opECDSA, ks, launches, reps)
	if err != nil || op != opECDSA {
		return comb, err
	}
	ladder, err := diag.KernelTimes(eng, pts, ks, launches, reps)
	if err != nil {
		return nil, err
	}
	return addRuns(comb, ladder), nil
}

// addRuns returns the times of a and b, one list per GPU, added run by
// run; a GPU without the same runs in both (left out of one after a
// fault) gets nil.
func addRuns(a, b [][]float64) [][]float64 {
	sum := make([][]float64, len(a))
	for i := range a {
		if i >= len(b) || len(a[i]) == 0 || len(b[i]) != len(a[i]) {
			continue
		}
		sum[i] = make([]float64, len(a[i]))
		for j := range a[i] {
			sum[i][j] = a[i][j] + b[i][j]
		}
	}
	return sum
}

// fail reports a failed measurement of a batch of operation op and counts
// it.
func (b *benchRun) fail(c *curves.Curve, op string, v benchVariant, batch int, what string, err error) {
	fmt.Fprintf(b.stderr, "ecmul bench: %s %s %s batch %d: %s%s\n", c.Name(), op, v.label(b.backend), batch, what, message(err))
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
