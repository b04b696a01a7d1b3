package ecdsa_test

import (
	"context"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	gnarkecdsa "github.com/consensys/gnark-crypto/ecc/secp256k1/ecdsa"
	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
	internalengine "github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/textbook"
	"github.com/rnsec/ecmul/internal/wycheproof"
)

var backends = []ecmul.Backend{ecmul.CPU, ecmul.RNSCPU}

func engine(t *testing.T, c ecmul.Curve, b ecmul.Backend) *ecmul.Engine {
	t.Helper()
	e, err := ecmul.New(c, ecmul.Options{Backend: b})
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

// fakeGPUEngine returns an Engine of the gpu backend on a fake driver, its
// kernels emulated by their CPU twins: the test fails unless the verify
// kernel judged signatures on it.
func fakeGPUEngine(t *testing.T, c ecmul.Curve) *ecmul.Engine {
	return fakeGPU(t, c, "ecm_verify_", -1) // small batches: u1·G in calls of its own
}

// fakeGPUWireEngine is fakeGPUEngine with every batch large enough for
// the wire kernels (internalengine.ItemKernelsFrom) for the rest of the
// test: the test fails unless a verify batch came as bytes, its u1·G
// computed in the verify kernel's chunks and copied into the verify
// unpack's input on the device.
func fakeGPUWireEngine(t *testing.T, c ecmul.Curve) *ecmul.Engine {
	t.Cleanup(internalengine.ItemKernelsFrom(1))
	return fakeGPU(t, c, "ecm_verifyunpack_", 1)
}

// fakeGPUWireHostBaseEngine is fakeGPUWireEngine with u1·G computed in
// calls of its own, as on an engine without the comb in the verify
// kernel's chunks: the test fails unless a verify batch came as bytes,
// and with no u1·G copied on the device.
func fakeGPUWireHostBaseEngine(t *testing.T, c ecmul.Curve) *ecmul.Engine {
	t.Cleanup(internalengine.ItemKernelsFrom(1))
	t.Cleanup(ecdsa.SetGPUWithBase(false))
	return fakeGPU(t, c, "ecm_verifyunpack_", -1)
}

// fakeGPU returns an Engine of the gpu backend on a fake driver, and fails
// the test unless an entry point of the prefix ran on it and, where
// deviceBase is 1, some u1·G were copied on the device from the comb to
// the verify unpack (Memcpy2DDtoDAsync), none where it is −1.
func fakeGPU(t *testing.T, c ecmul.Curve, prefix string, deviceBase int) *ecmul.Engine {
	t.Helper()
	d := fakecuda.New()
	launched := recordLaunches(d)
	t.Cleanup(internalengine.UseGPUDriver(d, []byte("fatbin"))) // for the runners the engine opens later too
	e, err := ecmul.New(c, ecmul.Options{Backend: ecmul.GPU})
	require.NoError(t, err)
	t.Cleanup(func() {
		e.Close()
		require.NotEmpty(t, launched(prefix), "no entry point %s* ran", prefix)
		switch copies := d.Calls("Memcpy2DDtoDAsync"); deviceBase {
		case 1:
			require.Positive(t, copies, "no u1·G went from the comb to the verify unpack on the device")
		case -1:
			require.Zero(t, copies, "u1·G went from the comb to the verify unpack on the device")
		}
	})
	return e
}

// recordLaunches emulates d's kernels by their CPU twins and records the
// entry points launched: the function it returns gives those whose names
// contain part.
func recordLaunches(d *fakecuda.Driver) func(part string) []string {
	emulate := kernelemu.Launch(d)
	var mu sync.Mutex
	launched := map[string]bool{}
	d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		mu.Lock()
		launched[fn] = true
		mu.Unlock()
		return emulate(fn, grid, block, params)
	}
	return func(part string) (out []string) {
		mu.Lock()
		defer mu.Unlock()
		for fn := range launched {
			if strings.Contains(fn, part) {
				out = append(out, fn)
			}
		}
		return out
	}
}

func publicCurve(c *curves.Curve) ecmul.Curve {
	pc, err := ecmul.ParseCurve(c.Name())
	if err != nil {
		panic(err)
	}
	return pc
}

