package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/par"
	"github.com/rnsec/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/textbook"
)

const verifyHelp = `Usage: ecmul verify [flags]

Checks a backend against independent implementations: computes --n random
items through the engine and compares every result with curves.ReferenceScalarMult
(Go's crypto/elliptic for P-224 and P-256, gnark-crypto for secp256k1), for
P-256 also with gnark-crypto's secp256r1, and with a textbook affine
double-and-add over math/big (internal/textbook), so that no backend, the
cpu backend included, is only compared with itself.

Items: random valid points k·G (one fresh point per 32 items) and random
scalars in [1, n); the first items, and about one in 32 after them, take edge
scalars instead: 0, 1, 2, 3, (n-1)/2, (n+1)/2, n-2, n-1, n, n+1, 2n-1, 2n,
2^bits(n)-1, 2^256, 2^511, 2^512-1, (2^256-1)·n, or a random scalar of 257 to
512 bits. Item i depends only on --seed and i, so a seed reproduces a run, and
--chunk changes nothing but memory and speed.

The items run in chunks of --chunk, so any --n runs in bounded memory; the
references run on all cores (on the gpu backend, while the GPU computes the
next chunk). A progress line is drawn on standard error after the first
second, only when standard error is a terminal.

Output (standard output), key=value fields:

  verify curve=P-256 backend=gpu ext=shenoy n=1000000 seed=1 chunk=16384 references=crypto/elliptic,gnark-crypto,textbook
  mismatch index=I scalar=HEX point=X,Y got=X,Y|infinity|error(REASON) want=X,Y|infinity
  items=N mismatches=M item_errors=E seconds=S engine_seconds=T engine_op/s=R reference_cores=C
  PASS | FAIL

engine_seconds and engine_op/s time the engine alone; seconds is the whole
run, references included. A "mismatch" line is written for every item whose
result differs from the references, or that failed (item_errors), or where
the references disagree.

Exit status: 0 when every item matches, 1 when any item mismatches or fails
(or the engine cannot be opened, e.g. --backend gpu without a GPU), 2 for usage
errors.

Example:

  ecmul verify --curve p256 --backend gpu --n 1000000 --seed 7

Flags:
`

// scalarMultFunc computes a batch, as ecmul.Engine.ScalarMult does.
type scalarMultFunc func(ctx context.Context, points []*ecmul.Point, scalars []*big.Int) ([]ecmul.Result, error)

// verifyConfig describes a verify run.
type verifyConfig struct {
	curve   *curves.Curve
	n       int64
	seed    uint64
	chunk   int
	overlap bool   // check one chunk while the engine computes the next
	header  string // the fields of the first line after "verify"
}

// verifyFlags are the settings of verify: the engine's, and the items'.
type verifyFlags struct {
	mulFlags
	n    int64
	seed uint64
}

func verifyFlagSet(f *verifyFlags) *flag.FlagSet {
	fs := newFlagSet("verify", verifyHelp)
	addEngineFlags(fs, &f.mulFlags)
	fs.Int64Var(&f.n, "n", 10000, "number of items")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.IntVar(&f.chunk, "chunk", 1<<14, "items per batch")
	return fs
}

func runVerify(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f verifyFlags
	if code, ok := parseFlags(verifyFlagSet(&f), args, stderr); !ok {
		return code
	}
	switch {
	case f.n < 1:
		return usageError(stderr, "verify", "--n must be at least 1, not %d", f.n)
	case f.chunk < 1:
		return usageError(stderr, "verify", "--chunk must be at least 1, not %d", f.chunk)
	}
	c, opts, g, err := engineConfig(&f.mulFlags)
	if err != nil {
		return report(stderr, "verify", exitUsage, err)
	}
	eng, err := diag.New(publicCurve(c), opts, g)
	if err != nil {
		return report(stderr, "verify", exitFail, err)
	}
	defer eng.Close()
	cfg := verifyConfig{curve: c, n: f.n, seed: f.seed, chunk: f.chunk, overlap: eng.Backend() == ecmul.GPU}
	cfg.header = "backend=" + eng.Backend().String()
	if eng.Backend() == ecmul.GPU || eng.Backend() == ecmul.RNSCPU {
		cfg.header += fmt.Sprintf(" schedule=%s ext=%s channel-bits=%d", opts.Schedule, opts.Extension, eng.ChannelBits())
	}
	return verifyRun(context.Background(), eng.ScalarMult, cfg, stdout, stderr)
}

