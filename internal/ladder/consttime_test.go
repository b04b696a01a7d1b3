package ladder

import (
	"math/big"
	"math/rand"
	randv2 "math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/race"
	"github.com/rnsec/ecmul/internal/rns"
	"github.com/rnsec/ecmul/internal/timing"
)

// The timing tests below measure with internal/timing, in the manner of
// dudect: runs in pairs, one of a special class of scalars and one of
// random ones in random order, each measured run preceded by a run on a
// third, random input (its time dropped) through the same loop, so that
// the branch predictor expects what a random scalar does and a branch
// that a special scalar takes the other way costs it a misprediction. Each
// run's input is first copied, untimed, into the one buffer every run
// reads, from pools laid out alike (scalarPools), so that the classes
// differ in their values and not in where their data lies. Pairs with a run among the slowest tenth are dropped, and the
// statistic is the paired t of the differences within pairs, which drift
// of the machine's speed leaves alone.
//
// Each test is one timing.Study: its control (random inputs against
// random inputs, with timing.Spin's known extra work added to the first
// by a branch), its classes, and a known leak (the code with a branch on
// the scalar, as code that is not constant time would have), all measured
// in every round, until the control's |t| reaches timing.Default.Goal().
// timing.Default decides: the control seen at |t| 20, each class below
// |t| 10 and a quarter of the control's, the leak at or above that limit;
// what fails is measured again, in a new process, and fails only when
// that repeats it (timing.Study.Decide).
//
// With -short a test measures the default configuration (the co-Z ladder
// on 30-bit channels) in a few seconds; without, every curve, schedule and
// channel width. Under the race detector, whose instrumentation is most of
// the time measured, they skip. scripts/timing-runs.sh runs them many
// times and summarises; bench/cpu holds its record on the 2-core machine.

// skipTiming skips a timing test under the race detector.
func skipTiming(t *testing.T) {
	if race.Enabled {
		t.Skip("timing measurements under the race detector")
	}
}

// decide runs s, logs its outcome (and appends its record to
// $ECMUL_TIMING_JSON, when set), and fails the test on what
// timing.Default finds wrong in it and its confirmation (Study.Decide), measured
// in a new run of the test binary (timing.Subprocess), where decide serves it. Before each round, relay moves every pool
// of inputs to fresh memory (then a collection frees the old): where the
// pools lie, and so which cache sets their copies evict, changes from
// round to round and cannot favour a class in every round. With pools laid
// out once for the whole run, a class of the scalar path differed from
// random scalars by a third of a nanosecond (|t| about 4 in each round,
// 16 in all) in runs where it did not in others.
func decide(t *testing.T, name string, s *timing.Study, seed uint64, relay func()) {
	t.Helper()
	s.Goal = timing.Default.Goal()
	s.Between = func() {
		relay()
		runtime.GC()
	}
	if served, err := s.Serve(randv2.New(randv2.NewPCG(seed, 1))); served {
		require.NoError(t, err)
		return
	}
	s.Fresh = timing.Subprocess(t.Name(), testing.Short())
	d := s.Decide(randv2.New(randv2.NewPCG(seed, 0x9e3779b97f4a7c15)), timing.Default)
	t.Logf("%s:\n%s", name, d.Summary())
	require.NoError(t, timing.AppendDecision(name, d, timing.Default))
	for _, bad := range d.Failures {
		t.Error(bad)
	}
}

// scalarPools returns one pool of size scalars of n <= 32 bytes per
// generator, laid out by relayScalars.
func scalarPools(rng *rand.Rand, size, n int, gens ...func(*rand.Rand) *big.Int) [][][]byte {
	pools := make([][][]byte, len(gens))
	for g, gen := range gens {
		for range size {
			pools[g] = append(pools[g], gen(rng).FillBytes(make([]byte, n)))
		}
	}
	relayScalars(pools)
	return pools
}

// relayScalars moves each pool's entries, in place in the pool, to a fresh
// stretch of memory of its own, 32 bytes apart from a cache line's start:
// every pool falls on the caches' sets the same way, so that copying from
// one evicts the measured code's data as often as copying from another,
// and no entry straddles two lines (the copy, untimed, overlaps the start
// of the timed run). Pools whose entries were dealt to lines of one slab
// at random measured |t| up to 10 on the real code at 20,000 pairs, from
// differences under a nanosecond.
func relayScalars(pools [][][]byte) {
	const line, stride = 64, 32
	for _, p := range pools {
		raw := make([]byte, len(p)*stride+line)
		off := 0
		for uintptr(unsafe.Pointer(&raw[off]))%line != 0 {
			off++
		}
		for i, e := range p {
			at := off + i*stride
			p[i] = raw[at : at+len(e) : at+len(e)]
			copy(p[i], e)
		}
	}
}

