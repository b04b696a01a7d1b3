package ecdsa

import (
	"bytes"
	"context"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/textbook"
)

// randBytes returns n bytes of rng.
func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestHashToLimbs: the digest's integer is math/big's for every length.
func TestHashToLimbs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range curves.All() {
		ar := ariths()[c.Name()]
		for l := range 70 {
			d := randBytes(rng, l)
			e := ar.hashToLimbs(d)
			want := bigHash(new(big.Int), d, c.N())
			require.Equal(t, want.FillBytes(make([]byte, 32)), limbBytes(e), "%s, %d bytes", c.Name(), l)
		}
	}
}

func limbBytes(e fp.Element) []byte {
	b := make([]byte, 32)
	fp.PutLimbs(b, [fp.Limbs]uint64(e))
	return b
}

// TestInvertAll: every element, a plain value, comes out as the Montgomery
// form of its inverse, for lengths across one and up to a chunk.
func TestInvertAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ar := ariths()["P-256"]
	for _, f := range []*fp.Field{ar.n, ar.p} {
		for _, l := range []int{1, 2, 3, 17, chunk} {
			x, acc := make([]fp.Element, l), make([]fp.Element, l)
			for i := range x {
				f.SetBytes(&x[i], randBytes(rng, 31))
				if x[i].IsZero() {
					x[i] = f.One()
				}
			}
			inv := append([]fp.Element(nil), x...)
			invertAll(f, inv, acc)
			for i := range x {
				var one fp.Element
				f.Mul(&one, &x[i], &inv[i]) // x·(x⁻¹·R)/R
				require.Equal(t, fp.Element{1}, one, "length %d, item %d", l, i)
			}
		}
	}
}

// TestPrepare: u1 and u2 are math/big's, and r or s out of range is
// Invalid with zero scalars, over a batch of several chunks and workers,
// with digests of every length around bitlen(n).
func TestPrepare(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			L, n := c.ByteLen(), c.N()
			top := new(big.Int).Lsh(big.NewInt(1), uint(8*L))
			special := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(n, big.NewInt(1)), n,
				new(big.Int).Add(n, big.NewInt(1)), new(big.Int).Sub(top, big.NewInt(1))}
			const count = 3*chunk + 77
			digests := make([][]byte, count)
			sigs := make([]byte, count*2*L)
			for i := range count {
				digests[i] = randBytes(rng, rng.IntN(70))
				for j := range 2 {
					v := new(big.Int).SetBytes(randBytes(rng, L+8))
					v.Mod(v, n)
					if rng.IntN(8) == 0 {
						v = special[rng.IntN(len(special))]
					}
					v.FillBytes(sigs[i*2*L+j*L : i*2*L+(j+1)*L])
				}
			}
			verdicts := make([]Verdict, count)
			for i := range verdicts {
				verdicts[i] = Valid // prepare writes every item's
			}
			b, err := newBatch(c, verdicts, digests, sigs, make([]byte, count*(1+L)))
			require.NoError(t, err)
			scalars := bytes.Repeat([]byte{0xee}, 2*count*L) // every byte written
			require.NoError(t, b.prepare(context.Background(), b.all(), scalars))
			var u1, u2 big.Int
			for i := range count {
				r := new(big.Int).SetBytes(sigs[i*2*L : i*2*L+L])
				s := new(big.Int).SetBytes(sigs[i*2*L+L : (i+1)*2*L])
				want := NotVerified
				u1.SetInt64(0)
				u2.SetInt64(0)
				if r.Sign() == 0 || r.Cmp(n) >= 0 || s.Sign() == 0 || s.Cmp(n) >= 0 {
					want = Invalid
				} else {
					w := new(big.Int).ModInverse(s, n)
					u1.Mul(bigHash(new(big.Int), digests[i], n), w).Mod(&u1, n)
					u2.Mul(r, w).Mod(&u2, n)
				}
				require.Equal(t, want, verdicts[i], "item %d", i)
				require.Equal(t, u1.FillBytes(make([]byte, L)), scalars[i*L:(i+1)*L], "u1 of item %d", i)
				require.Equal(t, u2.FillBytes(make([]byte, L)), scalars[(count+i)*L:(count+i+1)*L], "u2 of item %d", i)
			}
		})
	}
}

