package ladder

import (
	"math"
	"math/big"
	"math/rand"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/rns"
)

// The timing tests below follow dudect (Reparaz, Balasch and Verbauwhede,
// "Dude, is my code constant time?", DATE 2017), with two changes that let
// them see a branch, not only extra work:
//
//   - Before each measured run, the code runs on a third, random input
//     (its time dropped), through the very same loop: the branch predictor
//     then expects what a random scalar does, and a branch that a special
//     scalar takes the other way costs it a misprediction in every measured
//     run. Without this, in random order, a branch whose two arms do the
//     same work mispredicts about as often for either class, and no mean
//     differs (|t| about 1.5 for such a branch in ladderLimbs).
//   - The measured runs come in pairs, one of each class in random order,
//     and the statistic is the paired t of the differences within pairs,
//     so that drift of the machine's speed (frequency, other processes)
//     cancels.
//
// Each run's input is first copied, untimed, into the one buffer every run
// reads, so that the classes differ in their values and not in where their
// data lies. Pairs with a run among the slowest tenth of all measured runs
// are dropped (preemptions, interrupts). One measurement per class decides:
// the code fails when |t| reaches timingThreshold; there is no second try.
//
// Each test runs its positive control first, the measured code with one
// secret-dependent branch in it, and fails unless the control's |t| reaches
// the threshold too: a measurement that cannot see a branch on the machine
// at hand says nothing.
//
// What was measured on the 2-core development machine, idle, with
// go test -run ConstantTime -count=20 ./ladder: every run passed; the
// real code's |t| stayed at most 3.7 over 1,440 measurements of the scalar
// path and 6.8 over 480 of the finish (no measurement reached 10, so no
// false alarm in 1,920); the branch control reached |t| 116 to 361 and the
// finish's 21 to 90, flagged in all 20 runs. Beside two busy processes
// (5 runs, all passed): the real code at most 3.5 and 8.0, the controls
// 166 to 241 and 24 to 35.

const (
	// scalarPairs and finishPairs are the numbers of pairs of timed runs
	// per measurement of the scalar path (about 100 ns a run) and of the
	// finish (a batch of 16: about 25 µs).
	scalarPairs, finishPairs = 20000, 5000
	// timingTrain is how many runs on a random input, their times dropped,
	// come before each measured run.
	timingTrain = 1
	// timingCrop keeps the fastest share of all runs.
	timingCrop = 0.9
	// timingThreshold is the |t| from which a measurement says the classes
	// take different times: dudect's bound for "definitely not constant
	// time".
	timingThreshold = 10
)

// pairedT returns the paired t of the differences d.
func pairedT(d []float64) float64 {
	var m, v float64
	for _, e := range d {
		m += e
	}
	m /= float64(len(d))
	for _, e := range d {
		v += (e - m) * (e - m)
	}
	v /= float64(len(d) - 1)
	return m / math.Sqrt(v/float64(len(d)))
}

// trainClass is the class of the training inputs of timeClasses' set.
const trainClass = 2

// timeClasses times run on pairs of inputs, one of class 0 and one of
// class 1 in random order, and returns the paired t of class 0's time minus
// class 1's. set(class, i) sets up the input, untimed, for pair i (or, for
// trainClass, training run i); before each measured run come train runs
// on inputs of trainClass, their times dropped.
func timeClasses(rng *rand.Rand, pairs, train int, set func(class, i int), run func()) float64 {
	// The schedule of every run, training runs included, so that one loop,
	// the same for each run, sets its input and times it: the path that
	// leads to a run, and so the branch predictor's history, does not tell
	// a training run from a measured one.
	type slot struct{ class, i int }
	per := train + 1
	sched := make([]slot, 0, 2*pairs*per)
	for i := range pairs {
		first := rng.Intn(2)
		for j := range 2 {
			for r := range train {
				sched = append(sched, slot{trainClass, (2*i+j)*train + r})
			}
			sched = append(sched, slot{first ^ j, i})
		}
	}
	ns := make([]float64, len(sched))
	runtime.GC()
	for k, s := range sched {
		set(s.class, s.i)
		ns[k] = timed(run)
	}
	times := make([][2]float64, pairs)
	all := make([]float64, 0, 2*pairs)
	for k, s := range sched {
		if s.class != trainClass {
			times[s.i][s.class] = ns[k]
			all = append(all, ns[k])
		}
	}
	slices.Sort(all)
	limit := all[int(timingCrop*float64(len(all)))]
	d := make([]float64, 0, pairs)
	for _, p := range times {
		if p[0] <= limit && p[1] <= limit {
			d = append(d, p[0]-p[1])
		}
	}
	return pairedT(d)
}

