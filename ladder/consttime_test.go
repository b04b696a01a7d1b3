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

	"github.com/rnsec/ecmul/curves"
	"github.com/rnsec/ecmul/rns"
)

// The timing tests below follow dudect (Reparaz, Balasch and Verbauwhede,
// "Dude, is my code constant time?", DATE 2017): the code runs on inputs
// of two classes in random order, each measurement is timed, the slowest
// measurements of both classes together are cropped (preemptions, cache
// misses of the runtime), and Welch's t-test compares the two classes'
// means. Each measurement's input is first copied, untimed, into one
// buffer that every measurement reads, so that the classes differ in their
// values only, not in where their data lies (cache sets and aliasing of
// addresses otherwise give the classes different times run by run). A |t|
// above timingThreshold says the classes take measurably
// different times. Load from other processes fattens the tails and can
// push a single |t| of constant-time code above the threshold (up to 9 was
// seen beside a parallel go test), so a pair of classes fails only when
// timingTries measurements in a row all exceed it: a real leak does every
// time.

const (
	// timingSamples is the number of measurements per class.
	timingSamples = 20000
	// timingCrop keeps the fastest share of all measurements.
	timingCrop = 0.9
	// timingThreshold is the |t| above which a test fails: dudect's bound
	// for "definitely not constant time" is 10. The positive control below
	// shows a leak of a few hundred nanoseconds scoring far above it.
	timingThreshold = 10
	// timingTries is how many measurements in a row must exceed the
	// threshold for a test to fail.
	timingTries = 3
)

// requireSameTime runs measure (which returns Welch's t) until |t| is
// below timingThreshold, at most timingTries times, and fails if it never
// is.
func requireSameTime(t *testing.T, name string, measure func() float64) {
	t.Helper()
	var seen []float64
	for range timingTries {
		tStat := measure()
		seen = append(seen, tStat)
		if math.Abs(tStat) < timingThreshold {
			t.Logf("%s: t = %.2f", name, tStat)
			return
		}
	}
	t.Fatalf("%s: |t| above %d in %d measurements in a row: %.2f", name, timingThreshold, timingTries, seen)
}

// welch returns Welch's t statistic of two samples.
func welch(a, b []float64) float64 {
	mv := func(x []float64) (m, v float64) {
		for _, e := range x {
			m += e
		}
		m /= float64(len(x))
		for _, e := range x {
			v += (e - m) * (e - m)
		}
		return m, v / float64(len(x)-1)
	}
	ma, va := mv(a)
	mb, vb := mv(b)
	return (ma - mb) / math.Sqrt(va/float64(len(a))+vb/float64(len(b)))
}

// timeClasses times run timingSamples times for each class in random order,
// each time after load(class, i) has set up its input (untimed), and
// returns Welch's t of the cropped timings. i counts the calls of each
// class, so that load can walk through its inputs.
func timeClasses(rng *rand.Rand, load func(class, i int), run func()) float64 {
	order := make([]int, 2*timingSamples)
	for i := range order {
		order[i] = i % 2
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	ns := make([]float64, len(order))
	count := [2]int{}
	runtime.GC()
	for k, class := range order {
		load(class, count[class])
		t0 := time.Now()
		run()
		ns[k] = float64(time.Since(t0).Nanoseconds())
		count[class]++
	}
	cut := slices.Clone(ns)
	slices.Sort(cut)
	limit := cut[int(timingCrop*float64(len(cut)))]
	var a, b []float64
	for k, class := range order {
		if ns[k] > limit {
			continue
		}
		if class == 0 {
			a = append(a, ns[k])
		} else {
			b = append(b, ns[k])
		}
	}
	return welch(a, b)
}

// scalarClasses are pairs of scalar classes for the bytes path: a special
// kind of scalar (class 0) against random scalars below n (class 1).
func scalarClasses(c *curves.Curve) map[string]func(rng *rand.Rand) *big.Int {
	n := c.N()
	top := new(big.Int).Lsh(big.NewInt(1), uint(8*c.ByteLen()))
	return map[string]func(rng *rand.Rand) *big.Int{
		"k >= n": func(rng *rand.Rand) *big.Int { // reduced by the subtraction
			return new(big.Int).Add(n, new(big.Int).Rand(rng, new(big.Int).Sub(top, n)))
		},
		"k = 0":     func(*rand.Rand) *big.Int { return big.NewInt(0) },
		"k = n - 1": func(*rand.Rand) *big.Int { return new(big.Int).Sub(n, big.NewInt(1)) },
		"k >= n - 4": func(rng *rand.Rand) *big.Int { // the co-Z ladder's 2n
			return new(big.Int).Sub(n, big.NewInt(1+rng.Int63n(4)))
		},
		"k < 2^64": func(rng *rand.Rand) *big.Int { return new(big.Int).SetUint64(rng.Uint64()) },
	}
}

// TestScalarPathConstantTime times the bytes path's handling of a secret
// scalar on the host (PrepareBytes on a fixed public point, then PackItem:
// the reduction mod n, the choice of the ladder multiple, the marks of the
// fixed results, the packing of the scalar's words) on special scalars
// against random ones, on every curve: no class differs.
func TestScalarPathConstantTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing measurements")
	}
	const pool, reps = 512, 8
	for _, c := range curves.All() {
		for _, bits := range rns.Widths {
			su := newSetupBitsT(t, c, DefaultKind, bits)
			point := c.EncodeSEC1(c.Generator(), false)
			n := su.Params.N
			in, sc := make([]uint32, ElementRows(n)), make([]uint32, su.ScalarWords())
			rng := rand.New(rand.NewSource(41))
			random := make([][]byte, pool)
			for i := range random {
				random[i] = new(big.Int).Rand(rng, c.N()).FillBytes(make([]byte, c.ByteLen()))
			}
			for name, special := range scalarClasses(c) {
				class0 := make([][]byte, pool)
				for i := range class0 {
					class0[i] = special(rng).FillBytes(make([]byte, c.ByteLen()))
				}
				var it Item
				k := make([]byte, c.ByteLen())
				requireSameTime(t, c.Name()+", "+name+" against random scalars", func() float64 {
					return timeClasses(rng, func(class, i int) {
						src := random[i%pool]
						if class == 0 {
							src = class0[i%pool]
						}
						copy(k, src)
					}, func() {
						for range reps {
							_ = su.PrepareBytes(&it, k, point)
							su.PackItem(in, sc, 1, 0, &it)
						}
					})
				})
			}
		}
	}
}