// TestFinish feeds finish made-up engine results over several chunks and
// workers: random sums, either point or both at infinity, p2 = p1 (a
// doubling), p2 = −p1, faults, bad keys and items already Invalid, with r
// the sum's x mod n or not; every verdict is math/big's.
func TestFinish(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			L, n := c.ByteLen(), c.N()
			size := 1 + 2*L
			// a pool of points k·G, and their negatives
			pool := make([]*curves.Point, 24)
			for i := range pool {
				pool[i] = textbook.Mul(c, c.Generator(), new(big.Int).SetBytes(randBytes(rng, L)))
			}
			neg := func(p *curves.Point) *curves.Point {
				return &curves.Point{X: p.X, Y: new(big.Int).Sub(c.P(), p.Y)}
			}
			const count = 2*chunk + 200
			out := make([]byte, 2*count*size)
			status := make([]ecmul.Status, 2*count)
			sigs := make([]byte, count*2*L)
			verdicts := make([]Verdict, count)
			want := make([]Verdict, count)
			put := func(j int, p *curves.Point) {
				if p == nil {
					status[j] = ecmul.StatusInfinity
					return
				}
				status[j] = ecmul.StatusPoint
				copy(out[j*size:], c.EncodeSEC1(p, false))
			}
			for i := range count {
				p1, p2 := pool[rng.IntN(len(pool))], pool[rng.IntN(len(pool))]
				switch rng.IntN(10) {
				case 0:
					p1 = nil
				case 1:
					p2 = nil
				case 2:
					p1, p2 = nil, nil
				case 3:
					p2 = p1
				case 4:
					p2 = neg(p1)
				}
				put(i, p1)
				put(count+i, p2)
				sum := textbook.Add(c, p1, p2)
				r := new(big.Int).SetBytes(randBytes(rng, L))
				r.Mod(r, n)
				if sum != nil && rng.IntN(2) == 0 {
					r.Mod(sum.X, n)
				}
				if r.Sign() == 0 {
					r.SetInt64(1)
				}
				r.FillBytes(sigs[i*2*L : i*2*L+L])
				want[i] = Invalid
				if sum != nil && new(big.Int).Mod(sum.X, n).Cmp(r) == 0 {
					want[i] = Valid
				}
				switch rng.IntN(20) {
				case 0:
					verdicts[i], want[i] = Invalid, Invalid // r or s out of range
				case 1:
					status[i], want[i] = ecmul.StatusResultCheck, Fault
				case 2:
					status[count+i], want[i] = ecmul.StatusResultCheck, Fault
				case 3:
					status[count+i], want[i] = ecmul.StatusNotOnCurve, KeyNotOnCurve
				case 4:
					status[count+i], want[i] = ecmul.StatusInfinityInput, KeyInfinity
				case 5:
					status[count+i], want[i] = ecmul.StatusBadEncoding, KeyBadEncoding
				case 6:
					status[count+i], want[i] = ecmul.StatusBadCoordinate, KeyBadCoordinate
				}
			}
			b, err := newBatch(c, verdicts, make([][]byte, count), sigs, make([]byte, count*(1+L)))
			require.NoError(t, err)
			require.NoError(t, b.finish(context.Background(), out, status, b.all()))
			require.Equal(t, want, verdicts)
		})
	}
}

// TestVerdictModN: x(R) in [n, p) verifies r = x − n, and not r = x.
func TestVerdictModN(t *testing.T) {
	for _, c := range curves.All() {
		ar := ariths()[c.Name()]
		n, p := c.N(), c.P()
		for _, x := range []*big.Int{n, new(big.Int).Add(n, big.NewInt(5)), new(big.Int).Sub(p, big.NewInt(1)), big.NewInt(5), new(big.Int).Sub(n, big.NewInt(1))} {
			var xl fp.Element = fp.LimbsFromBytes(x.FillBytes(make([]byte, 32)))
			r := new(big.Int).Mod(x, n)
			rl := fp.LimbsFromBytes(r.FillBytes(make([]byte, 32)))
			require.Equal(t, Valid, ar.verdict(xl, rl), "%s: x = %v", c.Name(), x)
			rl[0] ^= 1
			require.Equal(t, Invalid, ar.verdict(xl, rl), "%s: x = %v", c.Name(), x)
		}
	}
}

// TestCoordinate: a coordinate not below p is reduced.
func TestCoordinate(t *testing.T) {
	for _, c := range curves.All() {
		ar := ariths()[c.Name()]
		L, p := c.ByteLen(), c.P()
		for _, v := range []*big.Int{big.NewInt(0), big.NewInt(7), new(big.Int).Sub(p, big.NewInt(1)), p,
			new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(8*L)), big.NewInt(1))} {
			got := ar.coordinate(v.FillBytes(make([]byte, L)))
			require.Equal(t, new(big.Int).Mod(v, p).FillBytes(make([]byte, 32)), limbBytes(got), "%s: %v", c.Name(), v)
		}
	}
}