// scalarClasses are the special kinds of scalar for the bytes path, each
// timed against random scalars below n: the results fixed without the
// ladder (k ≡ 0 and k ≡ −1), the co-Z ladder's 2n (k >= n − 4), the
// reduction (k >= n), and short scalars.
func scalarClasses(c *curves.Curve) []struct {
	name string
	gen  func(*rand.Rand) *big.Int
} {
	n := c.N()
	top := new(big.Int).Lsh(big.NewInt(1), uint(8*c.ByteLen()))
	return []struct {
		name string
		gen  func(*rand.Rand) *big.Int
	}{
		{"k >= n", func(rng *rand.Rand) *big.Int { // reduced by the subtraction
			return new(big.Int).Add(n, new(big.Int).Rand(rng, new(big.Int).Sub(top, n)))
		}},
		{"k = 0", func(*rand.Rand) *big.Int { return big.NewInt(0) }},
		{"k = n", func(*rand.Rand) *big.Int { return new(big.Int).Set(n) }}, // ≡ 0 after the reduction
		{"k = n - 1", func(*rand.Rand) *big.Int { return new(big.Int).Sub(n, big.NewInt(1)) }},
		{"k >= n - 4", func(rng *rand.Rand) *big.Int { // the co-Z ladder's 2n
			return new(big.Int).Sub(n, big.NewInt(1+rng.Int63n(4)))
		}},
		{"k < 2^64", func(rng *rand.Rand) *big.Int { return new(big.Int).SetUint64(rng.Uint64()) }},
	}
}

// scalarBench is the bytes path's whole handling of one secret scalar on
// the host, prepareScalar (the reduction mod n, the ladder's multiple, the
// marks of the fixed results) and packScalar (its words into the kernel's
// rows), over inputs drawn from pools of scalars. PrepareBytes and
// PackItem do nothing else with the scalar; the point's decoding, public
// and the same for every scalar, is left out of the timed runs, whose
// noise it would only add to.
type scalarBench struct {
	su    *Setup
	k     []byte // the one buffer every run reads
	it    Item
	sc    []uint32
	pools [][][]byte // the classes' (scalarClasses), then random, then training
}

const scalarPool = 512

func newScalarBench(su *Setup, rng *rand.Rand) *scalarBench {
	c := su.Curve
	b := &scalarBench{su: su, k: make([]byte, c.ByteLen()), sc: make([]uint32, su.ScalarWords())}
	random := func(rng *rand.Rand) *big.Int { return new(big.Int).Rand(rng, c.N()) }
	var gens []func(*rand.Rand) *big.Int
	for _, cl := range scalarClasses(c) {
		gens = append(gens, cl.gen)
	}
	b.pools = scalarPools(rng, scalarPool, c.ByteLen(), append(gens, random, random)...)
	return b
}

// target times run on the pool of class i (the Special class) against
// the random pool, training on the training pool.
func (b *scalarBench) target(i int, run func()) timing.Target {
	n := len(b.pools)
	sets := [...][][]byte{b.pools[i], b.pools[n-2], timing.Train: b.pools[n-1]}
	return timing.Clock(func(class, j int) { copy(b.k, sets[class][j%scalarPool]) }, run)
}

// control times run on random scalars against random scalars, the first
// with spin steps of timing.Spin added.
func (b *scalarBench) control(spin int) timing.Target {
	n := len(b.pools)
	sets := [...][][]byte{b.pools[n-2], b.pools[n-2], timing.Train: b.pools[n-1]}
	return timing.Spun(func(class, j int) { copy(b.k, sets[class][j%scalarPool]) }, b.run, spin)
}

// run is the measured code.
func (b *scalarBench) run() {
	b.su.prepareScalar(&b.it, b.k, false)
	b.su.packScalar(b.sc, 1, 0, &b.it.Scalar)
}

// runBranch is run with the co-Z ladder's choice between 3n and 2n made by
// a branch on the scalar, as in a copy of ladderLimbs with
// "if below == 1 { 3n } else { 2n }": the known leak. Both arms do the
// same work.
func (b *scalarBench) runBranch() {
	su := b.su
	su.prepareScalar(&b.it, b.k, false)
	k := su.bytes.reduce(b.k)
	if _, below := subLimbs(k, su.bytes.high); below == 1 {
		b.it.Scalar = addLimbs(k, su.bytes.n3)
	} else {
		b.it.Scalar = addLimbs(k, su.bytes.n2)
	}
	su.packScalar(b.sc, 1, 0, &b.it.Scalar)
}

// scalarSpin is the control's extra work on the scalar path: about as
// long as a mispredicted branch, a tenth of a run.
const scalarSpin = 8