// TestWycheproof runs every case of every ECDSA vector file through the
// cpu and rns-cpu backends: every outcome is Wycheproof's. With -short (the
// race detector's run) the cpu backend alone: the full run takes both.
func TestWycheproof(t *testing.T) {
	bs := backends
	if testing.Short() {
		bs = []ecmul.Backend{ecmul.CPU}
	}
	for _, wf := range wycheproof.ECDSAFiles {
		f, err := wycheproof.LoadECDSA(wycheproof.Path(wf.File))
		require.NoError(t, err)
		c := publicCurve(wf.Curve)
		for _, b := range bs {
			name := strings.TrimSuffix(wf.File, "_test.json.gz") + "/backend=" + b.String()
			t.Run(name, func(t *testing.T) {
				n, err := runWycheproof(context.Background(), engine(t, c, b), f)
				require.NoError(t, err)
				t.Logf("%s: %v", name, n)
			})
		}
	}
}

// TestGPUWycheproof runs every case of every ECDSA vector file through the
// gpu backend, where there is a GPU: every outcome is Wycheproof's.
func TestGPUWycheproof(t *testing.T) {
	for _, wf := range wycheproof.ECDSAFiles {
		e, err := ecmul.New(publicCurve(wf.Curve), ecmul.Options{Backend: ecmul.GPU})
		if errors.Is(err, ecmul.ErrNoDevice) {
			t.Skip("no GPU")
		}
		require.NoError(t, err)
		f, err := wycheproof.LoadECDSA(wycheproof.Path(wf.File))
		require.NoError(t, err)
		name := strings.TrimSuffix(wf.File, "_test.json.gz")
		t.Run(name, func(t *testing.T) {
			n, err := runWycheproof(context.Background(), e, f)
			require.NoError(t, err)
			t.Logf("%s/backend=gpu: %v", name, n)
		})
		require.NoError(t, e.Close())
	}
}

// item is one verification with the reference's verdict.
type item struct {
	digest, rs, key []byte
	want            ecdsa.Verdict
}

// verifyItems runs items through Verify on every CPU backend and on the
// gpu backend on a fake driver (the verify kernel's twin, its batches
// packed on the host and as bytes), in one step and in steps of a few
// items, and requires the verdicts expected.
func verifyItems(t *testing.T, c ecmul.Curve, items []item) {
	t.Helper()
	verifyOn(t, c, items, true)
}

// verifyRandomItems is verifyItems on random items: with -short (the race
// detector's run) on the CPU backends alone, the edge cases taking the
// fake GPU's paths.
func verifyRandomItems(t *testing.T, c ecmul.Curve, items []item) {
	t.Helper()
	verifyOn(t, c, items, !testing.Short())
}

// verifyOn is verifyItems, on the fake GPU too where gpu is set.
func verifyOn(t *testing.T, c ecmul.Curve, items []item, gpu bool) {
	t.Helper()
	var digests [][]byte
	var sigs, keys []byte
	for _, it := range items {
		digests, sigs, keys = append(digests, it.digest), append(sigs, it.rs...), append(keys, it.key...)
	}
	engines := map[string]func(*testing.T, ecmul.Curve) *ecmul.Engine{}
	if gpu {
		engines["gpu"], engines["gpu-wire"], engines["gpu-wire-host-base"] = fakeGPUEngine, fakeGPUWireEngine, fakeGPUWireHostBaseEngine
	}
	for _, b := range backends {
		engines[b.String()] = func(t *testing.T, c ecmul.Curve) *ecmul.Engine { return engine(t, c, b) }
	}
	for name, open := range engines {
		// one engine at a time: the fake driver and the wire's batch size
		// are the package engine's, until the subtest ends
		t.Run(name, func(t *testing.T) {
			e := open(t, c)
			// in one step, and in steps of 7 items (the last one shorter);
			// with -short (the race detector's run) the fake GPU's two
			// paths take one plan each
			steps := []int{0, 7}
			if testing.Short() && name == "gpu" {
				steps = steps[1:]
			} else if testing.Short() && strings.HasPrefix(name, "gpu-wire") {
				steps = steps[:1]
			}
			for _, step := range steps {
				restore := func() {}
				if step > 0 {
					restore = ecdsa.SetSubBatch(step)
				}
				verdicts := staleVerdicts(items)
				err := ecdsa.Verify(context.Background(), e, verdicts, digests, sigs, keys)
				restore()
				require.NoError(t, err)
				for i, it := range items {
					require.Equal(t, it.want, verdicts[i], "steps of %d items, item %d", step, i)
				}
			}
		})
	}
}