// TestSubBatch: the pipeline's steps are the 2^18 items a GPU at most,
// three on the engine while the host finishes a fourth, and the first and
// last of 2^15 items, 2^14 a GPU on more than two GPUs (from a batch of
// four times that), that Verify's doc and docs/library.md state.
func TestSubBatch(t *testing.T) {
	require.Equal(t, 1<<18, subBatch)
	require.Equal(t, 3, stepsInFlight)
	require.Equal(t, 1<<15, rampStep)
	for gpus, first := range map[int]int{1: 1 << 15, 2: 1 << 15, 3: 3 << 14, 4: 1 << 16} {
		steps := stepSpans(4*first, gpus)
		require.Equal(t, span{0, first}, steps[0], "%d GPUs", gpus)
		require.Equal(t, span{3 * first, 4 * first}, steps[len(steps)-1], "%d GPUs", gpus)
		require.Len(t, stepSpans(4*first-1, gpus), 1, "%d GPUs", gpus)
		for _, st := range stepSpans(gpus<<22, gpus) {
			require.LessOrEqual(t, st.hi-st.lo, gpus*subBatch)
		}
	}
}

// TestRampedSteps: Verify with steps that grow and shrink (2, 4, then the
// middle of at most 8, then 4, 2) verifies every item, its buffers sized
// by the largest step, not the first.
func TestRampedSteps(t *testing.T) {
	c, err := curves.ByName("P-256")
	require.NoError(t, err)
	f := newHostFixture(t, c, 41, 3)
	restore, oldRamp := SetSubBatch(8), rampStep
	rampStep = 2
	defer func() { restore(); rampStep = oldRamp }()
	steps := stepSpans(41, 1)
	require.Equal(t, span{0, 2}, steps[0])
	require.Equal(t, span{39, 41}, steps[len(steps)-1])
	pc, err := ecmul.ParseCurve(c.Name())
	require.NoError(t, err)
	e, err := ecmul.New(pc, ecmul.Options{Backend: ecmul.RNSCPU})
	require.NoError(t, err)
	defer e.Close()
	verdicts := make([]Verdict, 41)
	require.NoError(t, Verify(context.Background(), e, verdicts, f.digests, f.sigs, f.keys))
	allValid(t, verdicts)
}

// TestStepBuffers: Verify's pipeline holds stepsInFlight + 1 step buffers:
// while the host finishes the first step, the next stepsInFlight are
// prepared (each into a buffer of its own) and computed, and none beyond
// them until a step is finished.
func TestStepBuffers(t *testing.T) {
	c, err := curves.ByName("P-256")
	require.NoError(t, err)
	f := newHostFixture(t, c, 48, 5)
	defer SetSubBatch(8)()
	pc, err := ecmul.ParseCurve(c.Name())
	require.NoError(t, err)
	e, err := ecmul.New(pc, ecmul.Options{Backend: ecmul.RNSCPU})
	require.NoError(t, err)
	defer e.Close()
	b, err := newBatch(c, make([]Verdict, 48), f.digests, f.sigs, f.keys)
	require.NoError(t, err)
	var mu sync.Mutex
	held := map[*byte]int{} // each buffer's step, while prepared and not finished
	fourth := make(chan struct{})
	host := hostWork{
		prepare: func(ctx context.Context, st span, scalars []byte) error {
			mu.Lock()
			defer mu.Unlock()
			if s, ok := held[&scalars[0]]; ok {
				t.Errorf("step %d prepared in the buffer of step %d, not finished", st.lo/8, s)
			}
			held[&scalars[0]] = st.lo / 8
			if len(held) > stepsInFlight+1 {
				t.Errorf("%d steps prepared and not finished", len(held))
			}
			if len(held) == stepsInFlight+1 && st.lo/8 == stepsInFlight {
				close(fourth)
			}
			return b.prepare(ctx, st, scalars)
		},
		finish: func(ctx context.Context, buf *stepBuffer, st span) error {
			if st.lo == 0 {
				select {
				case <-fourth:
				case <-time.After(10 * time.Second):
					t.Error("no fourth step prepared while the first was being finished")
				}
			}
			mu.Lock()
			delete(held, &buf.scalars[0])
			mu.Unlock()
			return b.finishStep(ctx, buf, st)
		},
	}
	require.NoError(t, b.run(context.Background(), e, host))
	allValid(t, b.verdicts)
}
