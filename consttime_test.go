package ecmul_test

import (
	"bytes"
	"context"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/race"
	"github.com/rnsec/ecmul/internal/timing"
)

// The timing tests of the backends a secret scalar reaches without a GPU
// (cpu, rns-cpu) time whole calls of the bytes API, one item each, with
// internal/timing as internal/ladder's timing tests do: pairs of a special
// class of scalars and random ones, a control of known size (random
// scalars with timing.Spin's work added to one of each pair), in rounds,
// decided by timing.Default. A call is long (tens of microseconds on the
// cpu backend, milliseconds on rns-cpu) and often cut by other processes
// on a busy machine, so only the faster half of each class's runs is kept,
// and no run trains the branch predictor: a leak of a whole
// multiplication is work done or skipped.

// scalarClass is a kind of scalar, drawn from rng, as L big-endian bytes.
type scalarClass struct {
	name string
	gen  func(rng *rand.Rand) *big.Int
}

// backendScalarClasses are the scalars whose time would show a leak of a
// scalar multiplication: k = 0, 1, n − 1 and n − 2 (the ends of the
// group, the co-Z ladder's fixed results), k ≥ n (an L-byte value that
// needs a reduction), short scalars (k < 2^64: many leading zero digits),
// high and low Hamming weight (every bit set below n's top one; three
// bits set), every four-bit digit zero but the top one, and every other
// digit zero (bytes 0x0f). short marks those measured with -short.
func backendScalarClasses(c *curves.Curve) []struct {
	scalarClass
	short bool
} {
	n, L := c.N(), c.ByteLen()
	one := big.NewInt(1)
	fixed := func(k *big.Int) func(*rand.Rand) *big.Int { return func(*rand.Rand) *big.Int { return k } }
	top := new(big.Int).Lsh(one, uint(8*L))
	return []struct {
		scalarClass
		short bool
	}{
		{scalarClass{"k = 0", fixed(big.NewInt(0))}, true},
		{scalarClass{"k = 1", fixed(one)}, true},
		{scalarClass{"k = n - 1", fixed(new(big.Int).Sub(n, one))}, true},
		{scalarClass{"k = n - 2", fixed(new(big.Int).Sub(n, big.NewInt(2)))}, false},
		{scalarClass{"k >= n", func(rng *rand.Rand) *big.Int {
			return new(big.Int).Add(n, randBelow(rng, new(big.Int).Sub(top, n)))
		}}, false},
		{scalarClass{"k < 2^64", func(rng *rand.Rand) *big.Int { return new(big.Int).SetUint64(rng.Uint64()) }}, false},
		{scalarClass{"high Hamming weight", fixed(new(big.Int).Sub(new(big.Int).Lsh(one, uint(n.BitLen()-1)), one))}, false},
		{scalarClass{"low Hamming weight (three bits)", func(rng *rand.Rand) *big.Int {
			k := new(big.Int)
			for range 3 {
				k.SetBit(k, rng.IntN(n.BitLen()-1), 1)
			}
			return k
		}}, true},
		{scalarClass{"every digit zero but the top one", func(rng *rand.Rand) *big.Int {
			return new(big.Int).Lsh(big.NewInt(1+rng.Int64N(7)), uint(8*L-4))
		}}, false},
		{scalarClass{"every other digit zero", fixed(new(big.Int).SetBytes(bytes.Repeat([]byte{0x0f}, L)))}, true},
	}
}

// backendPool is the scalars of a pool; each pool is a stretch of its own.
const backendPool = 64

// backendBench times one item of ScalarMultBytes (or, base, of
// ScalarBaseMultBytes) on an Engine, its scalar copied from pools.
type backendBench struct {
	e          *ecmul.Engine
	c          *curves.Curve
	base       bool
	scalar     []byte // the one scalar every call reads
	point, out []byte
	status     []ecmul.Status
	random     [][]byte
	train      [][]byte
	pools      [][][]byte // every pool of the bench, for relay
}

func newBackendBench(t *testing.T, c *curves.Curve, b ecmul.Backend, base bool, rng *rand.Rand) *backendBench {
	L := c.ByteLen()
	bb := &backendBench{e: newEngine(t, c, ecmul.Options{Backend: b, Workers: 1}), c: c, base: base,
		scalar: make([]byte, L), point: c.EncodeSEC1(cp(randPoint(t, rng, c)), false),
		out: make([]byte, 1+2*L), status: make([]ecmul.Status, 1)}
	random := func(rng *rand.Rand) *big.Int { return randBelow(rng, c.N()) }
	bb.random, bb.train = bb.pool(rng, random), bb.pool(rng, random)
	return bb
}