// timed returns how many nanoseconds run takes.
//
//go:noinline
func timed(run func()) float64 {
	t0 := time.Now()
	run()
	return float64(time.Since(t0).Nanoseconds())
}

// requireSameTime fails when one measurement's |t| reaches the threshold.
func requireSameTime(t *testing.T, name string, tStat float64) {
	t.Helper()
	t.Logf("%s: t = %.2f", name, tStat)
	if math.Abs(tStat) >= timingThreshold {
		t.Errorf("%s: |t| = %.2f, at least %d: the classes take different times", name, math.Abs(tStat), timingThreshold)
	}
}

// requireControlSeen fails when the positive control's |t| stays below the
// threshold: the measurement cannot see a branch on this machine now.
func requireControlSeen(t *testing.T, name string, tStat float64) {
	t.Helper()
	t.Logf("positive control, %s: t = %.2f", name, tStat)
	if math.Abs(tStat) < timingThreshold {
		t.Fatalf("positive control, %s: |t| = %.2f, below %d: the measurement does not see a secret-dependent branch", name, math.Abs(tStat), timingThreshold)
	}
}

// scalarClasses are the special kinds of scalar for the bytes path, each
// timed against random scalars below n: the results fixed without the
// ladder (k ≡ 0 and k ≡ −1), the co-Z ladder's 2n (k >= n − 4), the
// reduction (k >= n), and short scalars.
func scalarClasses(c *curves.Curve) map[string]func(rng *rand.Rand) *big.Int {
	n := c.N()
	top := new(big.Int).Lsh(big.NewInt(1), uint(8*c.ByteLen()))
	return map[string]func(rng *rand.Rand) *big.Int{
		"k >= n": func(rng *rand.Rand) *big.Int { // reduced by the subtraction
			return new(big.Int).Add(n, new(big.Int).Rand(rng, new(big.Int).Sub(top, n)))
		},
		"k = 0":     func(*rand.Rand) *big.Int { return big.NewInt(0) },
		"k = n":     func(*rand.Rand) *big.Int { return new(big.Int).Set(n) }, // ≡ 0 after the reduction
		"k = n - 1": func(*rand.Rand) *big.Int { return new(big.Int).Sub(n, big.NewInt(1)) },
		"k >= n - 4": func(rng *rand.Rand) *big.Int { // the co-Z ladder's 2n
			return new(big.Int).Sub(n, big.NewInt(1+rng.Int63n(4)))
		},
		"k < 2^64": func(rng *rand.Rand) *big.Int { return new(big.Int).SetUint64(rng.Uint64()) },
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
	su     *Setup
	k      []byte // the one buffer every run reads
	it     Item
	sc     []uint32
	random [][]byte // class 1
	train  [][]byte // trainClass: random too, another pool
}

const scalarPool = 512

func newScalarBench(su *Setup, rng *rand.Rand) *scalarBench {
	c := su.Curve
	b := &scalarBench{su: su, k: make([]byte, c.ByteLen()), sc: make([]uint32, su.ScalarWords())}
	random := func(rng *rand.Rand) *big.Int { return new(big.Int).Rand(rng, c.N()) }
	b.random, b.train = b.pool(rng, random), b.pool(rng, random)
	return b
}

func (b *scalarBench) pool(rng *rand.Rand, f func(*rand.Rand) *big.Int) [][]byte {
	p := make([][]byte, scalarPool)
	for i := range p {
		p[i] = f(rng).FillBytes(make([]byte, b.su.Curve.ByteLen()))
	}
	return p
}

// measure times run on special scalars (class 0) against random ones.
func (b *scalarBench) measure(rng *rand.Rand, special [][]byte, run func()) float64 {
	pools := [...][][]byte{special, b.random, trainClass: b.train}
	return timeClasses(rng, scalarPairs, timingTrain, func(class, i int) { copy(b.k, pools[class][i%scalarPool]) }, run)
}

// run is the measured code.
func (b *scalarBench) run() {
	b.su.prepareScalar(&b.it, b.k, false)
	b.su.packScalar(b.sc, 1, 0, &b.it.Scalar)
}

// runBranch is run with the co-Z ladder's choice between 3n and 2n made by
// a branch on the scalar, as in a copy of ladderLimbs with
// "if below == 1 { 3n } else { 2n }": the positive control. Both arms do
// the same work.
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

// TestScalarPathConstantTime times the bytes path's handling of a secret
// scalar on the host (PrepareBytes on a fixed public point, then PackItem:
// the reduction mod n, the choice of the ladder multiple, the marks of the
// fixed results, the packing of the scalar's words) on special scalars,
// k ≡ 0 and k ≡ −1 among them, against random ones, on every curve,
// channel width and schedule: no class differs. Its positive control, the
// same code with a branch on the scalar, must differ.
func TestScalarPathConstantTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing measurements")
	}
	rng := rand.New(rand.NewSource(41))
	{
		c := curves.P256()
		b := newScalarBench(newSetupBitsT(t, c, CoZ, rns.WideChannelBits), rng)
		special := b.pool(rng, scalarClasses(c)["k >= n - 4"])
		requireControlSeen(t, "P-256, a branch on k >= n - 4", b.measure(rng, special, b.runBranch))
	}
	for _, c := range curves.All() {
		for _, kind := range Kinds() {
			for _, bits := range rns.Widths {
				b := newScalarBench(newSetupBitsT(t, c, kind, bits), rng)
				for name, f := range scalarClasses(c) {
					special := b.pool(rng, f)
					requireSameTime(t, c.Name()+", "+kind.String()+", "+channelName(bits)+", "+name+" against random scalars",
						b.measure(rng, special, b.run))
				}
			}
		}
	}
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