// staleVerdicts returns a verdict for each item other than its own, as a
// buffer reused from another batch holds: Verify must write every one.
func staleVerdicts(items []item) []ecdsa.Verdict {
	v := make([]ecdsa.Verdict, len(items))
	for i, it := range items {
		v[i] = ecdsa.Valid
		if it.want == ecdsa.Valid {
			v[i] = ecdsa.Invalid
		}
	}
	return v
}

// rsBytes writes r and s as Verify takes them; each must fit in L bytes.
func rsBytes(L int, r, s *big.Int) []byte {
	b := make([]byte, 2*L)
	r.FillBytes(b[:L])
	s.FillBytes(b[L:])
	return b
}

// reference verifies with math/big alone (package textbook's affine
// arithmetic), following SEC 1 v2 §4.1.4.
func reference(c *curves.Curve, digest, rs []byte, q *curves.Point) ecdsa.Verdict {
	L, n := c.ByteLen(), c.N()
	r, s := new(big.Int).SetBytes(rs[:L]), new(big.Int).SetBytes(rs[L:])
	if r.Sign() == 0 || r.Cmp(n) >= 0 || s.Sign() == 0 || s.Cmp(n) >= 0 {
		return ecdsa.Invalid
	}
	if len(digest) > (n.BitLen()+7)/8 {
		digest = digest[:(n.BitLen()+7)/8]
	}
	e := new(big.Int).SetBytes(digest)
	if excess := 8*len(digest) - n.BitLen(); excess > 0 {
		e.Rsh(e, uint(excess))
	}
	w := new(big.Int).ModInverse(s, n)
	u1 := new(big.Int).Mul(e, w)
	u2 := new(big.Int).Mul(r, w)
	R := textbook.Add(c, textbook.Mul(c, c.Generator(), u1.Mod(u1, n)), textbook.Mul(c, q, u2.Mod(u2, n)))
	if R == nil || new(big.Int).Mod(R.X, n).Cmp(r) != 0 {
		return ecdsa.Invalid
	}
	return ecdsa.Valid
}

// TestRandomNIST: signatures of crypto/ecdsa on P-224 and P-256, with
// digests of many lengths, some corrupted, verify exactly when
// crypto/ecdsa.Verify and the math/big reference say they do.
func TestRandomNIST(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, std := range []elliptic.Curve{elliptic.P224(), elliptic.P256()} {
		c, err := curves.ByName(std.Params().Name)
		require.NoError(t, err)
		t.Run(c.Name(), func(t *testing.T) {
			L := c.ByteLen()
			var items []item
			for i := range 40 {
				priv, err := stdecdsa.GenerateKey(std, nil)
				require.NoError(t, err)
				digest := make([]byte, []int{0, 1, 20, L, 32, 48, 64}[i%7])
				for j := range digest {
					digest[j] = byte(rng.Uint32())
				}
				r, s, err := stdecdsa.Sign(nil, priv, digest)
				require.NoError(t, err)
				switch i % 4 {
				case 1: // another message: flip a bit the integer keeps
					if len(digest) > 0 {
						digest = append([]byte(nil), digest...)
						digest[0] ^= 0x80
					}
				case 2:
					s.Add(s, big.NewInt(1)).Mod(s, std.Params().N)
				case 3: // a bit past bitlen(n): the same integer, still valid
					if len(digest) > L {
						digest = append([]byte(nil), digest...)
						digest[L] ^= 1
					}
				}
				key := elliptic.Marshal(std, priv.X, priv.Y) //nolint:staticcheck // the uncompressed encoding is what is wanted
				rs := rsBytes(L, r, s)
				ok := stdecdsa.Verify(&priv.PublicKey, digest, r, s)
				want := map[bool]ecdsa.Verdict{true: ecdsa.Valid, false: ecdsa.Invalid}[ok]
				require.Equal(t, want, reference(c, digest, rs, &curves.Point{X: priv.X, Y: priv.Y}), "item %d", i)
				items = append(items, item{digest, rs, key, want})
			}
			verifyRandomItems(t, publicCurve(c), items)
		})
	}
}