func (bb *backendBench) pool(rng *rand.Rand, gen func(*rand.Rand) *big.Int) [][]byte {
	L := bb.c.ByteLen()
	p := make([][]byte, backendPool)
	for i := range p {
		p[i] = gen(rng).FillBytes(make([]byte, L))
	}
	relayPool(p)
	bb.pools = append(bb.pools, p)
	return p
}

// relayPool moves the pool's scalars, in place in the pool, to a fresh
// stretch of memory of their own: before each round, so that where the
// pools lie cannot favour a class in every round (see internal/ladder's
// decide).
func relayPool(p [][]byte) {
	if len(p) == 0 {
		return
	}
	L := len(p[0])
	slab := make([]byte, len(p)*L)
	for i, e := range p {
		p[i] = slab[i*L : (i+1)*L : (i+1)*L]
		copy(p[i], e)
	}
}

func (bb *backendBench) run() {
	var err error
	if bb.base {
		err = bb.e.ScalarBaseMultBytes(context.Background(), bb.out, bb.status, bb.scalar)
	} else {
		err = bb.e.ScalarMultBytes(context.Background(), bb.out, bb.status, bb.scalar, bb.point)
	}
	if err != nil || bb.status[0] != ecmul.StatusPoint && bb.status[0] != ecmul.StatusInfinity {
		panic("a timed call failed")
	}
}

func (bb *backendBench) set(special, against [][]byte) func(class, i int) {
	sets := [...][][]byte{special, against, timing.Train: bb.train}
	return func(class, i int) { copy(bb.scalar, sets[class][i%backendPool]) }
}

// studyBackend runs s on rng, the pools of benches moved to fresh memory
// before each round, logs and records its outcome, and fails the test on
// what timing.Default finds wrong and a confirmation, in a new process,
// repeats.
func studyBackend(t *testing.T, name string, s *timing.Study, seed uint64, benches []*backendBench) timing.Decision {
	t.Helper()
	s.Goal, s.Keep = timing.Default.Goal(), 0.5
	s.Between = func() {
		for _, bb := range benches {
			for _, p := range bb.pools {
				relayPool(p)
			}
		}
		runtime.GC()
	}
	if served, err := s.Serve(rand.New(rand.NewPCG(seed, 1))); served {
		require.NoError(t, err)
		return timing.Decision{}
	}
	s.Fresh = timing.Subprocess(t.Name(), testing.Short())
	d := s.Decide(rand.New(rand.NewPCG(seed, 0x853c49e6748fea9b)), timing.Default)
	t.Logf("%s:\n%s", name, d.Summary())
	require.NoError(t, timing.AppendDecision(name, d, timing.Default))
	for _, bad := range d.Failures {
		t.Error(bad)
	}
	return d
}

// cpuSpin is the cpu backend's control: timing.Spin's work of about a
// quarter of a call's time (a k·P call's time varies by some ten
// microseconds from call to call on a busy machine).
const cpuSpin = 25000