// verifyChunk is one batch of items and the engine's results.
type verifyChunk struct {
	lo     int64 // index of the first item
	pts    []*ecmul.Point
	ks     []*big.Int
	res    []ecmul.Result
	err    error
	engine time.Duration
}

// verifyRun runs the items of cfg through mult, checks them and reports
// on stdout; it returns the exit status.
func verifyRun(ctx context.Context, mult scalarMultFunc, cfg verifyConfig, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "verify curve=%s %s n=%d seed=%d chunk=%d references=%s\n",
		cfg.curve.Name(), cfg.header, cfg.n, cfg.seed, cfg.chunk, referencesOf(cfg.curve))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	next := verifyChunks(ctx, mult, cfg)
	prog := startProgress(stderr, "ecmul verify", func(done int64) float64 { return float64(done) / float64(cfg.n) })
	var t verifyTally
	var batchErr error
	for lo := int64(0); lo < cfg.n && batchErr == nil; lo += int64(cfg.chunk) {
		ch := next(lo)
		t.engine += ch.engine
		if ch.err != nil && len(ch.res) != len(ch.pts) {
			batchErr = ch.err
			break
		}
		mismatches, itemErrors := checkChunk(cfg.curve, ch, stdout)
		t.mismatches += mismatches
		t.itemErrors += itemErrors
		t.items += int64(len(ch.pts))
		prog.add(len(ch.pts))
		batchErr = ch.err
	}
	cancel()
	prog.finish()
	return t.report(time.Since(start), batchErr, stdout, stderr)
}

// referencesOf lists the references verify checks c against.
func referencesOf(c *curves.Curve) string {
	refs := "crypto/elliptic"
	switch c.Name() {
	case curves.P256().Name():
		refs += ",gnark-crypto"
	case curves.Secp256k1().Name():
		refs = "gnark-crypto"
	}
	return refs + ",textbook"
}

// verifyChunks returns the function that gives the chunk of items from lo
// with mult's results: computed when asked for, or with cfg.overlap by a
// goroutine one chunk ahead (asked for in order), so that the engine
// computes the next chunk while this one is checked. The goroutine ends
// with ctx.
func verifyChunks(ctx context.Context, mult scalarMultFunc, cfg verifyConfig) func(lo int64) *verifyChunk {
	gen := newVerifyItems(cfg.curve, cfg.seed)
	compute := func(lo int64) *verifyChunk {
		ch := &verifyChunk{lo: lo}
		ch.pts, ch.ks = gen.items(lo, min(lo+int64(cfg.chunk), cfg.n))
		t0 := time.Now()
		ch.res, ch.err = mult(ctx, ch.pts, ch.ks)
		ch.engine = time.Since(t0)
		return ch
	}
	if !cfg.overlap {
		return compute
	}
	chunks := make(chan *verifyChunk, 1)
	go func() {
		for lo := int64(0); lo < cfg.n; lo += int64(cfg.chunk) {
			select {
			case chunks <- compute(lo):
			case <-ctx.Done():
				return
			}
		}
	}()
	return func(int64) *verifyChunk { return <-chunks }
}