// TestRandomSecp256k1: signatures of gnark-crypto on secp256k1, some
// corrupted, verify exactly when gnark-crypto and the math/big reference
// say they do.
func TestRandomSecp256k1(t *testing.T) {
	c := curves.Secp256k1()
	rng := rand.New(rand.NewPCG(3, 4))
	var items []item
	for i := range 40 {
		priv, err := gnarkecdsa.GenerateKey(cryptoRand{rng})
		require.NoError(t, err)
		digest := make([]byte, 32)
		for j := range digest {
			digest[j] = byte(rng.Uint32())
		}
		sig, err := priv.Sign(digest, nil) // nil: the message is the digest
		require.NoError(t, err)
		if i%3 == 1 {
			digest[5] ^= 4
		}
		if i%3 == 2 {
			sig[0] ^= 1 // r changed
		}
		x, y := new(big.Int), new(big.Int)
		priv.PublicKey.A.X.BigInt(x)
		priv.PublicKey.A.Y.BigInt(y)
		key := c.EncodeSEC1(&curves.Point{X: x, Y: y}, false)
		ok, _ := priv.PublicKey.Verify(sig, digest, nil)
		want := map[bool]ecdsa.Verdict{true: ecdsa.Valid, false: ecdsa.Invalid}[ok]
		require.Equal(t, want, reference(c, digest, sig, &curves.Point{X: x, Y: y}), "item %d", i)
		items = append(items, item{digest, sig, key, want})
	}
	verifyRandomItems(t, publicCurve(c), items)
}

// cryptoRand reads from a seeded generator, for reproducible keys.
type cryptoRand struct{ r *rand.Rand }

func (c cryptoRand) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(c.r.Uint32())
	}
	return len(b), nil
}

// sign returns r‖s of digest under private key d with nonce k, and the
// public key d·G.
func sign(c *curves.Curve, d, k *big.Int, digest []byte) (rs []byte, q *curves.Point) {
	n := c.N()
	R := textbook.Mul(c, c.Generator(), k)
	r := new(big.Int).Mod(R.X, n)
	e := new(big.Int).SetBytes(digest)
	if excess := 8*len(digest) - n.BitLen(); excess > 0 {
		e.Rsh(e, uint(excess))
	}
	s := new(big.Int).Mul(r, d)
	s.Add(s, e).Mul(s, new(big.Int).ModInverse(k, n)).Mod(s, n)
	return rsBytes(c.ByteLen(), r, s), textbook.Mul(c, c.Generator(), d)
}

