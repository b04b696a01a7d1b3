package ecdsa

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
)

// hostFixture is a batch of valid signatures with the engine's results for
// it, so that prepare and finish can run without the engine.
type hostFixture struct {
	c       *curves.Curve
	digests [][]byte
	sigs    []byte
	keys    []byte
	scalars []byte // prepare's u1 then u2 of every item
	out     []byte
	status  []ecmul.Status
}

// newHostFixture signs count random digests under random keys of c (the
// multiplications by G on the rns-cpu engine) and keeps the engine's u1·G
// and u2·Q of every item; every item verifies.
func newHostFixture(tb testing.TB, c *curves.Curve, count int, seed uint64) *hostFixture {
	tb.Helper()
	pc, err := ecmul.ParseCurve(c.Name())
	if err != nil {
		tb.Fatal(err)
	}
	e, err := ecmul.New(pc, ecmul.Options{Backend: ecmul.RNSCPU})
	if err != nil {
		tb.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	L, n := c.ByteLen(), c.N()
	rng := rand.New(rand.NewPCG(seed, 7))
	randScalar := func() *big.Int {
		b := make([]byte, L+8)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		k := new(big.Int).SetBytes(b)
		k.Mod(k, new(big.Int).Sub(n, big.NewInt(1)))
		return k.Add(k, big.NewInt(1))
	}
	// d_i·G (the keys) and k_i·G (the nonces' points) in one call
	ds, ks := make([]*big.Int, count), make([]*big.Int, count)
	scal := make([]byte, 2*count*L)
	for i := range count {
		ds[i], ks[i] = randScalar(), randScalar()
		ds[i].FillBytes(scal[i*L : (i+1)*L])
		ks[i].FillBytes(scal[(count+i)*L : (count+i+1)*L])
	}
	size := 1 + 2*L
	pts := make([]byte, 2*count*size)
	st := make([]ecmul.Status, 2*count)
	if err := e.ScalarBaseMultBytes(ctx, pts, st, scal); err != nil {
		tb.Fatal(err)
	}
	f := &hostFixture{c: c, digests: make([][]byte, count), sigs: make([]byte, 2*count*L)}
	f.keys = append([]byte(nil), pts[:count*size]...)
	var e1, r, s big.Int
	for i := range count {
		dg := make([]byte, 32)
		for j := range dg {
			dg[j] = byte(rng.Uint32())
		}
		f.digests[i] = dg
		R := pts[(count+i)*size:]
		r.SetBytes(R[1:1+L]).Mod(&r, n)
		bigHash(&e1, dg, n)
		s.Mul(&r, ds[i]).Add(&s, &e1).Mul(&s, new(big.Int).ModInverse(ks[i], n)).Mod(&s, n)
		if r.Sign() == 0 || s.Sign() == 0 {
			tb.Fatalf("item %d: r or s of 0", i)
		}
		r.FillBytes(f.sigs[i*2*L : i*2*L+L])
		s.FillBytes(f.sigs[i*2*L+L : (i+1)*2*L])
	}
	// the engine's results for the scalars prepare computes
	verdicts := make([]Verdict, count)
	b := f.prepared(tb, verdicts)
	f.out = make([]byte, 2*count*size)
	f.status = make([]ecmul.Status, 2*count)
	if err := e.ScalarBaseMultBytes(ctx, f.out[:count*size], f.status[:count], f.scalars[:count*L]); err != nil {
		tb.Fatal(err)
	}
	if err := e.ScalarMultBytes(ctx, f.out[count*size:], f.status[count:], f.scalars[count*L:], f.keys); err != nil {
		tb.Fatal(err)
	}
	if err := b.finish(ctx, f.out, f.status, b.all()); err != nil {
		tb.Fatal(err)
	}
	allValid(tb, verdicts)
	return f
}

// tiled returns f's items repeated k times: a large batch of valid
// signatures, with the engine's results, at the cost of a small one.
func (f *hostFixture) tiled(k int) *hostFixture {
	t := &hostFixture{c: f.c, digests: make([][]byte, 0, k*len(f.digests))}
	for range k {
		t.digests = append(t.digests, f.digests...)
	}
	t.sigs = bytes.Repeat(f.sigs, k)
	t.keys = bytes.Repeat(f.keys, k)
	// scalars and out hold every u1 (u1·G) before every u2 (u2·Q)
	half := func(b []byte) ([]byte, []byte) { return b[:len(b)/2], b[len(b)/2:] }
	s1, s2 := half(f.scalars)
	t.scalars = append(bytes.Repeat(s1, k), bytes.Repeat(s2, k)...)
	o1, o2 := half(f.out)
	t.out = append(bytes.Repeat(o1, k), bytes.Repeat(o2, k)...)
	n := len(f.status) / 2
	for _, part := range [][]ecmul.Status{f.status[:n], f.status[n:]} {
		for range k {
			t.status = append(t.status, part...)
		}
	}
	return t
}

// prepared makes the batch of f's signatures (its verdicts written into
// verdicts) and runs its prepare, failing tb on an error: the step the
// fixture and every host benchmark start from, written once. It runs
// inside timed loops, so it does not call tb.Helper.
func (f *hostFixture) prepared(tb testing.TB, verdicts []Verdict) *batch {
	b, err := newBatch(f.c, verdicts, f.digests, f.sigs, f.keys)
	if err != nil {
		tb.Fatal(err)
	}
	if f.scalars == nil {
		f.scalars = make([]byte, 2*b.count*b.L)
	}
	if err := b.prepare(context.Background(), b.all(), f.scalars); err != nil {
		tb.Fatal(err)
	}
	return b
}

// allValid fails tb unless every verdict is Valid, as every item of a
// hostFixture verifies.
func allValid(tb testing.TB, verdicts []Verdict) {
	tb.Helper()
	for i, v := range verdicts {
		if v != Valid {
			tb.Fatalf("item %d: %v", i, v)
		}
	}
}

// BenchmarkVerifyHost measures Verify's host work alone, per item: prepare
// (u1 and u2 from r, s and the digest) and finish (u1·G + u2·Q, x(R) mod n
// against r) on a batch of valid signatures, fed with the engine's results
// computed beforehand. ns/item is the wall time per item on GOMAXPROCS
// cores (both phases spread over all of them); run with -cpu 1 for the
// cost per item and core.
func BenchmarkVerifyHost(b *testing.B) {
	for _, c := range curves.All() {
		base := lazyFixture(c)
		for _, tiles := range []int{1, 32} {
			benchmarkVerifyHost(b, c, base, tiles)
		}
	}
}

// fixtureItems is the number of signatures a fixture is made with; the
// benchmarks repeat them for larger batches.
const fixtureItems = 1 << 13

// lazyFixture returns a function that makes c's fixture of fixtureItems
// signatures on its first call and returns that one on every call.
func lazyFixture(c *curves.Curve) func(testing.TB) *hostFixture {
	var f *hostFixture
	return func(tb testing.TB) *hostFixture {
		if f == nil {
			f = newHostFixture(tb, c, fixtureItems, 1)
		}
		return f
	}
}

// benchmarkVerifyHost is BenchmarkVerifyHost on c, on base's signatures
// repeated tiles times: two parts of work, or a part for every core.
func benchmarkVerifyHost(b *testing.B, c *curves.Curve, base func(testing.TB) *hostFixture, tiles int) {
	count := fixtureItems * tiles
	name := fmt.Sprintf("%s/items=%d", c.Name(), count)
	var f *hostFixture // made by the first sub-benchmark that runs
	fixture := func(b *testing.B) {
		if f == nil {
			f = base(b).tiled(tiles)
		}
		b.ResetTimer()
	}
	ctx := context.Background()
	verdicts := make([]Verdict, count)
	perItem := func(b *testing.B, d time.Duration) {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N)/float64(count), "ns/item")
	}
	b.Run(name+"/prepare+finish", func(b *testing.B) {
		fixture(b)
		start := time.Now()
		for b.Loop() {
			bt := f.prepared(b, verdicts)
			if err := bt.finish(ctx, f.out, f.status, bt.all()); err != nil {
				b.Fatal(err)
			}
		}
		perItem(b, time.Since(start))
		allValid(b, verdicts)
	})
	b.Run(name+"/prepare", func(b *testing.B) {
		fixture(b)
		start := time.Now()
		for b.Loop() {
			f.prepared(b, verdicts)
		}
		perItem(b, time.Since(start))
	})
	b.Run(name+"/finish", func(b *testing.B) {
		fixture(b)
		bt := f.prepared(b, verdicts)
		start := time.Now()
		for b.Loop() {
			if err := bt.finish(ctx, f.out, f.status, bt.all()); err != nil {
				b.Fatal(err)
			}
		}
		perItem(b, time.Since(start))
		allValid(b, verdicts)
	})
}

// bigHash sets e to the leftmost bitlen(n) bits of digest with math/big,
// as crypto/ecdsa takes them.
func bigHash(e *big.Int, digest []byte, n *big.Int) *big.Int {
	bits := n.BitLen()
	if size := (bits + 7) / 8; len(digest) > size {
		digest = digest[:size]
	}
	e.SetBytes(digest)
	if excess := len(digest)*8 - bits; excess > 0 {
		e.Rsh(e, uint(excess))
	}
	return e
}
