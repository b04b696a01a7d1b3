package main

import (
	"context"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	gnarkecdsa "github.com/consensys/gnark-crypto/ecc/secp256k1/ecdsa"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/par"
	"github.com/rnsec/ecmul/internal/textbook"
)

const verifyHelp = `Usage: ecmul verify [flags]

Checks a backend against independent implementations: runs --n random items
of one operation (--op) through the engine and checks every result:

  mul    k·P through Engine.ScalarMult (the default): the ladder on the
         gpu and rns-cpu backends
  base   k·G through Engine.ScalarBaseMultBytes, G the curve's generator
         (the fixed-base comb on the gpu and rns-cpu backends, the ladder
         where the gpu backend's kernel has no comb)
  ecdsa  ECDSA verification through package ecdsa (ecdsa.Verify: u1·G on
         the engine's variable-time comb, or as base computes k·G where the
         gpu backend's kernel has none; u2·Q on its ladder; their sum
         compared with r in the gpu backend's verify kernel, on the host
         elsewhere)
  sign   ECDSA signing through package ecdsa (ecdsa.Sign: on the gpu
         backend, for SHA-256 digests, the nonces, k·G on the constant-time
         comb and s on the GPU; elsewhere k·G as base computes it, the rest
         on the host)

mul and base compare every result with curves.ReferenceScalarMult (Go's
crypto/elliptic for P-224 and P-256, gnark-crypto for secp256k1), for P-256
also with gnark-crypto's secp256r1, and with a textbook affine
double-and-add over math/big (internal/textbook), so that no backend, the
cpu backend included, is only compared with itself. ecdsa compares every
verdict with the one the item was made to have, with crypto/ecdsa's (for
secp256k1 gnark-crypto's, after SEC 1's range check of r and s, given n-s
for an s above n/2, which it refuses: n-s verifies exactly when s does) and
with a textbook verification over math/big. sign checks every signature
with crypto/ecdsa.Verify (for secp256k1 gnark-crypto's, as for ecdsa) and
the textbook verification, requires s <= n/2 on secp256k1 (ecdsa.Sign's
default there), and compares every deterministic signature bit for bit
with RFC 6979 as the textbook derives it over math/big and, for P-224 and
P-256, with crypto/ecdsa's PrivateKey.Sign(nil, digest, hash).

Items of mul: random valid points k·G (one fresh point per 32 items) and
random scalars in [1, n); the first items, and about one in 32 after them,
take edge scalars instead: 0, 1, 2, 3, (n-1)/2, (n+1)/2, n-2, n-1, n, n+1,
2n-1, 2n, 2^bits(n)-1, 2^256, 2^511, 2^512-1, (2^256-1)·n, or a random
scalar of 257 to 512 bits.

Items of base: random scalars in [1, n), L bytes each as the bytes API takes
them (L = 28 for P-224, 32 otherwise); the first items, and about one in 32
after them, take edge scalars instead: those of mul that fit in L bytes
(0, 1, 2, 3, (n-1)/2, (n+1)/2, n-2, n-1, n, n+1), 2^(8L)-1, 2^(8L-1), or a
random scalar in [n, 2^(8L)). Each result is checked as mul checks k·P,
with G as the point.

Items of ecdsa: signatures made on the host over math/big from a random key,
nonce and digest (1 to 64 bytes), each of a case: valid, high-s (s replaced
by n-s: still valid), r=0, s=0, r=n, s=n, digest-bit (a bit of the digest
that its integer keeps, flipped), wrong-key (another random key). The first
items take each case once; after them, about one item in four takes a
random case and the others are valid.

Items of sign: a random private key in [1, n) and a random digest of 20,
28, 32, 48 or 64 bytes (the hash of the nonces' HMAC the one its length
implies), each of a case: deterministic (the default options), hedged
(SignOptions.Hedged: checked by verification alone), key=1, key=n-1, and
three that must fail: key=0 and key=n (ecdsa.ErrPrivateKey), a digest of
33 bytes (ecdsa.ErrDigestLength), with a zero signature. The first items
take each case once; after them, about one item in four takes a random
case and the others are deterministic.

Item i depends only on --op, --seed and i, so a seed reproduces a run, and
--chunk changes nothing but memory and speed.

The items run in chunks of --chunk, so any --n runs in bounded memory; the
references run on all cores (on the gpu backend, while the GPU computes the
next chunk). A progress line is drawn on standard error after the first
second, only when standard error is a terminal.

Output (standard output), key=value fields:

  verify curve=P-256 op=mul backend=gpu ext=shenoy n=1000000 seed=1 chunk=65536 references=crypto/elliptic,gnark-crypto,textbook
  mismatch index=I scalar=HEX point=X,Y got=X,Y|infinity|error(REASON) want=X,Y|infinity
  mismatch index=I case=CASE digest=HEX r=HEX s=HEX key=X,Y got=valid|invalid|error(REASON) want=valid|invalid
  mismatch index=I case=CASE digest=HEX key=D got=R,S|error(REASON) want=R,S|valid(REFERENCE=VERDICT)|low-s|error(REASON)
  items=N mismatches=M item_errors=E seconds=S engine_seconds=T engine_op/s=R reference_cores=C
  PASS | FAIL

The first mismatch line is that of mul and base (point=G for base), the
second that of ecdsa, the third that of sign (key=D the private key).
engine_seconds and engine_op/s time the engine alone (for ecdsa, the whole
of ecdsa.Verify, for sign of ecdsa.Sign: signatures per second); seconds is
the whole run, references included. A "mismatch" line is written for every
item whose result differs from the references, or that failed (item_errors:
an error instead of a point, or a verdict other than valid or invalid), or
where the references disagree.

Exit status: 0 when every item matches, 1 when any item mismatches or fails
(or the engine cannot be opened, e.g. --backend gpu without a GPU), 2 for usage
errors.

Examples:

  ecmul verify --curve p256 --backend gpu --n 1000000 --seed 7
  ecmul verify --curve secp256k1 --backend gpu --op ecdsa --n 100000
  ecmul verify --curve p256 --backend gpu --op sign --n 100000

Flags:
`