// TestEdgeCases: r or s of 0 or n, digests longer and shorter than n,
// u1·G + u2·Q at infinity, u1·G = u2·Q (a doubling), and bad keys.
func TestEdgeCases(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			L, n := c.ByteLen(), c.N()
			d, k := big.NewInt(0x1234567), big.NewInt(0x7654321)
			digest := sha256.Sum256([]byte("edge"))
			rs, q := sign(c, d, k, digest[:])
			key := c.EncodeSEC1(q, false)
			r, s := new(big.Int).SetBytes(rs[:L]), new(big.Int).SetBytes(rs[L:])
			zero := big.NewInt(0)
			nm1 := new(big.Int).Sub(n, big.NewInt(1))
			items := []item{
				{digest[:], rs, key, ecdsa.Valid},
				{digest[:], rsBytes(L, zero, s), key, ecdsa.Invalid},
				{digest[:], rsBytes(L, r, zero), key, ecdsa.Invalid},
				{digest[:], rsBytes(L, n, s), key, ecdsa.Invalid},
				{digest[:], rsBytes(L, r, n), key, ecdsa.Invalid},
				{digest[:], rsBytes(L, new(big.Int).Add(r, n).Mod(new(big.Int).Add(r, n), new(big.Int).Lsh(big.NewInt(1), uint(8*L))), s), key, ecdsa.Invalid},
				{digest[:], rsBytes(L, r, new(big.Int).Sub(n, s)), key, ecdsa.Valid}, // −R has R's x
				{digest[:], rsBytes(L, r, new(big.Int).Add(s, big.NewInt(1))), key, ecdsa.Invalid},
				{digest[:], rsBytes(L, nm1, nm1), key, ecdsa.Invalid},
			}
			// digests longer and shorter than n, and empty
			long := make([]byte, 64)
			for i := range long {
				long[i] = byte(3*i + 1)
			}
			for _, dg := range [][]byte{long, long[:L+1], long[:L-1], long[:1], nil} {
				rs, _ := sign(c, d, k, truncated(dg, n))
				items = append(items, item{dg, rs, key, ecdsa.Valid})
				if len(dg) > L { // bits past bitlen(n) do not count
					other := append([]byte(nil), dg...)
					other[len(other)-1] ^= 1
					items = append(items, item{other, rs, key, ecdsa.Valid})
				}
			}
			// u1·G + u2·Q = infinity: e ≡ −r·d (mod n), any s
			e := new(big.Int).Mul(r, d)
			e.Neg(e).Mod(e, n)
			inf := e.FillBytes(make([]byte, L))
			items = append(items, item{inf, rsBytes(L, r, s), key, ecdsa.Invalid})
			require.Equal(t, ecdsa.Invalid, reference(c, inf, rsBytes(L, r, s), q))
			// u1·G = u2·Q: e ≡ r·d, s = k⁻¹·2rd, so R = 2·u1·G = k·G: valid,
			// through the doubling
			e.Mul(r, d).Mod(e, n)
			s2 := new(big.Int).Lsh(e, 1)
			s2.Mul(s2, new(big.Int).ModInverse(k, n)).Mod(s2, n)
			dbl := e.FillBytes(make([]byte, L))
			items = append(items, item{dbl, rsBytes(L, r, s2), key, ecdsa.Valid})
			require.Equal(t, ecdsa.Valid, reference(c, dbl, rsBytes(L, r, s2), q))
			// bad keys, whatever the signature
			offCurve := append([]byte(nil), key...)
			offCurve[len(offCurve)-1] ^= 1
			pBytes := c.P().FillBytes(make([]byte, L))
			bigX := append(append([]byte{4}, pBytes...), key[1+L:]...)
			zeroKey := make([]byte, 1+2*L)
			zeroKey[0] = 4
			badPrefix := append([]byte{5}, key[1:]...)
			items = append(items,
				item{digest[:], rs, offCurve, ecdsa.KeyNotOnCurve},
				item{digest[:], rsBytes(L, zero, zero), offCurve, ecdsa.KeyNotOnCurve},
				item{digest[:], rs, bigX, ecdsa.KeyBadCoordinate},
				item{digest[:], rs, zeroKey, ecdsa.KeyInfinity},
				item{digest[:], rs, badPrefix, ecdsa.KeyBadEncoding},
				item{digest[:], rs, key, ecdsa.Valid},
			)
			verifyItems(t, publicCurve(c), items)

			// the same with compressed keys: on the gpu backend u1·G
			// comes from calls of its own, however large the batch
			ck := c.EncodeSEC1(q, true)
			opens := []func() *ecmul.Engine{
				func() *ecmul.Engine { return engine(t, publicCurve(c), ecmul.CPU) },
				func() *ecmul.Engine { return fakeGPUEngine(t, publicCurve(c)) },
				func() *ecmul.Engine { // as large as a batch of bytes
					t.Cleanup(internalengine.ItemKernelsFrom(1))
					return fakeGPU(t, publicCurve(c), "ecm_verify_", -1)
				},
			}
			for _, open := range opens { // one at a time: each fake engine opens its runners on its own driver
				e2 := open()
				verdicts := make([]ecdsa.Verdict, 2)
				require.NoError(t, ecdsa.Verify(context.Background(), e2, verdicts,
					[][]byte{digest[:], digest[:]}, append(append([]byte(nil), rs...), rsBytes(L, r, zero)...), append(append([]byte(nil), ck...), ck...)))
				require.Equal(t, []ecdsa.Verdict{ecdsa.Valid, ecdsa.Invalid}, verdicts, "backend %v", e2.Backend())
			}
		})
	}
}

