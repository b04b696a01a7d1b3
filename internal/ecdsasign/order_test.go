package ecdsasign

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
)

func toBig(l [fp.Limbs]uint64) *big.Int {
	var b [32]byte
	fp.PutLimbs(b[:], l)
	return new(big.Int).SetBytes(b[:])
}

func fromBig(x *big.Int) [fp.Limbs]uint64 {
	return fp.LimbsFromBytes(x.FillBytes(make([]byte, 32)))
}

// edges returns 0, 1, n − 2, n − 1 and count random values below n.
func edges(rng *rand.Rand, n *big.Int, count int) []*big.Int {
	v := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(n, big.NewInt(2)), new(big.Int).Sub(n, big.NewInt(1))}
	for range count {
		v = append(v, randBelow(rng, n))
	}
	return v
}

func randBelow(rng *rand.Rand, n *big.Int) *big.Int {
	b := make([]byte, 40)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(b), n)
}

// signWith is signature on k itself: k⁻¹ by invertAll on a chunk of one.
func signWith(o *order, k, d, r, e [fp.Limbs]uint64, lowS bool) [fp.Limbs]uint64 {
	var ks, pre [1]fp.Element
	o.f.SetLimbs(&ks[0], k)
	o.invertAll(ks[:], pre[:])
	return o.signature(&ks[0], d, r, e, lowS)
}

func orders(t *testing.T) map[string]*order {
	m := map[string]*order{}
	for _, c := range curves.All() {
		s, err := New(c)
		require.NoError(t, err)
		m[c.Name()] = s.o
	}
	return m
}

// TestSignatureMatchesBig computes s = k⁻¹(e + r·d) mod n, plain and
// low-s, for k and d among 1, n − 2, n − 1 and random values, and r and e
// among 0, 1, n − 2, n − 1, random values and (for e) values up to 2^256
// − 1: the same as math/big's.
func TestSignatureMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for name, o := range orders(t) {
		t.Run(name, func(t *testing.T) {
			n := toBig(o.n)
			half := new(big.Int).Rsh(n, 1)
			top := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
			secrets := edges(rng, n, 4)[1:] // k and d are never 0
			publics := edges(rng, n, 4)
			es := append(edges(rng, n, 2), n, top, new(big.Int).Sub(top, n))
			for _, k := range secrets {
				kInv := new(big.Int).ModInverse(k, n)
				for _, d := range secrets {
					for _, r := range publics {
						for _, e := range es {
							want := new(big.Int).Mul(r, d)
							want.Add(want, e).Mul(want, kInv).Mod(want, n)
							got := toBig(signWith(o, fromBig(k), fromBig(d), fromBig(r), fromBig(e), false))
							requireBig(t, want, got, "k=%x d=%x r=%x e=%x", k, d, r, e)
							if want.Cmp(half) > 0 {
								want.Sub(n, want)
							}
							got = toBig(signWith(o, fromBig(k), fromBig(d), fromBig(r), fromBig(e), true))
							requireBig(t, want, got, "low s: k=%x d=%x r=%x e=%x", k, d, r, e)
						}
					}
				}
			}
		})
	}
}

// TestLowSEdges: s = (n − 1)/2 stays, (n + 1)/2 becomes (n − 1)/2, n − 1
// becomes 1, and 0 and 1 stay; random s below n against math/big; the
// same through putLowS's bytes.
func TestLowSEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for name, o := range orders(t) {
		n := toBig(o.n)
		half := new(big.Int).Rsh(n, 1)
		cases := map[*big.Int]*big.Int{
			big.NewInt(0):                         big.NewInt(0),
			big.NewInt(1):                         big.NewInt(1),
			half:                                  half,
			new(big.Int).Add(half, big.NewInt(1)): half,
			new(big.Int).Sub(n, big.NewInt(1)):    big.NewInt(1),
		}
		for range 64 {
			s := randBelow(rng, n)
			if s.Cmp(half) > 0 {
				cases[s] = new(big.Int).Sub(n, s)
			} else {
				cases[s] = s
			}
		}
		for s, want := range cases {
			requireBig(t, want, toBig(o.lowS(fromBig(s))), "%s: s=%x", name, s)
			// putLowS, as a drain takes it: L bytes in, L bytes out
			dst := make([]byte, o.size)
			o.putLowS(dst, s.FillBytes(make([]byte, o.size)))
			requireBig(t, want, new(big.Int).SetBytes(dst), "%s: putLowS, s=%x", name, s)
		}
	}
}