// checkChunk checks every item of ch on all cores, writes a line per
// mismatch to w in the items' order, and returns the number of mismatches
// of computed items and of items that failed in the engine.
func checkChunk(c *curves.Curve, ch *verifyChunk, w io.Writer) (mismatches, itemErrors int64) {
	reports := make([][]string, len(par.BoundsAllCores(len(ch.pts)))-1)
	counts := make([][2]int64, len(reports))
	par.DoAllCores(len(ch.pts), func(p, lo, hi int) {
		for i := lo; i < hi; i++ {
			if line, failed := checkItem(c, ch.lo+int64(i), ch.pts[i], ch.ks[i], &ch.res[i]); line != "" {
				reports[p] = append(reports[p], line)
				if failed {
					counts[p][1]++
				} else {
					counts[p][0]++
				}
			}
		}
	})
	for p := range reports {
		for _, l := range reports[p] {
			fmt.Fprintln(w, l)
		}
		mismatches += counts[p][0]
		itemErrors += counts[p][1]
	}
	return mismatches, itemErrors
}

// verifyTally is what a run of verify found.
type verifyTally struct {
	items, mismatches, itemErrors int64
	engine                        time.Duration // time in the engine
}

// report writes the summary line and the verdict, PASS or FAIL, to stdout
// and a batch's error to stderr; it returns the exit status.
func (t verifyTally) report(el time.Duration, batchErr error, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "items=%d mismatches=%d item_errors=%d seconds=%.3f engine_seconds=%.3f engine_op/s=%.0f reference_cores=%d\n",
		t.items, t.mismatches, t.itemErrors, el.Seconds(), t.engine.Seconds(), float64(t.items)/max(t.engine.Seconds(), 1e-9), runtime.GOMAXPROCS(0))
	if batchErr != nil {
		report(stderr, "verify", exitFail, batchErr)
	}
	if batchErr != nil || t.mismatches > 0 || t.itemErrors > 0 {
		fmt.Fprintln(stdout, "FAIL")
		return exitFail
	}
	fmt.Fprintln(stdout, "PASS")
	return exitOK
}

// checkItem compares one result with the references; it returns the
// mismatch line to report ("" when the item is right) and whether the item
// failed in the engine.
func checkItem(c *curves.Curve, index int64, p *ecmul.Point, k *big.Int, r *ecmul.Result) (line string, failed bool) {
	x, y, ok, err := c.ReferenceScalarMult(p.X, p.Y, k)
	want := refText(c, x, y, ok, err)
	if c.Name() == curves.P256().Name() {
		x, y, ok, err := c.GnarkScalarMult(p.X, p.Y, k)
		if g := refText(c, x, y, ok, err); g != want {
			return fmt.Sprintf("mismatch index=%d scalar=%x point=%s got=%s want=references-disagree(crypto/elliptic=%s,gnark-crypto=%s)",
				index, k, pointText(c, p.X, p.Y), resultText(c, r), want, g), r.Err != nil
		}
	}
	var tx, ty *big.Int
	if tb := textbook.Mul(c, (*curves.Point)(p), k); tb != nil {
		tx, ty = tb.X, tb.Y
	}
	if tb := refText(c, tx, ty, tx != nil, nil); tb != want {
		return fmt.Sprintf("mismatch index=%d scalar=%x point=%s got=%s want=references-disagree(%s=%s,textbook=%s)",
			index, k, pointText(c, p.X, p.Y), resultText(c, r), refName(c), want, tb), r.Err != nil
	}
	got := resultText(c, r)
	if got == want && r.Err == nil {
		return "", false
	}
	return fmt.Sprintf("mismatch index=%d scalar=%x point=%s got=%s want=%s", index, k, pointText(c, p.X, p.Y), got, want), r.Err != nil
}

// refName names curves.ReferenceScalarMult's implementation for c.
func refName(c *curves.Curve) string {
	if c.Name() == curves.Secp256k1().Name() {
		return "gnark-crypto"
	}
	return "crypto/elliptic"
}

func pointText(c *curves.Curve, x, y *big.Int) string {
	return string(stream.AppendCoordinate(append(stream.AppendCoordinate(nil, c, x), ','), c, y))
}