const finishBatch, finishBatches = 16, 8

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

// batches makes finishBatches batches of scalars from scalar(b, k), item k
// of batch b, with the items PrepareBytes makes for them on random points
// and the outputs the ladder gives, in a random RNS representation.
func (b *finishBench) batches(t *testing.T, rng *rand.Rand, scalar func(b, k int) *big.Int) []batch {
	su, c := b.su, b.su.Curve
	n := su.Params.N
	o := su.NewOracle()
	bs := make([]batch, finishBatches)
	for i := range bs {
		bs[i] = batch{items: make([]Item, finishBatch), out: make([]uint32, su.OutputRows()*finishBatch)}
		for k := range finishBatch {
			kk := scalar(i, k)
			p := randomPoint(rng, c)
			require.NoError(t, su.PrepareBytes(&bs[i].items[k], kk.FillBytes(make([]byte, c.ByteLen())), c.EncodeSEC1(p, false)))
			j, err := su.Prepare(p.X, p.Y, kk)
			require.NoError(t, err)
			require.Equal(t, j.Fixed, bs[i].items[k].Fixed)
			ch := channelsOf(t, su, liftAll(rng, su, montOutputs(su, o.Run(j.X, j.Scalar, su.Bits, nil)))...)
			for v := range ch {
				for r := range n {
					bs[i].out[(v*n+r)*finishBatch+k] = ch[v][r]
				}
			}
		}
	}
	return bs
}

// measure times finish on batches of class 0 against batches of class 1,
// training on a third set.
func (b *finishBench) measure(rng *rand.Rand, pairs int, special, random, train []batch, finish func()) float64 {
	sets := [...][]batch{special, random, trainClass: train}
	return timeClasses(rng, pairs, timingTrain, func(class, i int) {
		s := sets[class][i%finishBatches]
		copy(b.items, s.items)
		copy(b.out, s.out)
	}, finish)
}

func (b *finishBench) run() { b.su.FinishItems(b.items, b.out, finishBatch, nil, b.emit) }