// TestReduceAndRange: reduce(x) = x mod n for x below 2^(8L) (and so below
// 2n), and inRange is all ones exactly for 1 <= x <= n − 1.
func TestReduceAndRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for name, o := range orders(t) {
		n := toBig(o.n)
		top := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(8*o.size)), big.NewInt(1))
		xs := append(edges(rng, n, 8), n, new(big.Int).Add(n, big.NewInt(1)), top)
		for range 8 {
			xs = append(xs, randBelow(rng, new(big.Int).Add(top, big.NewInt(1))))
		}
		for _, x := range xs {
			requireBig(t, new(big.Int).Mod(x, n), toBig(o.reduce(fromBig(x))), "%s: x=%x", name, x)
			want := uint64(0)
			if x.Sign() > 0 && x.Cmp(n) < 0 {
				want = ^uint64(0)
			}
			require.Equal(t, want, o.inRange(fromBig(x)), "%s: x=%x", name, x)
		}
	}
}

// TestBits2Int: the leftmost bitlen(n) bits of digests of every length up
// to 64 bytes, against math/big's shift, and bits2octets (putBits2Octets's
// bytes) as that mod n, the digests' leading bytes random, all ones or
// those of n, n − 1 and n + 1.
func TestBits2Int(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for name, o := range orders(t) {
		n := toBig(o.n)
		for size := range 65 {
			for _, lead := range [][]byte{nil, bytes.Repeat([]byte{0xff}, o.size), n.FillBytes(make([]byte, o.size)),
				new(big.Int).Sub(n, big.NewInt(1)).FillBytes(make([]byte, o.size)),
				new(big.Int).Add(n, big.NewInt(1)).FillBytes(make([]byte, o.size))} {
				b := make([]byte, size)
				for i := range b {
					b[i] = byte(rng.Uint32())
				}
				copy(b, lead)
				want := new(big.Int).SetBytes(b)
				if excess := 8*size - o.bits; excess > 0 {
					want.Rsh(want, uint(excess))
				}
				requireBig(t, want, toBig(o.bits2int(b)), "%s: %d bytes", name, size)
				dst := make([]byte, o.size)
				o.putBits2Octets(dst, b)
				requireBig(t, want.Mod(want, n), new(big.Int).SetBytes(dst), "%s: bits2octets of %d bytes", name, size)
			}
		}
	}
}

// requireBig fails the test when x ≠ y, showing both in hex after the
// message.
func requireBig(t *testing.T, x, y *big.Int, format string, args ...any) {
	t.Helper()
	require.Zero(t, x.Cmp(y), "%s: want %x, got %x", fmt.Sprintf(format, args...), x, y)
}

// TestInvertAllMatchesBig inverts batches of 1, 2, 3 and 37 nonces (1,
// n − 2, n − 1 and random values in [1, n − 1]) by Montgomery's trick:
// every inverse is math/big's ModInverse.
func TestInvertAllMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for name, o := range orders(t) {
		n := toBig(o.n)
		vals := edges(rng, n, 40)[1:] // no 0: a nonce is in [1, n − 1]
		for i, v := range vals {
			if v.Sign() == 0 {
				vals[i] = big.NewInt(3)
			}
		}
		for _, m := range []int{1, 2, 3, 37} {
			ks, pre := make([]fp.Element, m), make([]fp.Element, m)
			for i := range m {
				o.f.SetLimbs(&ks[i], fromBig(vals[i]))
			}
			o.invertAll(ks, pre)
			for i := range m {
				got := toBig(o.f.FromMont(&ks[i]))
				want := new(big.Int).ModInverse(vals[i], n)
				require.Zero(t, want.Cmp(got), "%s, batch of %d, item %d: %v⁻¹", name, m, i, vals[i])
			}
		}
	}
}