// timingConfigs are the configurations a timing test measures: the
// default one (the co-Z ladder on 30-bit channels) on every curve with
// -short, every schedule and width otherwise.
func timingConfigs() []struct {
	c    *curves.Curve
	kind Kind
	bits int
} {
	var cs []struct {
		c    *curves.Curve
		kind Kind
		bits int
	}
	for _, c := range curves.All() {
		for _, kind := range Kinds() {
			for _, bits := range rns.Widths {
				if testing.Short() && (kind != DefaultKind || bits != rns.WideChannelBits) {
					continue
				}
				cs = append(cs, struct {
					c    *curves.Curve
					kind Kind
					bits int
				}{c, kind, bits})
			}
		}
	}
	return cs
}

// TestScalarPathConstantTime times the bytes path's handling of a secret
// scalar on the host (PrepareBytes on a fixed public point, then PackItem:
// the reduction mod n, the choice of the ladder multiple, the marks of the
// fixed results, the packing of the scalar's words) on special scalars,
// k ≡ 0 and k ≡ −1 among them, against random ones: no class differs. The
// control adds scalarSpin multiplications; the known leak, the choice of
// the co-Z ladder's multiple by a branch, must be caught.
func TestScalarPathConstantTime(t *testing.T) {
	skipTiming(t)
	rng := rand.New(rand.NewSource(41))
	s := &timing.Study{Pairs: 3000, Train: 1, MinRounds: 7, MaxRounds: rounds(9, 13)}
	var benches []*scalarBench
	for _, cfg := range timingConfigs() {
		b := newScalarBench(newSetupBitsT(t, cfg.c, cfg.kind, cfg.bits), rng)
		benches = append(benches, b)
		prefix := cfg.c.Name() + ", " + cfg.kind.String() + ", " + channelName(cfg.bits) + ", "
		for i, cl := range scalarClasses(cfg.c) {
			s.Classes = append(s.Classes, timing.Class{Name: prefix + cl.name + " against random scalars", Target: b.target(i, b.run)})
			if cfg.c == curves.P256() && cfg.kind == CoZ && cfg.bits == rns.WideChannelBits && cl.name == "k >= n - 4" {
				s.Control = timing.Class{Name: prefix + "random scalars, one with the spin", Target: b.control(scalarSpin)}
				s.Leaks = append(s.Leaks, timing.Class{Name: prefix + "a branch on k >= n - 4", Target: b.target(i, b.runBranch)})
			}
		}
	}
	decide(t, "scalar path", s, 41, func() {
		for _, b := range benches {
			relayScalars(b.pools)
		}
	})
}

// rounds returns the most rounds of a Study: short with -short, else
// long.
func rounds(short, long int) int {
	if testing.Short() {
		return short
	}
	return long
}

func channelName(bits int) string {
	if bits == rns.WideChannelBits {
		return "30-bit channels"
	}
	return "16-bit channels"
}

// finishBench is the bytes path's finish of a batch (CRT, the shared
// inversion, y-recovery, the on-curve check, the bytes of the results)
// over batches of kernel outputs.
type finishBench struct {
	su    *Setup
	items []Item   // the one batch every run reads
	out   []uint32 // its outputs, the same
	res   []byte
	emit  func(k int, o Outcome, xy []byte)
}

// finishBatch is the items of a batch; finishPool the batches of a pool;
// finishAt the special item's place in its batch.
const finishBatch, finishPool, finishAt = 16, 16, 5

// batch is a batch's items and kernel outputs.
type batch struct {
	items []Item
	out   []uint32
}

func newFinishBench(su *Setup) *finishBench {
	L := su.Curve.ByteLen()
	b := &finishBench{su: su, items: make([]Item, finishBatch), out: make([]uint32, su.OutputRows()*finishBatch),
		res: make([]byte, finishBatch*2*L)}
	b.emit = func(k int, _ Outcome, xy []byte) { copy(b.res[k*2*L:], xy) }
	return b
}

// setItem puts into item k of bt what PrepareBytes makes for the scalar
// kk on the point p, and the outputs the ladder gives, in a random RNS
// representation.
func (b *finishBench) setItem(t *testing.T, rng *rand.Rand, o *Oracle, bt batch, k int, p *curves.Point, kk *big.Int) {
	su, c := b.su, b.su.Curve
	n := su.Params.N
	require.NoError(t, su.PrepareBytes(&bt.items[k], kk.FillBytes(make([]byte, c.ByteLen())), c.EncodeSEC1(p, false)))
	j, err := su.Prepare(p.X, p.Y, kk)
	require.NoError(t, err)
	require.Equal(t, j.Fixed, bt.items[k].Fixed)
	ch := channelsOf(t, su, liftAll(rng, su, montOutputs(su, o.Run(j.X, j.Scalar, su.Bits, nil)))...)
	for v := range ch {
		for r := range n {
			bt.out[(v*n+r)*finishBatch+k] = ch[v][r]
		}
	}
}