// scalarMultFunc computes a batch, as ecmul.Engine.ScalarMult does.
type scalarMultFunc func(ctx context.Context, res []ecmul.Result, scalars []*big.Int, points []*ecmul.Point) error

// scalarBaseMultFunc computes k·G of a batch, as
// ecmul.Engine.ScalarBaseMultBytes does.
type scalarBaseMultFunc func(ctx context.Context, out []byte, status []ecmul.Status, scalars []byte) error

// ecdsaVerifyFunc verifies a batch of signatures, as ecdsa.Verify does on
// an engine.
type ecdsaVerifyFunc func(ctx context.Context, verdicts []ecdsa.Verdict, digests [][]byte, sigs, keys []byte) error

// verifyEngine is the engine's calls that verify makes, one per --op; tests
// wrap them to spoil results.
type verifyEngine struct {
	mult  scalarMultFunc
	base  scalarBaseMultFunc
	ecdsa ecdsaVerifyFunc
	sign  ecdsaSignFunc
}

// engineCalls returns eng's calls.
func engineCalls(eng *ecmul.Engine) verifyEngine {
	return verifyEngine{mult: eng.ScalarMult, base: eng.ScalarBaseMultBytes,
		ecdsa: func(ctx context.Context, verdicts []ecdsa.Verdict, digests [][]byte, sigs, keys []byte) error {
			return ecdsa.Verify(ctx, eng, verdicts, digests, sigs, keys)
		},
		sign: func(ctx context.Context, sigs []byte, errs []error, digests [][]byte, keys []byte, opts ecdsa.SignOptions) error {
			return ecdsa.Sign(ctx, eng, sigs, errs, digests, keys, opts)
		}}
}

// The operations that --op of verify and bench names.
const (
	opMul   = "mul"   // k·P
	opBase  = "base"  // k·G
	opECDSA = "ecdsa" // ECDSA verification
	opSign  = "sign"  // ECDSA signing
)

