package ecdsasign

import (
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/race"
	"github.com/rnsec/ecmul/internal/timing"
)

// signBench times one signature's arithmetic as Sign runs it: k⁻¹ by
// invertAll over a chunk of nonces (k and three random others), then
// s = k⁻¹(e + r·d) mod n with low s; inputs are copied from pools: k and d
// the secrets, r, e and the other nonces random.
type signBench struct {
	o             *order
	k, d, r, e    [fp.Limbs]uint64
	others        [3][fp.Limbs]uint64
	ks, pre       [4]fp.Element
	special, rand [][2][fp.Limbs]uint64 // (k, d) per input
	train         [][2][fp.Limbs]uint64
	sink          [fp.Limbs]uint64
	inv           *big.Int // leakyRun's k⁻¹
}

func (sb *signBench) set(class, i int) {
	src := [...][][2][fp.Limbs]uint64{sb.special, sb.rand, timing.Train: sb.train}[class]
	kd := src[i%len(src)]
	sb.k, sb.d = kd[0], kd[1]
}

func (sb *signBench) run() {
	f := sb.o.f
	f.SetLimbs(&sb.ks[0], sb.k)
	for i, k := range sb.others {
		f.SetLimbs(&sb.ks[i+1], k)
	}
	sb.o.invertAll(sb.ks[:], sb.pre[:])
	sb.sink = sb.o.signature(&sb.ks[0], sb.d, sb.r, sb.e, true)
}

// leakyRun is run after a k⁻¹ from math/big's ModInverse, whose time
// depends on k: a known leak.
func (sb *signBench) leakyRun() {
	sb.inv = new(big.Int).ModInverse(toBig(sb.k), toBig(sb.o.n))
	sb.run()
}

// signSpin is the control's added work: about a quarter of the
// arithmetic's time (some 1.6 µs on the development machine).
const signSpin = 400

// TestSignatureConstantTime times k⁻¹ in a chunk of nonces and
// s = k⁻¹(e + r·d) mod n on P-256 with
// internal/timing's study: pairs of a special class of secrets (k or d of
// 1, n − 1, three bits set, a value below 2^64) against random ones, a
// control of random secrets with timing.Spin's work added, and math/big's
// k⁻¹ on k = 1 as a known leak; timing.Default decides.
func TestSignatureConstantTime(t *testing.T) {
	if race.Enabled {
		t.Skip("timing measurements under the race detector")
	}
	s, err := New(curves.P256())
	require.NoError(t, err)
	o := s.o
	rng := rand.New(rand.NewPCG(41, 6979))
	n := toBig(o.n)
	random := func() [fp.Limbs]uint64 {
		return fromBig(new(big.Int).Add(randBelow(rng, new(big.Int).Sub(n, big.NewInt(1))), big.NewInt(1)))
	}
	pool := func(k, d func() [fp.Limbs]uint64) [][2][fp.Limbs]uint64 {
		p := make([][2][fp.Limbs]uint64, 64)
		for i := range p {
			p[i] = [2][fp.Limbs]uint64{k(), d()}
		}
		return p
	}
	fixed := func(x *big.Int) func() [fp.Limbs]uint64 { return func() [fp.Limbs]uint64 { return fromBig(x) } }
	one, nm1 := fixed(big.NewInt(1)), fixed(new(big.Int).Sub(n, big.NewInt(1)))
	threeBits := func() [fp.Limbs]uint64 {
		x := new(big.Int)
		for range 3 {
			x.SetBit(x, rng.IntN(255), 1)
		}
		return fromBig(x)
	}
	short := func() [fp.Limbs]uint64 { return [fp.Limbs]uint64{rng.Uint64() | 1} }
	bench := func(special [][2][fp.Limbs]uint64) *signBench {
		return &signBench{o: o, r: random(), e: random(), others: [3][fp.Limbs]uint64{random(), random(), random()},
			special: special, rand: pool(random, random), train: pool(random, random)}
	}
	study := &timing.Study{Pairs: 300, MinRounds: 5, MaxRounds: 9, Goal: timing.Default.Goal(), Keep: 0.5, Between: runtime.GC}
	for _, cl := range []struct {
		name string
		k, d func() [fp.Limbs]uint64
	}{
		{"k = 1", one, random}, {"k = n - 1", nm1, random}, {"k of three bits", threeBits, random},
		{"k < 2^64", short, random}, {"d = 1", random, one}, {"d = n - 1", random, nm1},
	} {
		sb := bench(pool(cl.k, cl.d))
		study.Classes = append(study.Classes, timing.Class{Name: cl.name + " against random secrets", Target: timing.Clock(sb.set, sb.run)})
	}
	ctl := bench(pool(random, random))
	study.Control = timing.Class{Name: "random secrets, one with the spin", Target: timing.Spun(ctl.set, ctl.run, signSpin)}
	leak := bench(pool(one, random))
	study.Leaks = []timing.Class{{Name: "math/big's k⁻¹, k = 1 against random secrets", Target: timing.Clock(leak.set, leak.leakyRun)}}
	out := study.Run(rand.New(rand.NewPCG(41, 41)))
	t.Logf("signature arithmetic:\n%s", out.Summary())
	require.NoError(t, timing.AppendRecord("ecdsasign signature", out, timing.Default))
	for _, bad := range timing.Default.Check(out) {
		t.Error(bad)
	}
}
