package ladder

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/textbook"
)

// h1Of returns bits2octets(digest) of RFC 6979 for c: the digest's
// leftmost bitlen(n) bits, reduced mod n, in ByteLen bytes.
func h1Of(c *curves.Curve, digest []byte) []byte {
	e := new(big.Int).SetBytes(digest)
	if extra := 8*len(digest) - c.N().BitLen(); extra > 0 {
		e.Rsh(e, uint(extra))
	}
	return e.Mod(e, c.N()).FillBytes(make([]byte, c.ByteLen()))
}

// TestNonce6979Vectors: Nonce6979 gives the k of RFC 6979's own vectors
// for SHA-256 and the message "sample" (A.2.4, P-224; A.2.5, P-256).
func TestNonce6979Vectors(t *testing.T) {
	digest := sha256.Sum256([]byte("sample"))
	for _, v := range []struct {
		c    *curves.Curve
		x, k string
	}{
		{curves.P224(), "F220266E1105BFE3083E03EC7A3A654651F45E37167E88600BF257C1", "AD3029E0278F80643DE33917CE6908C70A8FF50A411F06E41DEDFCDC"},
		{curves.P256(), "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721", "A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60"},
	} {
		x, err := hex.DecodeString(v.x)
		require.NoError(t, err)
		require.Equal(t, strings.ToLower(v.k), hex.EncodeToString(Nonce6979(x, h1Of(v.c, digest[:]))), v.c.Name())
	}
}

// TestUnpackSignOnHost: the sign unpack kernel's twin leaves the comb's
// rows of each item's nonce (UnpackOnHost of a wire of nonces) and k, d
// and h1 in the sign rows, with k written over d; the sign pack kernel's
// twin gives back signatures that verify (SEC 1 §4.1.4 in textbook's
// arithmetic) with r = x(k·G) mod n, zero bytes where the outcome is not
// OutPoint, OutRefused for a k outside [1, n − 1], and the outcomes,
// within the rows before the sign rows.
func TestUnpackSignOnHost(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			su := newSetupKindT(t, c, Comb)
			L := c.ByteLen()
			require.LessOrEqual(t, su.SignWireOutBytes(), 4*su.SignRowAt(), "the wire output ends before the sign rows")
			rng := rand.New(rand.NewSource(73))
			count, stride := 9, 12
			wire := make([]byte, count*su.SignWireInBytes())
			nonces := make([]byte, count*L)
			for i := range count {
				d := new(big.Int).Rand(rng, new(big.Int).Sub(c.N(), big.NewInt(1)))
				d.Add(d, big.NewInt(1)).FillBytes(wire[i*L : (i+1)*L])
				digest := sha256.Sum256([]byte{byte(i)})
				copy(wire[count*L+i*L:], h1Of(c, digest[:]))
				copy(nonces[i*L:], Nonce6979(wire[i*L:(i+1)*L], wire[count*L+i*L:count*L+(i+1)*L]))
			}
			keys := append([]byte(nil), wire[:count*L]...)
			want, got := make([]uint32, su.SignInputRows()*stride), make([]uint32, su.SignInputRows()*stride)
			wantSc, gotSc := make([]uint32, su.ScalarWords()*stride), make([]uint32, su.ScalarWords()*stride)
			su.UnpackOnHost(nonces, want, wantSc, count, stride)
			su.UnpackSignOnHost(wire, got, gotSc, count, stride)
			require.Equal(t, nonces, wire[:count*L], "k written over d")
			require.Equal(t, wantSc, gotSc, "scalar rows")
			for r := range su.GPUInputRows() {
				require.Equal(t, want[r*stride:(r+1)*stride], got[r*stride:(r+1)*stride], "row %d", r)
			}
			for i := range count {
				for _, v := range []struct {
					row int
					b   []byte
				}{{SignRowNonce, nonces[i*L : (i+1)*L]}, {SignRowKey, keys[i*L : (i+1)*L]}, {SignRowH1, wire[(count+i)*L : (count+i+1)*L]}} {
					require.Equal(t, new(big.Int).SetBytes(v.b), su.signRow(got, stride, i, v.row), "item %d: sign row %d", i, v.row)
				}
			}
			su.putSignRow(got, stride, 7, SignRowNonce, c.N().FillBytes(make([]byte, L)))
			su.putSignRow(got, stride, 8, SignRowNonce, make([]byte, L))

			out := make([]uint32, su.OutputRows()*stride)
			outcomes := make([]Outcome, count)
			for i := range count {
				k := new(big.Int).SetBytes(nonces[i*L : (i+1)*L])
				p := textbook.Mul(c, &curves.Point{X: c.Gx(), Y: c.Gy()}, k)
				xy := make([]byte, 2*L)
				p.X.FillBytes(xy[:L])
				p.Y.FillBytes(xy[L:])
				outcomes[i] = OutPoint
				if i == 4 {
					outcomes[i] = OutFailed
				}
				for r := range 2 * L / 4 {
					out[r*stride+i] = uint32(xy[4*r]) | uint32(xy[4*r+1])<<8 | uint32(xy[4*r+2])<<16 | uint32(xy[4*r+3])<<24
				}
				out[(2*L/4)*stride+i] = uint32(outcomes[i])
			}
			outcomes[7], outcomes[8] = OutRefused, OutRefused
			packed := make([]byte, count*su.SignWireOutBytes())
			su.PackSignOnHost(out, got, count, stride, packed)
			for i := range count {
				rec := packed[i*2*L : (i+1)*2*L]
				require.Equal(t, byte(outcomes[i]), packed[count*2*L+i], "item %d: outcome", i)
				if outcomes[i] != OutPoint {
					require.Equal(t, make([]byte, 2*L), rec, "item %d: zero bytes", i)
					continue
				}
				k := new(big.Int).SetBytes(nonces[i*L : (i+1)*L])
				x := textbook.Mul(c, &curves.Point{X: c.Gx(), Y: c.Gy()}, k).X
				require.Equal(t, x.Mod(x, c.N()), new(big.Int).SetBytes(rec[:L]), "item %d: r", i)
				require.True(t, verifies(c, keys[i*L:(i+1)*L], wire[(count+i)*L:(count+i+1)*L], rec), "item %d: r‖s verifies", i)
			}
		})
	}
}

