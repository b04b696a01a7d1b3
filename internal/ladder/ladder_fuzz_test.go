package ladder_test

import (
	"math/big"
	"sync"
	"testing"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
)

var fuzzSetups = sync.OnceValue(func() []*ladder.Setup {
	var out []*ladder.Setup
	for _, c := range curves.All() {
		su, err := ladder.NewSetup(c)
		if err != nil {
			panic(err)
		}
		out = append(out, su)
	}
	return out
})

// fuzzBase picks the base point: G, −G, a point with x = 0 where the curve
// has one, or s·G for s read from the bytes.
func fuzzBase(t *testing.T, c *curves.Curve, mode uint8, b []byte) (x, y *big.Int) {
	switch mode & 3 {
	case 0:
		return c.Gx(), c.Gy()
	case 1:
		return c.Gx(), new(big.Int).Sub(c.P(), c.Gy())
	case 2:
		if y := new(big.Int).ModSqrt(c.B(), c.P()); y != nil {
			if len(b) > 0 && b[0]&1 == 1 {
				y.Sub(c.P(), y)
			}
			return new(big.Int), y
		}
	}
	s := new(big.Int).SetBytes(b)
	s.Mod(s, c.N())
	if s.Sign() == 0 {
		return c.Gx(), c.Gy()
	}
	x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), s)
	if err != nil || !ok {
		t.Fatalf("%s: reference %x·G: ok=%v err=%v", c.Name(), s, ok, err)
	}
	return x, y
}

// fuzzScalar reads a scalar of at most 512 bits, shaped by mode: the bytes
// themselves, n − v, n + v or v·n (the last always a multiple of n).
func fuzzScalar(c *curves.Curve, mode uint8, b []byte) *big.Int {
	if len(b) > 64 {
		b = b[:64]
	}
	v := new(big.Int).SetBytes(b)
	k := new(big.Int)
	switch mode >> 2 & 3 {
	case 0:
		k.Set(v)
	case 1:
		k.Sub(c.N(), v).Abs(k)
	case 2:
		k.Add(c.N(), v)
	case 3:
		k.Mul(c.N(), v.Rsh(v, 256))
	}
	if k.BitLen() > 512 {
		k.Rsh(k, uint(k.BitLen()-512))
	}
	return k
}

// FuzzLadder runs the CPU twin of the kernel (prepare, RNS ladder with
// Shenoy's or Kawamura's extension, then both host conversions: the
// four-limb Finish and the math/big ToAffine) on one item and compares the
// result with the reference implementation (crypto/elliptic, gnark-crypto).
// One iteration costs one RNS ladder, a few milliseconds.
func FuzzLadder(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte{}, []byte{1})
	f.Add(uint8(1), uint8(2), []byte{1}, []byte{5})
	f.Add(uint8(2), uint8(0x44), []byte{7}, []byte{})
	f.Fuzz(func(t *testing.T, curve, mode uint8, base, scalar []byte) {
		sus := fuzzSetups()
		su := sus[int(curve)%len(sus)]
		c := su.Curve
		x, y := fuzzBase(t, c, mode, base)
		k := fuzzScalar(c, mode, scalar)
		v := basext.Shenoy
		if mode&0x40 != 0 {
			v = basext.Kawamura
		}

		wx, wy, ok, err := c.ReferenceScalarMult(x, y, k)
		if err != nil {
			t.Fatalf("%s: reference: %v", c.Name(), err)
		}
		job, err := su.Prepare(x, y, k)
		if err != nil {
			t.Fatalf("%s: Prepare(%x, %x, %x): %v", c.Name(), x, y, k, err)
		}
		if job.X.Sign() == 0 || job.Scalar.BitLen() != su.Bits+1 {
			t.Fatalf("%s: Prepare gave x = %x and a %d-bit ladder scalar", c.Name(), job.X, job.Scalar.BitLen())
		}
		in := su.InputElement(job)
		ch := su.NewRNSExecutor(v).Run(&in, job.Scalar, su.Bits, nil)
		fast, fastErr := su.Finish([]ladder.Job{job}, []ladder.Channels{ch})
		slow, slowErr := su.ToAffine([]ladder.Job{job}, []ladder.Outputs{su.Outputs(ch)})
		for name, r := range map[string]struct {
			a   ladder.Affine
			err error
		}{"Finish": {fast[0], fastErr[0]}, "ToAffine": {slow[0], slowErr[0]}} {
			if r.err != nil {
				t.Fatalf("%s %v %s: %x·(%x, %x): %v", c.Name(), v, name, k, x, y, r.err)
			}
			if !ok {
				if !r.a.Infinity || r.a.X != nil {
					t.Fatalf("%s %v %s: %x·(%x, %x) = %+v, want infinity", c.Name(), v, name, k, x, y, r.a)
				}
				continue
			}
			if r.a.Infinity || r.a.X.Cmp(wx) != 0 || r.a.Y.Cmp(wy) != 0 {
				t.Fatalf("%s %v %s: %x·(%x, %x) = %+v, want (%x, %x)", c.Name(), v, name, k, x, y, r.a, wx, wy)
			}
		}
	})
}