func resultText(c *curves.Curve, r *ecmul.Result) string {
	switch {
	case r.Err != nil:
		msg := r.Err.Error()
		var ie *ecmul.ItemError
		if errors.As(r.Err, &ie) {
			msg = ie.Err.Error()
		}
		return "error(" + stream.OneLine(msg) + ")"
	case r.Infinity:
		return "infinity"
	case r.X == nil || r.Y == nil || r.X.Sign() < 0 || r.Y.Sign() < 0 || r.X.Cmp(c.P()) >= 0 || r.Y.Cmp(c.P()) >= 0:
		return fmt.Sprintf("out-of-range(%v,%v)", r.X, r.Y)
	}
	return pointText(c, r.X, r.Y)
}

// refText formats a reference's answer as resultText does.
func refText(c *curves.Curve, x, y *big.Int, ok bool, err error) string {
	switch {
	case err != nil:
		return "error(" + stream.OneLine(err.Error()) + ")"
	case !ok:
		return "infinity"
	}
	return pointText(c, x, y)
}

// verifyItems generates the items of a run: item i depends on the seed and
// i only.
type verifyItems struct {
	c     *curves.Curve
	seed  uint64
	edges []*big.Int
}

// verifyGroup is how many consecutive items share a point.
const verifyGroup = 32

func newVerifyItems(c *curves.Curve, seed uint64) *verifyItems {
	return &verifyItems{c: c, seed: seed, edges: edgeScalars(c)}
}

// edgeScalars are the scalars verify always includes.
func edgeScalars(c *curves.Curve) []*big.Int {
	n := c.N()
	one := big.NewInt(1)
	add := func(a *big.Int, d int64) *big.Int { return new(big.Int).Add(a, big.NewInt(d)) }
	mul := func(a *big.Int, m int64) *big.Int { return new(big.Int).Mul(a, big.NewInt(m)) }
	pow2 := func(e uint) *big.Int { return new(big.Int).Lsh(one, e) }
	half := new(big.Int).Rsh(n, 1) // (n-1)/2, n odd
	return []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3),
		half, add(half, 1),
		add(n, -2), add(n, -1), new(big.Int).Set(n), add(n, 1),
		add(mul(n, 2), -1), mul(n, 2),
		add(pow2(uint(n.BitLen())), -1), pow2(256), pow2(511), add(pow2(512), -1),
		new(big.Int).Mul(n, add(pow2(256), -1)),
	}
}

// items returns the points and scalars of items [lo, hi).
func (v *verifyItems) items(lo, hi int64) ([]*ecmul.Point, []*big.Int) {
	c := v.c
	g0, g1 := lo/verifyGroup, (hi-1)/verifyGroup
	groups := sampler{c, v.seed}.points(streamVerifyPoint, int(g0), int(g1)+1)
	pts, ks := make([]*ecmul.Point, hi-lo), make([]*big.Int, hi-lo)
	par.DoAllCores(len(pts), func(_, a, b int) {
		sampler := newScalarSampler(c.N())
		for j := a; j < b; j++ {
			i := lo + int64(j)
			pts[j] = (*ecmul.Point)(groups[i/verifyGroup-g0])
			ks[j] = v.scalar(i, sampler)
		}
	})
	return pts, ks
}

// scalar returns the scalar of item i.
func (v *verifyItems) scalar(i int64, s *scalarSampler) *big.Int {
	if i < int64(len(v.edges)) {
		return new(big.Int).Set(v.edges[i])
	}
	rng := rand.New(rand.NewPCG(v.seed, uint64(i)))
	if rng.IntN(verifyGroup) == 0 {
		if e := rng.IntN(len(v.edges) + 1); e < len(v.edges) {
			return new(big.Int).Set(v.edges[e])
		}
		bits := 257 + rng.IntN(256)
		b := make([]byte, (bits+7)/8)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		k := new(big.Int).SetBytes(b)
		k.Rsh(k, uint(8*len(b)-bits))
		return k.SetBit(k, bits-1, 1)
	}
	return new(big.Int).SetBytes(s.next(rng))
}