// TestCPUBackendConstantTime times the cpu backend (the default without a
// GPU), k·P through ScalarMultBytes and k·G through ScalarBaseMultBytes,
// one item a call, on the classes of backendScalarClasses against random
// scalars, on every curve (with -short: P-256 and secp256k1, k·P, the
// short classes, and k·G on secp256k1): no class differs. The known leak is
// the cpu backend's k·P as it was, gnark-crypto's on secp256k1
// (curves.Curve.ReferenceScalarMultValid, with the same big.Int steps), on
// k = 1 against random scalars: it must be caught.
func TestCPUBackendConstantTime(t *testing.T) {
	if race.Enabled {
		t.Skip("timing measurements under the race detector")
	}
	rng := newRNG(61)
	s := &timing.Study{Pairs: 150, MinRounds: 5, MaxRounds: rounds(7, 11)}
	var benches []*backendBench
	for _, c := range curves.All() {
		for _, base := range []bool{false, true} {
			if testing.Short() && (c == curves.P224() || base && c != curves.Secp256k1()) {
				continue
			}
			bb := newBackendBench(t, c, ecmul.CPU, base, rng)
			benches = append(benches, bb)
			op := "k·P"
			if base {
				op = "k·G"
			}
			prefix := "cpu, " + c.Name() + ", " + op + ", "
			for _, cl := range backendScalarClasses(c) {
				if testing.Short() && !cl.short {
					continue
				}
				s.Classes = append(s.Classes, timing.Class{Name: prefix + cl.name + " against random scalars",
					Target: timing.Clock(bb.set(bb.pool(rng, cl.gen), bb.random), bb.run)})
			}
			if c == curves.Secp256k1() && !base {
				s.Control = timing.Class{Name: prefix + "random scalars, one with the spin", Target: timing.Spun(bb.set(bb.random, bb.random), bb.run, cpuSpin)}
				s.Leaks = append(s.Leaks, timing.Class{Name: prefix + "the old cpu backend (gnark-crypto), k = 1 against random scalars",
					Target: timing.Clock(bb.set(bb.pool(rng, func(*rand.Rand) *big.Int { return big.NewInt(1) }), bb.random), bb.oldCPU(t))})
			}
		}
	}
	studyBackend(t, "cpu backend", s, 61, benches)
}

// oldCPU returns the cpu backend's k·P as it was before internal/ctec:
// the point decoded, the scalar read into a big.Int, and
// ReferenceScalarMultValid (gnark-crypto for secp256k1, crypto/elliptic
// for the NIST curves, after a big.Int reduction mod n), its result
// written back as bytes.
func (bb *backendBench) oldCPU(t *testing.T) func() {
	p, err := bb.c.DecodeSEC1(bb.point)
	require.NoError(t, err)
	L := bb.c.ByteLen()
	return func() {
		k := new(big.Int).SetBytes(bb.scalar)
		x, y, ok, err := bb.c.ReferenceScalarMultValid(p.X, p.Y, k)
		if err != nil {
			panic(err)
		}
		if ok {
			x.FillBytes(bb.out[1 : 1+L])
			y.FillBytes(bb.out[1+L:])
		}
	}
}

// rnsSpin is the rns-cpu backend's control: about a call's time (1.2 ms
// on the 2-core machine idle, twice that beside other builds), for the
// time of a call of milliseconds varies widely there.
const rnsSpin = 1000000

// TestRNSCPUBackendConstantTime times the rns-cpu backend's k·P and k·G
// (the co-Z ladder and the comb on 30-bit channels), one item a call, on
// P-256 (with -short: k·P, k = 0, 1 and n − 1), every class of
// backendScalarClasses that -short takes: no class differs by more than
// the measurement sees at a few hundred calls of milliseconds each. Its
// host code around the ladder is the *big.Int path (SECURITY.md); this
// measures what that leaves in the time of a whole call.
func TestRNSCPUBackendConstantTime(t *testing.T) {
	if race.Enabled {
		t.Skip("timing measurements under the race detector")
	}
	rng := newRNG(67)
	s := &timing.Study{Pairs: 40, MinRounds: 5, MaxRounds: rounds(7, 12)}
	c := curves.P256()
	var benches []*backendBench
	for _, base := range []bool{false, true} {
		if testing.Short() && base {
			continue
		}
		bb := newBackendBench(t, c, ecmul.RNSCPU, base, rng)
		benches = append(benches, bb)
		op := "k·P"
		if base {
			op = "k·G"
		}
		prefix := "rns-cpu, " + c.Name() + ", " + op + ", "
		for _, cl := range backendScalarClasses(c) {
			if !cl.short || testing.Short() && cl.name != "k = 0" && cl.name != "k = 1" && cl.name != "k = n - 1" {
				continue
			}
			s.Classes = append(s.Classes, timing.Class{Name: prefix + cl.name + " against random scalars",
				Target: timing.Clock(bb.set(bb.pool(rng, cl.gen), bb.random), bb.run)})
		}
		if !base {
			s.Control = timing.Class{Name: prefix + "random scalars, one with the spin", Target: timing.Spun(bb.set(bb.random, bb.random), bb.run, rnsSpin)}
		}
	}
	studyBackend(t, "rns-cpu backend", s, 67, benches)
}

// rounds returns the most rounds of a Study: short with -short, else
// long.
func rounds(short, long int) int {
	if testing.Short() {
		return short
	}
	return long
}