var opNames = []string{opMul, opBase, opECDSA, opSign}

// parseOp reads an operation's name, in any case.
func parseOp(s string) (string, error) {
	if s = strings.ToLower(s); !slices.Contains(opNames, s) {
		return "", fmt.Errorf("unknown operation %q (%s)", s, strings.Join(opNames, ", "))
	}
	return s, nil
}

// verifyConfig describes a verify run.
type verifyConfig struct {
	curve   *curves.Curve
	op      string // opMul, opBase, opECDSA or opSign; "" is opMul
	n       int64
	seed    uint64
	chunk   int
	overlap bool   // check one chunk while the engine computes the next
	header  string // the fields of the first line after "verify"
}

// verifyFlags are the settings of verify: the engine's, and the items'.
type verifyFlags struct {
	mulFlags
	op   string
	n    int64
	seed uint64
}

func verifyFlagSet(f *verifyFlags) *flag.FlagSet {
	fs := newFlagSet("verify", verifyHelp)
	addEngineFlags(fs, &f.mulFlags)
	fs.StringVar(&f.op, "op", opMul, "operation checked: mul (k·P), base (k·G), ecdsa (ECDSA verification) or sign (ECDSA signing)")
	fs.Int64Var(&f.n, "n", 10000, "number of items")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.IntVar(&f.chunk, "chunk", 1<<16, "items per batch (on the gpu backend, batches of more than 16,384 items also run the prepare and finish kernels)")
	return fs
}