// TestTimingPositiveControl runs the same measurement on the *big.Int
// path's LadderScalar, which reduces scalars of more than t+3 bits by a
// division and smaller ones by a few subtractions: the test must see it.
func TestTimingPositiveControl(t *testing.T) {
	if testing.Short() {
		t.Skip("timing measurements")
	}
	c := curves.P256()
	su := newSetupT(t, c)
	rng := rand.New(rand.NewSource(43))
	big512 := new(big.Int).Lsh(big.NewInt(1), 511)
	const pool = 512
	wide, small := make([]*big.Int, pool), make([]*big.Int, pool)
	for i := range pool {
		wide[i] = new(big.Int).Add(big512, new(big.Int).Rand(rng, big512))
		small[i] = new(big.Int).Rand(rng, c.N())
	}
	var k *big.Int
	tStat := timeClasses(rng, func(class, i int) {
		k = small[i%pool]
		if class == 0 {
			k = wide[i%pool]
		}
	}, func() {
		for range 8 {
			su.LadderScalar(k)
		}
	})
	t.Logf("LadderScalar, 512-bit against random scalars below n: t = %.2f", tStat)
	require.Greater(t, math.Abs(tStat), float64(timingThreshold), "the measurement must detect a variable-time reduction")
}

// TestFinishConstantTime times the bytes path's finish (CRT, shared
// inversion, y-recovery, the on-curve check and the bytes of the results)
// on batches whose results are all one fixed point against batches of
// random results: the secret results do not show in its time.
func TestFinishConstantTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing measurements")
	}
	for _, c := range curves.All() {
		for _, bits := range rns.Widths {
			su := newSetupBitsT(t, c, DefaultKind, bits)
			rng := rand.New(rand.NewSource(47))
			const batch, batches = 16, 32
			n := su.Params.N
			var base Item
			require.NoError(t, su.PrepareBytes(&base, []byte{1}, c.EncodeSEC1(c.Generator(), false)))
			items := make([]Item, batch)
			o := su.NewOracle()
			outputs := func(k *big.Int) Channels {
				j, err := su.Prepare(c.Gx(), c.Gy(), k)
				require.NoError(t, err)
				pr := montOutputs(su, o.Run(j.X, j.Scalar, su.Bits, nil))
				return channelsOf(t, su, liftAll(rng, su, pr)...)
			}
			fill := func(out []uint32, k int, ch Channels) {
				for v := range ch {
					for r := range n {
						out[(v*n+r)*batch+k] = ch[v][r]
					}
				}
			}
			fixedCh := outputs(big.NewInt(12345))
			var fixed, random [batches][]uint32
			for b := range batches {
				fixed[b], random[b] = make([]uint32, su.OutputRows()*batch), make([]uint32, su.OutputRows()*batch)
				for k := range batch {
					fill(fixed[b], k, fixedCh)
					fill(random[b], k, outputs(new(big.Int).Rand(rng, c.N())))
				}
			}
			for k := range items {
				items[k] = base
				items[k].Fixed = FixedNone
			}
			emit := func(int, Outcome, []byte) {}
			out := make([]uint32, su.OutputRows()*batch)
			requireSameTime(t, c.Name()+", a fixed result against random results", func() float64 {
				return timeClasses(rng, func(class, i int) {
					src := random[i%batches]
					if class == 0 {
						src = fixed[i%batches]
					}
					copy(out, src)
				}, func() {
					su.FinishItems(items, out, batch, nil, emit)
				})
			})
		}
	}
}