// TestXAboveN: where x(R) is in [n, p), a signature with r = x(R) − n
// verifies (x(R) mod n = r) and one with r = x(R) − n + 1 does not, on
// every backend. R is the first point with x > n, and the key Q =
// r⁻¹·(s·R − e·G) is made for it, so that u1·G + u2·Q = s⁻¹·(e·G + r·Q) =
// R.
func TestXAboveN(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			L, n, p := c.ByteLen(), c.N(), c.P()
			x, y := new(big.Int).Add(n, big.NewInt(1)), (*big.Int)(nil)
			for ; y == nil; x.Add(x, big.NewInt(1)) {
				rhs := new(big.Int).Exp(x, big.NewInt(3), p)
				rhs.Add(rhs, new(big.Int).Mul(big.NewInt(c.A()), x)).Add(rhs, c.B()).Mod(rhs, p)
				y = new(big.Int).ModSqrt(rhs, p)
			}
			x.Sub(x, big.NewInt(1))
			require.Negative(t, x.Cmp(p), "a point with n < x < p")
			R := &curves.Point{X: x, Y: y}
			r, s, e := new(big.Int).Sub(x, n), big.NewInt(424242), big.NewInt(987654321)
			eG := textbook.Mul(c, c.Generator(), e)
			q := textbook.Add(c, textbook.Mul(c, R, s), &curves.Point{X: eG.X, Y: new(big.Int).Sub(p, eG.Y)})
			q = textbook.Mul(c, q, new(big.Int).ModInverse(r, n))
			require.NotNil(t, q)
			digest, key := e.FillBytes(make([]byte, L)), c.EncodeSEC1(q, false)
			items := []item{
				{digest, rsBytes(L, r, s), key, ecdsa.Valid},
				{digest, rsBytes(L, new(big.Int).Add(r, big.NewInt(1)), s), key, ecdsa.Invalid},
			}
			for _, it := range items {
				require.Equal(t, it.want, reference(c, it.digest, it.rs, q), "the math/big reference")
			}
			verifyItems(t, publicCurve(c), items)
		})
	}
}

// truncated is the digest whose integer is digest's: its leftmost
// bitlen(n) bits, as bytes.
func truncated(digest []byte, n *big.Int) []byte {
	if len(digest) > (n.BitLen()+7)/8 {
		digest = digest[:(n.BitLen()+7)/8]
	}
	e := new(big.Int).SetBytes(digest)
	if excess := 8*len(digest) - n.BitLen(); excess > 0 {
		e.Rsh(e, uint(excess))
	}
	return e.Bytes()
}

// TestBatchErrors: bad lengths give ecmul.ErrBatchLayout, the engine's
// errors come through, and every verdict is then NotVerified.
func TestBatchErrors(t *testing.T) {
	c := ecmul.P256()
	L := c.ByteLen()
	e := engine(t, c, ecmul.CPU)
	ctx := context.Background()
	key := make([]byte, 1+2*L)
	d := [][]byte{{1}, {2}}
	for name, tc := range map[string]struct {
		verdicts   int
		sigs, keys []byte
	}{
		"short sigs":    {2, make([]byte, 4*L-1), append(key, key...)},
		"long sigs":     {2, make([]byte, 4*L+1), append(key, key...)},
		"keys":          {2, make([]byte, 4*L), key},
		"mixed keys":    {2, make([]byte, 4*L), append(key, key[:1+L]...)},
		"verdicts":      {1, make([]byte, 4*L), append(key, key...)},
		"more verdicts": {3, make([]byte, 4*L), append(key, key...)},
	} {
		t.Run(name, func(t *testing.T) {
			v := make([]ecdsa.Verdict, tc.verdicts)
			for i := range v {
				v[i] = ecdsa.Valid
			}
			err := ecdsa.Verify(ctx, e, v, d, tc.sigs, tc.keys)
			require.ErrorIs(t, err, ecmul.ErrBatchLayout)
			require.Equal(t, make([]ecdsa.Verdict, tc.verdicts), v, "every verdict NotVerified")
		})
	}
	require.NoError(t, ecdsa.Verify(ctx, e, nil, nil, nil, nil), "an empty batch")

	require.ErrorIs(t, ecdsa.Verify(ctx, nil, nil, nil, nil, nil), ecmul.ErrClosed)
	require.ErrorIs(t, ecdsa.Verify(ctx, new(ecmul.Engine), nil, nil, nil, nil), ecmul.ErrClosed)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	v := []ecdsa.Verdict{ecdsa.Valid, ecdsa.Invalid}
	err := ecdsa.Verify(cancelled, e, v, d, make([]byte, 4*L), append(key, key...))
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, make([]ecdsa.Verdict, 2), v)

	closed := engine(t, c, ecmul.CPU)
	require.NoError(t, closed.Close())
	err = ecdsa.Verify(ctx, closed, v, d, make([]byte, 4*L), append(key, key...))
	require.ErrorIs(t, err, ecmul.ErrClosed)
	// in steps of one item, two of them in flight when the first fails
	restore := ecdsa.SetSubBatch(1)
	v = []ecdsa.Verdict{ecdsa.Valid, ecdsa.Valid}
	err = ecdsa.Verify(ctx, closed, v, d, make([]byte, 4*L), append(key, key...))
	restore()
	require.ErrorIs(t, err, ecmul.ErrClosed)
	require.Equal(t, make([]ecdsa.Verdict, 2), v, "every verdict NotVerified")

	// a nil context is Background
	require.NoError(t, ecdsa.Verify(nil, e, v, d, make([]byte, 4*L), append(key, key...))) //nolint:staticcheck // a nil context is documented
	require.Equal(t, []ecdsa.Verdict{ecdsa.KeyBadEncoding, ecdsa.KeyBadEncoding}, v)
}