// verifies reports whether r‖s is a signature of e = h1 under the private
// key d's public key, by SEC 1 v2 §4.1.4 in textbook's affine arithmetic.
func verifies(c *curves.Curve, d, h1, rs []byte) bool {
	n, L := c.N(), c.ByteLen()
	r, s := new(big.Int).SetBytes(rs[:L]), new(big.Int).SetBytes(rs[L:])
	if r.Sign() == 0 || r.Cmp(n) >= 0 || s.Sign() == 0 || s.Cmp(n) >= 0 {
		return false
	}
	g := &curves.Point{X: c.Gx(), Y: c.Gy()}
	w := new(big.Int).ModInverse(s, n)
	u1 := new(big.Int).Mul(new(big.Int).SetBytes(h1), w)
	u2 := new(big.Int).Mul(r, w)
	q := textbook.Mul(c, g, new(big.Int).SetBytes(d))
	p := textbook.Add(c, textbook.Mul(c, g, u1.Mod(u1, n)), textbook.Mul(c, q, u2.Mod(u2, n)))
	if p == nil {
		return false
	}
	return new(big.Int).Mod(p.X, n).Cmp(r) == 0
}

// TestProveSignArithmetic: the sign pack kernel's arithmetic mod n holds
// on every curve here, and the proof refuses a p of 2n or more, an even n,
// an n of 64 bits or of more than 256, and a composite n.
func TestProveSignArithmetic(t *testing.T) {
	for _, c := range curves.All() {
		require.NoError(t, ProveSignArithmetic(c.P(), c.N()), c.Name())
	}
	n := curves.P256().N()
	p2n := new(big.Int).Lsh(n, 1)
	for name, bad := range map[string][2]*big.Int{
		"p = 2n":           {p2n, n},
		"even n":           {n, new(big.Int).Sub(n, big.NewInt(1))},
		"n = 2^64 − 59":    {big.NewInt(7), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(59))},
		"n > 2^256":        {p2n, new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(297))},
		"odd n, composite": {n, new(big.Int).Mul(big.NewInt(3), new(big.Int).SetBit(new(big.Int).Rsh(n, 2), 0, 1))},
	} {
		require.Error(t, ProveSignArithmetic(bad[0], bad[1]), name)
	}
}