// pools makes the batches the finish is timed on: a random pool, a
// training pool, and for each scalar of specials a pool that is the
// random one with item finishAt's scalar replaced by it (on the same
// point), every batch allocated in turn with its copies.
func (b *finishBench) pools(t *testing.T, rng *rand.Rand, specials ...*big.Int) (random, train []batch, special [][]batch) {
	su, c := b.su, b.su.Curve
	o := su.NewOracle()
	newBatch := func() batch {
		return batch{items: make([]Item, finishBatch), out: make([]uint32, su.OutputRows()*finishBatch)}
	}
	special = make([][]batch, len(specials))
	for range finishPool {
		r, tr := newBatch(), newBatch()
		var at *curves.Point
		for k := range finishBatch {
			p := randomPoint(rng, c)
			if k == finishAt {
				at = p
			}
			b.setItem(t, rng, o, r, k, p, new(big.Int).Rand(rng, big.NewInt(1).Lsh(big.NewInt(1), 200)))
			b.setItem(t, rng, o, tr, k, randomPoint(rng, c), new(big.Int).Rand(rng, big.NewInt(1).Lsh(big.NewInt(1), 200)))
		}
		random, train = append(random, r), append(train, tr)
		for i, kk := range specials {
			s := newBatch()
			copy(s.items, r.items)
			copy(s.out, r.out)
			b.setItem(t, rng, o, s, finishAt, at, kk)
			special[i] = append(special[i], s)
		}
	}
	return random, train, special
}

// target times finish on batches of special (the Special class) against
// batches of random, training on train.
func (b *finishBench) target(special, random, train []batch, finish func()) timing.Target {
	return timing.Clock(b.set(special, random, train), finish)
}

func (b *finishBench) set(special, random, train []batch) func(class, i int) {
	sets := [...][]batch{special, random, timing.Train: train}
	return func(class, i int) {
		s := sets[class][i%finishPool]
		copy(b.items, s.items)
		copy(b.out, s.out)
	}
}

func (b *finishBench) run() { b.su.FinishItems(b.items, b.out, finishBatch, nil, b.emit) }

// relayBatches moves every batch of the pools, in place in its pool, to
// fresh memory.
func relayBatches(pools ...[]batch) {
	for _, p := range pools {
		for i, bt := range p {
			p[i] = batch{items: slices.Clone(bt.items), out: slices.Clone(bt.out)}
		}
	}
}

// finishSpin is the control's extra work on the finish: about three
// hundredths of a run, the time of some fifteen field multiplications.
const finishSpin = 200

// TestFinishConstantTime times the bytes path's finish on batches of 16
// with one item whose scalar is ≡ 0, or ≡ −1, (its result fixed: the
// point at infinity, −P) against the same batches with a random scalar
// in that item: no class differs. The control adds finishSpin
// multiplications to random batches.
func TestFinishConstantTime(t *testing.T) {
	skipTiming(t)
	rng := rand.New(rand.NewSource(47))
	s := &timing.Study{Pairs: 1000, Train: 1, MinRounds: 5, MaxRounds: rounds(8, 15)}
	var pools [][]batch
	for _, cfg := range timingConfigs() {
		c := cfg.c
		b := newFinishBench(newSetupBitsT(t, c, cfg.kind, cfg.bits))
		random, train, special := b.pools(t, rng, new(big.Int).Sub(c.N(), big.NewInt(1)), big.NewInt(0))
		pools = append(append(pools, random, train), special...)
		name := c.Name() + ", " + cfg.kind.String() + ", " + channelName(cfg.bits) + ", one item with "
		s.Classes = append(s.Classes,
			timing.Class{Name: name + "k ≡ −1 against a random k", Target: b.target(special[0], random, train, b.run)},
			timing.Class{Name: name + "k ≡ 0 against a random k", Target: b.target(special[1], random, train, b.run)})
		if c == curves.P256() && cfg.kind == CoZ && cfg.bits == rns.WideChannelBits {
			s.Control = timing.Class{Name: c.Name() + ", coz, 30-bit channels, random batches, one with the spin",
				Target: timing.Spun(b.set(random, random, train), b.run, finishSpin)}
		}
	}
	decide(t, "finish", s, 47, func() { relayBatches(pools...) })
}

// randomPoint is k·G for a random k.
func randomPoint(rng *rand.Rand, c *curves.Curve) *curves.Point {
	x, y, _, _ := c.ReferenceScalarMult(c.Gx(), c.Gy(), new(big.Int).Rand(rng, c.N()))
	return &curves.Point{X: x, Y: y}
}