// runBranchy is run through the paper ladder's finish as it was: Z_P = 0
// and Z_Q = 0 handled by branches, their items left out of the shared
// inversion and the y-recovery. The positive control of the finish.
func (b *finishBench) runBranchy() {
	su := b.su
	h := su.host
	scr := h.scratch(len(b.items) * su.OutputCount())
	defer h.scratchPool.Put(scr)
	su.gatherOutputs(h, scr.pr, b.out, finishBatch, nil)
	branchyAffinePaper(h, len(b.items), itemBases(b.items), scr.pr, &bytesOut{f: h.f, size: su.Curve.ByteLen(), emit: b.emit})
}

// branchyAffinePaper is affinePaper before k ≡ 0 and k ≡ −1 were masked.
func branchyAffinePaper(h *hostField, count int, in affineBases, pr []fp.Element, out affineSink) {
	f := h.f
	acc := f.One()
	var sc []affineScratch
	var idx []int
	for i := range count {
		zp, zq := &pr[4*i+1], &pr[4*i+3]
		xg, yg := in.base(i)
		switch {
		case zp.IsZero():
			out.result(i, xg, yg, ^uint64(0))
		case zq.IsZero():
			f.Neg(&yg, &yg)
			emit(h, out, i, &xg, &yg, 0)
		default:
			sc = append(sc, affineScratch{xg: xg, yg: yg})
			s := &sc[len(sc)-1]
			f.Mul(&s.w, zp, zq)
			f.Double(&s.d, &s.yg)
			f.Mul(&s.d, &s.d, &s.w)
			s.pre = acc
			f.Mul(&acc, &acc, &s.d)
			idx = append(idx, i)
		}
	}
	var inv fp.Element
	f.Inverse(&inv, &acc)
	for k := len(idx) - 1; k >= 0; k-- {
		i, s := idx[k], &sc[k]
		var invD fp.Element
		f.Mul(&invD, &inv, &s.pre)
		f.Mul(&inv, &inv, &s.d)
		xp, yp := h.paperPoint(pr[4*i:4*i+4], s, &invD)
		emit(h, out, i, &xp, &yp, 0)
	}
}

// TestFinishConstantTime times the bytes path's finish on batches of 16
// with one item whose scalar is ≡ 0, or ≡ −1, (its result fixed: the
// point at infinity, −P) against batches of random scalars, on every
// curve, channel width and schedule: no class differs. Its positive
// control, the paper finish as it was (a branch on Z_Q = 0), must differ.
func TestFinishConstantTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing measurements")
	}
	rng := rand.New(rand.NewSource(47))
	randomK := func(b, k int) *big.Int { return new(big.Int).Rand(rng, big.NewInt(1).Lsh(big.NewInt(1), 200)) }
	const at = 5 // the special item's place in its batch
	special := func(c *curves.Curve, v int64) func(b, k int) *big.Int {
		return func(b, k int) *big.Int {
			if k == at {
				return new(big.Int).Mod(big.NewInt(v), c.N())
			}
			return randomK(b, k)
		}
	}
	for i, c := range curves.All() {
		for _, kind := range Kinds() {
			for _, bits := range rns.Widths {
				su := newSetupBitsT(t, c, kind, bits)
				b := newFinishBench(su)
				random, train := b.batches(t, rng, randomK), b.batches(t, rng, randomK)
				negOne := b.batches(t, rng, special(c, -1))
				if i == 0 && kind == Paper && bits == rns.WideChannelBits {
					requireControlSeen(t, c.Name()+", the paper finish's branch on k ≡ −1", b.measure(rng, 4*finishPairs, negOne, random, train, b.runBranchy))
				}
				name := c.Name() + ", " + kind.String() + ", " + channelName(bits) + ", one item with "
				requireSameTime(t, name+"k ≡ −1 against random scalars", b.measure(rng, finishPairs, negOne, random, train, b.run))
				zero := b.batches(t, rng, special(c, 0))
				requireSameTime(t, name+"k ≡ 0 against random scalars", b.measure(rng, finishPairs, zero, random, train, b.run))
			}
		}
	}
}

// randomPoint is k·G for a random k.
func randomPoint(rng *rand.Rand, c *curves.Curve) *curves.Point {
	x, y, _, _ := c.ReferenceScalarMult(c.Gx(), c.Gy(), new(big.Int).Rand(rng, c.N()))
	return &curves.Point{X: x, Y: y}
}