func TestVerdict(t *testing.T) {
	require.NoError(t, ecdsa.Valid.Err())
	require.Equal(t, "valid", ecdsa.Valid.String())
	require.Equal(t, "invalid", ecdsa.Invalid.String())
	require.ErrorIs(t, ecdsa.Invalid.Err(), ecdsa.ErrInvalidSignature)
	for _, v := range []ecdsa.Verdict{ecdsa.KeyBadEncoding, ecdsa.KeyBadCoordinate, ecdsa.KeyNotOnCurve, ecdsa.KeyInfinity} {
		require.ErrorIs(t, v.Err(), ecmul.ErrInvalidPoint, "%d", v)
		require.Contains(t, v.String(), "public key")
	}
	require.Contains(t, ecdsa.KeyNotOnCurve.String(), "not on the curve")
	require.Contains(t, ecdsa.KeyBadCoordinate.String(), "range")
	require.Error(t, ecdsa.NotVerified.Err())
	require.Error(t, ecdsa.Fault.Err())
	require.False(t, errors.Is(ecdsa.Fault.Err(), ecmul.ErrInvalidPoint))
	require.Contains(t, ecdsa.Verdict(200).String(), "unknown")
}

// TestVerifyDeviceBaseFault: where the comb reports a u1·G that failed its
// check, in the verify kernel's chunks (u1·G never on the host), that item
// is a Fault and every other one gets its verdict. The fake driver's comb
// pack has item 3's outcome spoiled after it runs.
func TestVerifyDeviceBaseFault(t *testing.T) {
	c := curves.P256()
	L := c.ByteLen()
	var digests [][]byte
	var sigs, keys []byte
	for i := range 8 {
		priv, err := stdecdsa.GenerateKey(elliptic.P256(), nil)
		require.NoError(t, err)
		digest := []byte{byte(i), 1, 2, 3}
		r, s, err := stdecdsa.Sign(nil, priv, digest)
		require.NoError(t, err)
		key, err := priv.PublicKey.Bytes()
		require.NoError(t, err)
		digests, sigs, keys = append(digests, digest), append(sigs, rsBytes(L, r, s)...), append(keys, key...)
	}
	const spoiled = 3
	d := fakecuda.New()
	emulate := kernelemu.Launch(d)
	index := func(name string) int {
		return slices.IndexFunc(kernels.Args, func(a kernels.Arg) bool { return a.Name == name })
	}
	var packs atomic.Int32
	d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		if err := emulate(fn, grid, block, params); err != nil || !strings.HasPrefix(fn, "ecm_pack_") {
			return err
		}
		packs.Add(1)
		in, count := *(*gpu.DevicePtr)(params[index("in")]), int(*(*uint32)(params[index("count")]))
		wire, err := d.DeviceBytes(in, uint64(count*(2+2*L)))
		if err != nil {
			return err
		}
		wire[count*(1+2*L)+spoiled] = byte(ladder.OutFailed)
		return nil
	}
	t.Cleanup(internalengine.UseGPUDriver(d, []byte("fatbin")))
	t.Cleanup(internalengine.ItemKernelsFrom(1))
	e, err := ecmul.New(ecmul.P256(), ecmul.Options{Backend: ecmul.GPU})
	require.NoError(t, err)
	defer e.Close()
	verdicts := make([]ecdsa.Verdict, len(digests))
	require.NoError(t, ecdsa.Verify(context.Background(), e, verdicts, digests, sigs, keys))
	require.Positive(t, d.Calls("Memcpy2DDtoDAsync"), "u1·G was computed in the verify kernel's chunks")
	require.Equal(t, int32(1), packs.Load(), "one comb pack")
	for i, v := range verdicts {
		want := ecdsa.Valid
		if i == spoiled {
			want = ecdsa.Fault
		}
		require.Equal(t, want, v, "item %d", i)
	}
}