func runVerify(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f verifyFlags
	if code, ok := parseFlags(verifyFlagSet(&f), args, stdout, stderr); !ok {
		return code
	}
	op, err := parseOp(f.op)
	switch {
	case err != nil:
		return usageError(stderr, "verify", "--op: %v", err)
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
	cfg := verifyConfig{curve: c, op: op, n: f.n, seed: f.seed, chunk: f.chunk, overlap: eng.Backend() == ecmul.GPU}
	cfg.header = "backend=" + eng.Backend().String()
	if eng.Backend() == ecmul.GPU || eng.Backend() == ecmul.RNSCPU {
		cfg.header += fmt.Sprintf(" schedule=%s ext=%s channel-bits=%d", g.Schedule, g.Extension, diag.ChannelBits(eng))
	}
	return verifyRun(context.Background(), engineCalls(eng), cfg, stdout, stderr)
}

// verifyOp is one operation of verify: how its items are made, run through
// the engine and checked.
type verifyOp interface {
	// references names the implementations the results are checked with.
	references() string
	// run makes items [lo, hi) and runs them through the engine. It
	// returns the check of item lo+i's result, nil when the engine failed
	// the batch as a whole (err says how), and the time in the engine.
	run(ctx context.Context, lo, hi int64) (check itemCheck, engine time.Duration, err error)
}

// itemCheck checks item lo+i of a chunk: it returns the mismatch line to
// report ("" when the item is right) and whether the item failed in the
// engine.
type itemCheck func(i int) (line string, failed bool)

// newVerifyOp returns cfg's operation on eng.
func newVerifyOp(eng verifyEngine, cfg verifyConfig) verifyOp {
	switch cfg.op {
	case opBase:
		return &baseOp{c: cfg.curve, items: newBaseItems(cfg.curve, cfg.seed), base: eng.base}
	case opECDSA:
		return &ecdsaOp{c: cfg.curve, items: ecdsaItems{cfg.curve, cfg.seed}, verify: eng.ecdsa}
	case opSign:
		return &signOp{c: cfg.curve, items: signItems{cfg.curve, cfg.seed}, sign: eng.sign}
	}
	return &mulOp{c: cfg.curve, items: newVerifyItems(cfg.curve, cfg.seed), mult: eng.mult}
}

// verifyChunk is one batch of items and the check of the engine's results.
type verifyChunk struct {
	lo     int64 // index of the first item
	n      int   // number of items
	check  itemCheck
	err    error
	engine time.Duration
}

// verifyRun runs the items of cfg through eng, checks them and reports on
// stdout; it returns the exit status.
func verifyRun(ctx context.Context, eng verifyEngine, cfg verifyConfig, stdout, stderr io.Writer) int {
	if cfg.op == "" {
		cfg.op = opMul
	}
	op := newVerifyOp(eng, cfg)
	fmt.Fprintf(stdout, "verify curve=%s op=%s %s n=%d seed=%d chunk=%d references=%s\n",
		cfg.curve.Name(), cfg.op, cfg.header, cfg.n, cfg.seed, cfg.chunk, op.references())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	next := verifyChunks(ctx, op, cfg)
	prog := startProgress(stderr, "ecmul verify", func(done int64) float64 { return float64(done) / float64(cfg.n) })
	var t verifyTally
	var batchErr error
	for lo := int64(0); lo < cfg.n && batchErr == nil; lo += int64(cfg.chunk) {
		ch := next(lo)
		t.engine += ch.engine
		if ch.check == nil {
			batchErr = ch.err
			break
		}
		mismatches, itemErrors := checkChunk(ch, stdout)
		t.mismatches += mismatches
		t.itemErrors += itemErrors
		t.items += int64(ch.n)
		prog.add(ch.n)
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
// with the check of the engine's results: computed when asked for, or with
// cfg.overlap by a goroutine one chunk ahead (asked for in order), so that
// the engine computes the next chunk while this one is checked. The
// goroutine ends with ctx.
func verifyChunks(ctx context.Context, op verifyOp, cfg verifyConfig) func(lo int64) *verifyChunk {
	compute := func(lo int64) *verifyChunk {
		hi := min(lo+int64(cfg.chunk), cfg.n)
		ch := &verifyChunk{lo: lo, n: int(hi - lo)}
		ch.check, ch.engine, ch.err = op.run(ctx, lo, hi)
		if ch.check == nil && ch.err == nil {
			ch.err = errors.New("the engine returned no results") // a broken engine call
		}
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
func checkChunk(ch *verifyChunk, w io.Writer) (mismatches, itemErrors int64) {
	reports := make([][]string, len(par.BoundsAllCores(ch.n))-1)
	counts := make([][2]int64, len(reports))
	par.DoAllCores(ch.n, func(p, lo, hi int) {
		for i := lo; i < hi; i++ {
			if line, failed := ch.check(i); line != "" {
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
		return "error(" + stream.OneLine(r.Err.Error()) + ")"
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

// mulOp is --op mul: k·P through ScalarMult.
type mulOp struct {
	c     *curves.Curve
	items *verifyItems
	mult  scalarMultFunc
}

func (o *mulOp) references() string { return referencesOf(o.c) }

func (o *mulOp) run(ctx context.Context, lo, hi int64) (itemCheck, time.Duration, error) {
	pts, ks := o.items.items(lo, hi)
	t0 := time.Now()
	res := make([]ecmul.Result, len(pts))
	err := o.mult(ctx, res, ks, pts)
	el := time.Since(t0)
	if err != nil && !slices.ContainsFunc(res, func(r ecmul.Result) bool { return r.X != nil || r.Infinity }) {
		return nil, el, err // nothing computed: no item to check
	}
	return func(i int) (string, bool) { return checkItem(o.c, lo+int64(i), pts[i], ks[i], &res[i]) }, el, err
}

// baseOp is --op base: k·G through ScalarBaseMultBytes, each result
// checked as mul's with G as the point.
type baseOp struct {
	c     *curves.Curve
	items *verifyItems
	base  scalarBaseMultFunc
}

func (o *baseOp) references() string { return referencesOf(o.c) }

func (o *baseOp) run(ctx context.Context, lo, hi int64) (itemCheck, time.Duration, error) {
	c, L := o.c, o.c.ByteLen()
	ks := o.items.scalars(lo, hi)
	scalars := make([]byte, len(ks)*L)
	for i, k := range ks {
		k.FillBytes(scalars[i*L : (i+1)*L])
	}
	size := 1 + 2*L
	out, status := make([]byte, len(ks)*size), make([]ecmul.Status, len(ks))
	t0 := time.Now()
	err := o.base(ctx, out, status, scalars)
	el := time.Since(t0)
	if err != nil {
		return nil, el, err // the call failed as a whole
	}
	g := (*ecmul.Point)(c.Generator())
	return func(i int) (string, bool) {
		r := bytesResult(out[i*size:(i+1)*size], status[i])
		return checkItem(c, lo+int64(i), g, ks[i], &r)
	}, el, nil
}

// bytesResult is the Result of an item of the bytes API: its uncompressed
// SEC1 output enc and its status.
func bytesResult(enc []byte, st ecmul.Status) ecmul.Result {
	switch st {
	case ecmul.StatusPoint:
		if enc[0] != 4 {
			return ecmul.Result{Err: fmt.Errorf("a point encoded with prefix %#02x, not 0x04", enc[0])}
		}
		L := len(enc) / 2
		return ecmul.Result{X: new(big.Int).SetBytes(enc[1 : 1+L]), Y: new(big.Int).SetBytes(enc[1+L:])}
	case ecmul.StatusInfinity:
		return ecmul.Result{Infinity: true}
	}
	return ecmul.Result{Err: st.Err()}
}

// verifyItems generates the scalars, and for mul the points, of a run of
// mul or base: item i depends on the seed and i only.
type verifyItems struct {
	c     *curves.Curve
	seed  uint64
	edges []*big.Int
	// wide draws the scalar an item takes when it takes neither an edge
	// nor one in [1, n).
	wide func(rng *rand.Rand) *big.Int
}

// verifyGroup is how many consecutive items share a point.
const verifyGroup = 32

func newVerifyItems(c *curves.Curve, seed uint64) *verifyItems {
	return &verifyItems{c: c, seed: seed, edges: edgeScalars(c), wide: wideScalar}
}

// newBaseItems returns the items of base: scalars of L bytes.
func newBaseItems(c *curves.Curve, seed uint64) *verifyItems {
	v := &verifyItems{c: c, seed: seed, edges: baseEdgeScalars(c)}
	top := new(big.Int).Lsh(big.NewInt(1), uint(8*c.ByteLen()))
	span := top.Sub(top, c.N()) // [n, 2^(8L)) is n + [0, span)
	v.wide = func(rng *rand.Rand) *big.Int {
		b := make([]byte, (span.BitLen()+7)/8+8)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		k := new(big.Int).SetBytes(b)
		return k.Mod(k, span).Add(k, c.N())
	}
	return v
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

// baseEdgeScalars are the scalars verify --op base always includes: the
// edge scalars of mul that fit in the curve's L bytes, 2^(8L)-1 and
// 2^(8L-1).
func baseEdgeScalars(c *curves.Curve) []*big.Int {
	bits := 8 * c.ByteLen()
	var out []*big.Int
	add := func(k *big.Int) {
		if k.BitLen() <= bits && !slices.ContainsFunc(out, func(e *big.Int) bool { return e.Cmp(k) == 0 }) {
			out = append(out, k)
		}
	}
	for _, k := range edgeScalars(c) {
		add(k)
	}
	top := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	add(top.Sub(top, big.NewInt(1)))
	add(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)))
	return out
}

// wideScalar draws a scalar of 257 to 512 bits, its top bit set.
func wideScalar(rng *rand.Rand) *big.Int {
	bits := 257 + rng.IntN(256)
	b := make([]byte, (bits+7)/8)
	for j := range b {
		b[j] = byte(rng.Uint32())
	}
	k := new(big.Int).SetBytes(b)
	k.Rsh(k, uint(8*len(b)-bits))
	return k.SetBit(k, bits-1, 1)
}

// items returns the points and scalars of items [lo, hi).
func (v *verifyItems) items(lo, hi int64) ([]*ecmul.Point, []*big.Int) {
	c := v.c
	g0, g1 := lo/verifyGroup, (hi-1)/verifyGroup
	groups := sampler{c, v.seed}.points(streamVerifyPoint, int(g0), int(g1)+1)
	pts := make([]*ecmul.Point, hi-lo)
	for j := range pts {
		pts[j] = (*ecmul.Point)(groups[(lo+int64(j))/verifyGroup-g0])
	}
	return pts, v.scalars(lo, hi)
}

// scalars returns the scalars of items [lo, hi).
func (v *verifyItems) scalars(lo, hi int64) []*big.Int {
	ks := make([]*big.Int, hi-lo)
	par.DoAllCores(len(ks), func(_, a, b int) {
		sampler := newScalarSampler(v.c.N())
		for j := a; j < b; j++ {
			ks[j] = v.scalar(lo+int64(j), sampler)
		}
	})
	return ks
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
		return v.wide(rng)
	}
	return new(big.Int).SetBytes(s.next(rng))
}

// ecdsaOp is --op ecdsa: signatures through ecdsa.Verify.
type ecdsaOp struct {
	c      *curves.Curve
	items  ecdsaItems
	verify ecdsaVerifyFunc
}

func (o *ecdsaOp) references() string {
	if o.c.Name() == curves.Secp256k1().Name() {
		return "gnark-crypto,textbook"
	}
	return "crypto/ecdsa,textbook"
}

func (o *ecdsaOp) run(ctx context.Context, lo, hi int64) (itemCheck, time.Duration, error) {
	items := o.items.items(lo, hi)
	digests, sigs, keys := encodeECDSA(o.c, items)
	verdicts := make([]ecdsa.Verdict, len(items))
	t0 := time.Now()
	err := o.verify(ctx, verdicts, digests, sigs, keys)
	el := time.Since(t0)
	if err != nil {
		return nil, el, err
	}
	return func(i int) (string, bool) { return checkECDSAItem(o.c, lo+int64(i), &items[i], verdicts[i]) }, el, nil
}

// The cases of verify's ECDSA items. The first items take each once, in
// this order.
const (
	caseValid     = iota
	caseHighS     // s replaced by n - s: still valid
	caseR0        // r = 0
	caseS0        // s = 0
	caseRN        // r = n
	caseSN        // s = n
	caseDigestBit // a bit of the digest that its integer keeps, flipped
	caseWrongKey  // the key of another random private key
	ecdsaCases
)

var caseNames = [ecdsaCases]string{"valid", "high-s", "r=0", "s=0", "r=n", "s=n", "digest-bit", "wrong-key"}

// streamVerifyECDSA tags the generators of verify's ECDSA items, apart
// from those of its points (streamVerifyPoint with a group's index).
const streamVerifyECDSA = streamVerifyPoint | 1<<61

// ecdsaDigestLens are the lengths of the digests of ECDSA items, chosen
// at random: shorter than n, n's, and longer (truncated to n's bits).
var ecdsaDigestLens = []int{32, 32, 32, 20, 28, 48, 64, 1}

// ecdsaItem is an ECDSA item: a signature (r, s) of digest under key q,
// made to be valid or invalid by its case.
type ecdsaItem struct {
	kind   int
	digest []byte
	r, s   *big.Int
	q      *curves.Point
}

// want is the verdict the item was made to have.
func (it *ecdsaItem) want() ecdsa.Verdict {
	if it.kind == caseValid || it.kind == caseHighS {
		return ecdsa.Valid
	}
	return ecdsa.Invalid
}

// ecdsaItems generates the items of verify --op ecdsa: item i depends on
// the seed and i only.
type ecdsaItems struct {
	c    *curves.Curve
	seed uint64
}

// items returns items [lo, hi), made on all cores.
func (v ecdsaItems) items(lo, hi int64) []ecdsaItem {
	out := make([]ecdsaItem, hi-lo)
	par.DoAllCores(len(out), func(_, a, b int) {
		for j := a; j < b; j++ {
			out[j] = v.item(lo+int64(j), -1)
		}
	})
	return out
}

// item returns item i, of case kind, or for kind -1 of its own case: case
// i for the first items, then a random case for about one in four and
// valid for the others.
func (v ecdsaItems) item(i int64, kind int) ecdsaItem {
	c, n := v.c, v.c.N()
	rng := rand.New(rand.NewPCG(v.seed, uint64(i)|streamVerifyECDSA))
	switch {
	case kind >= 0:
	case i < ecdsaCases:
		kind = int(i)
	case rng.IntN(4) == 0:
		kind = rng.IntN(ecdsaCases)
	default:
		kind = caseValid
	}
	s := newScalarSampler(n)
	digest := make([]byte, ecdsaDigestLens[rng.IntN(len(ecdsaDigestLens))])
	for j := range digest {
		digest[j] = byte(rng.Uint32())
	}
	d := new(big.Int).SetBytes(s.next(rng))
	it := ecdsaItem{kind: kind, digest: digest, q: mustBaseMult(c, d)}
	for it.r == nil {
		it.r, it.s = signECDSA(c, d, new(big.Int).SetBytes(s.next(rng)), digest)
	}
	switch kind {
	case caseHighS:
		it.s.Sub(n, it.s)
	case caseR0:
		it.r.SetInt64(0)
	case caseS0:
		it.s.SetInt64(0)
	case caseRN:
		it.r.Set(n)
	case caseSN:
		it.s.Set(n)
	case caseDigestBit:
		kept := min(len(digest), (n.BitLen()+7)/8) // every bit of these bytes is kept: bitlen(n) is a multiple of 8
		it.digest[rng.IntN(kept)] ^= 1 << rng.IntN(8)
	case caseWrongKey:
		it.q = mustBaseMult(c, new(big.Int).SetBytes(s.next(rng)))
	}
	return it
}

// mustBaseMult returns k·G, 0 < k < n, by the reference.
func mustBaseMult(c *curves.Curve, k *big.Int) *curves.Point {
	x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
	if err != nil || !ok {
		panic(fmt.Sprintf("k·G of k = %x: %v", k, err)) // 0 < k < n: always a point
	}
	return &curves.Point{X: x, Y: y}
}

// signECDSA signs digest under private key d with nonce k (SEC 1 v2,
// §4.1.3) over math/big, the references computing k·G; r is nil for a
// nonce that gives r or s of 0 (then another must be drawn).
func signECDSA(c *curves.Curve, d, k *big.Int, digest []byte) (r, s *big.Int) {
	n := c.N()
	r = new(big.Int).Mod(mustBaseMult(c, k).X, n)
	s = new(big.Int).Mul(r, d)
	s.Add(s, digestInt(digest, n)).Mul(s, new(big.Int).ModInverse(k, n)).Mod(s, n)
	if r.Sign() == 0 || s.Sign() == 0 {
		return nil, nil
	}
	return r, s
}

// digestInt is the integer of a digest: its leftmost bitlen(n) bits (SEC 1
// v2, §4.1.3 step 5).
func digestInt(digest []byte, n *big.Int) *big.Int {
	if size := (n.BitLen() + 7) / 8; len(digest) > size {
		digest = digest[:size]
	}
	e := new(big.Int).SetBytes(digest)
	if excess := 8*len(digest) - n.BitLen(); excess > 0 {
		e.Rsh(e, uint(excess))
	}
	return e
}

// encodeECDSA lays items out as ecdsa.Verify takes them: r‖s of L bytes
// each, uncompressed keys.
func encodeECDSA(c *curves.Curve, items []ecdsaItem) (digests [][]byte, sigs, keys []byte) {
	L := c.ByteLen()
	digests = make([][]byte, len(items))
	sigs = make([]byte, 0, len(items)*2*L)
	keys = make([]byte, 0, len(items)*(1+2*L))
	for i := range items {
		it := &items[i]
		digests[i] = it.digest
		sigs = append(append(sigs, it.r.FillBytes(make([]byte, L))...), it.s.FillBytes(make([]byte, L))...)
		keys = append(keys, c.EncodeSEC1(it.q, false)...)
	}
	return digests, sigs, keys
}

// checkECDSAItem compares the engine's verdict v on an item with the
// verdict the item was made to have, after checking that the references
// give that verdict too.
func checkECDSAItem(c *curves.Curve, index int64, it *ecdsaItem, v ecdsa.Verdict) (line string, failed bool) {
	want := verdictText(it.want())
	got := verdictText(v)
	failed = v != ecdsa.Valid && v != ecdsa.Invalid
	head := fmt.Sprintf("mismatch index=%d case=%s digest=%x r=%x s=%x key=%s got=%s",
		index, caseNames[it.kind], it.digest, it.r, it.s, pointText(c, it.q.X, it.q.Y), got)
	ref, refName := libraryVerify(c, it), "crypto/ecdsa"
	if c.Name() == curves.Secp256k1().Name() {
		refName = "gnark-crypto"
	}
	tb := textbookVerify(c, it)
	if ref != it.want() || tb != it.want() {
		return fmt.Sprintf("%s want=references-disagree(case=%s,%s=%s,textbook=%s)", head, want, refName, verdictText(ref), verdictText(tb)), failed
	}
	if v == it.want() {
		return "", false
	}
	return head + " want=" + want, failed
}

// verdictText writes a verdict as a mismatch line does: valid, invalid or
// error(REASON).
func verdictText(v ecdsa.Verdict) string {
	if v == ecdsa.Valid || v == ecdsa.Invalid {
		return v.String()
	}
	return "error(" + message(v.Err()) + ")"
}

// libraryVerify verifies an item with crypto/ecdsa, or for secp256k1 with
// gnark-crypto. gnark-crypto refuses s above n/2 (a rule of its own,
// against malleability) and needs r and s in [1, n-1]: it gets SEC 1's
// range check first, and n - s for s above n/2, which verifies exactly
// when s does.
func libraryVerify(c *curves.Curve, it *ecdsaItem) ecdsa.Verdict {
	n := c.N()
	valid := false
	switch c.Name() {
	case curves.Secp256k1().Name():
		if it.r.Sign() <= 0 || it.r.Cmp(n) >= 0 || it.s.Sign() <= 0 || it.s.Cmp(n) >= 0 {
			break
		}
		s := new(big.Int).Set(it.s)
		if s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
			s.Sub(n, s)
		}
		var pub gnarkecdsa.PublicKey
		pub.A.X.SetBigInt(it.q.X)
		pub.A.Y.SetBigInt(it.q.Y)
		sig := append(it.r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
		valid, _ = pub.Verify(sig, it.digest, nil)
	default:
		std := elliptic.P256()
		if c.Name() == curves.P224().Name() {
			std = elliptic.P224()
		}
		valid = stdecdsa.Verify(&stdecdsa.PublicKey{Curve: std, X: it.q.X, Y: it.q.Y}, it.digest, it.r, it.s)
	}
	if valid {
		return ecdsa.Valid
	}
	return ecdsa.Invalid
}

// textbookVerify verifies an item over math/big alone (package textbook's
// affine arithmetic), following SEC 1 v2 §4.1.4.
func textbookVerify(c *curves.Curve, it *ecdsaItem) ecdsa.Verdict {
	n := c.N()
	r, s := it.r, it.s
	if r.Sign() <= 0 || r.Cmp(n) >= 0 || s.Sign() <= 0 || s.Cmp(n) >= 0 {
		return ecdsa.Invalid
	}
	w := new(big.Int).ModInverse(s, n)
	u1 := new(big.Int).Mul(digestInt(it.digest, n), w)
	u2 := new(big.Int).Mul(r, w)
	R := textbook.Add(c, textbook.Mul(c, c.Generator(), u1.Mod(u1, n)), textbook.Mul(c, it.q, u2.Mod(u2, n)))
	if R == nil || new(big.Int).Mod(R.X, n).Cmp(r) != 0 {
		return ecdsa.Invalid
	}
	return ecdsa.Valid
}
