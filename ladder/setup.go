package ladder

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"

	"github.com/rnsec/ecmul/basext"
	"github.com/rnsec/ecmul/curves"
	"github.com/rnsec/ecmul/rns"
)

// Setup is everything the ladder needs for one curve: the RNS, the
// multiplication tables, the proved schedule and its constants in RNS form.
// It is immutable once built and safe to share.
type Setup struct {
	Curve     *curves.Curve
	Params    *rns.Params
	Tables    *basext.Tables
	Schedule  *Schedule
	Consts    *Constants
	KB        rns.Element   // b̄ in RNS form
	AddConsts []rns.Element // per AddOp, Consts.AddMont in RNS form
	// Bits is t = bitlen(n): the ladder runs t iterations for every scalar.
	Bits int

	host *hostField // field arithmetic for the host conversions; nil: math/big only
}

// NewSetup builds and proves the ladder for c.
func NewSetup(c *curves.Curve) (*Setup, error) {
	par, err := rns.NewParams(c.P)
	if err != nil {
		return nil, fmt.Errorf("ladder: %s: %w", c.Name, err)
	}
	s, k, err := NewSchedule(c.A, c.B, par)
	if err != nil {
		return nil, fmt.Errorf("ladder: %s: %w", c.Name, err)
	}
	su := &Setup{Curve: c, Params: par, Tables: basext.NewTables(par), Schedule: s, Consts: k, Bits: c.N.BitLen(),
		host: newHostField(par, c.A, c.B)}
	su.KB = par.NewElement()
	if err := par.ToRNS(&su.KB, k.KB); err != nil {
		return nil, err
	}
	for _, v := range k.AddMont {
		el := par.NewElement()
		if err := par.ToRNS(&el, v); err != nil {
			return nil, err
		}
		su.AddConsts = append(su.AddConsts, el)
	}
	return su, nil
}

// LadderScalar returns k' ≡ k (mod n) with k' in [2^t, 2^(t+1)), t =
// bitlen(n): k mod n plus n or 2n. The ladder starts from (G, 2G) for the top
// bit and runs exactly t iterations, whatever k is; k ≡ 0 (mod n) gives the
// point at infinity like any other multiple of n.
//
// The result is one allocation with room for its words. Scalars below
// 2^(t+3) <= 16n (those below n, and ladder scalars themselves) are reduced
// by at most 15 subtractions instead of a division.
func (su *Setup) LadderScalar(k *big.Int) *big.Int {
	n := su.Curve.N
	s := new(ladderScalar)
	kp := s.init()
	if k.Sign() >= 0 && k.BitLen() <= su.Bits+3 {
		kp.Set(k)
		for kp.Cmp(n) >= 0 {
			kp.Sub(kp, n)
		}
	} else {
		kp.Mod(k, n)
	}
	kp.Add(kp, n)
	if kp.BitLen() <= su.Bits {
		kp.Add(kp, n)
	}
	return kp
}

// ladderScalar is a big.Int allocated together with the words it needs
// for values up to 2^(t+3), t <= 256.
type ladderScalar struct {
	v big.Int
	w [(256 + 3 + bits.UintSize - 1) / bits.UintSize]big.Word
}

func (s *ladderScalar) init() *big.Int {
	return s.v.SetBits(s.w[:0])
}

// Job is one prepared scalar multiplication: a base with x ≠ 0 and its ladder scalar.
type Job struct {
	X, Y   *big.Int // the base point, affine
	Scalar *big.Int // the ladder scalar, t+1 bits with the top one set
}

// ErrNegativeScalar is returned for scalars below zero.
var ErrNegativeScalar = errors.New("scalar is negative")

// Prepare turns a validated point and a scalar into a Job. The x-only ladder
// cannot start from x = 0 (its differential addition multiplies by x_G), so
// such a base is replaced by 2G with the scalar k/2 mod n: the same result.
// The point must have been validated (curves.Curve.Validate).
func (su *Setup) Prepare(x, y, k *big.Int) (Job, error) {
	if k.Sign() < 0 {
		return Job{}, ErrNegativeScalar
	}
	if x.Sign() != 0 {
		return Job{X: x, Y: y, Scalar: su.LadderScalar(k)}, nil
	}
	c := su.Curve
	x2, y2 := double(c, x, y)
	half := new(big.Int).ModInverse(big.NewInt(2), c.N)
	k2 := new(big.Int).Mul(k, half)
	return Job{X: x2, Y: y2, Scalar: su.LadderScalar(k2.Mod(k2, c.N))}, nil
}

// double returns 2·(x, y) in affine coordinates, for y ≠ 0 (always true on
// these prime-order curves).
func double(c *curves.Curve, x, y *big.Int) (*big.Int, *big.Int) {
	p := c.P
	num := new(big.Int).Mul(x, x)
	num.Mul(num, big.NewInt(3)).Add(num, big.NewInt(c.A))
	den := new(big.Int).Lsh(y, 1)
	lam := num.Mul(num, den.ModInverse(den.Mod(den, p), p)).Mod(num, p)
	x2 := new(big.Int).Mul(lam, lam)
	x2.Sub(x2, new(big.Int).Lsh(x, 1)).Mod(x2, p)
	y2 := new(big.Int).Sub(x, x2)
	y2.Mul(y2, lam).Sub(y2, y).Mod(y2, p)
	return x2, y2
}

// InputElement returns the RNS Montgomery form of the job's base x, the
// kernel's per-item input: the RNS form of x·M mod p, as
// Params.ToRNS(Params.ToMont(x)) computes it, without math/big division.
func (su *Setup) InputElement(j Job) rns.Element {
	el := su.Params.NewElement()
	h := su.host
	if h == nil {
		// x < p < M, M̃: ToRNS cannot fail
		_ = su.Params.ToRNS(&el, su.Params.ToMont(j.X))
		return el
	}
	n := su.Params.N
	var buf [2*maxInline + 1]uint32
	r := buf[:]
	if 2*n+1 > len(buf) {
		r = make([]uint32, 2*n+1)
	}
	v := h.montInput(su.Params, j.X)
	h.residues(r, &v)
	copy(el.B, r[:n])
	copy(el.BT, r[n:2*n])
	el.E = r[2*n]
	return el
}

// maxInline is the channel count up to which the input conversion works in
// a stack buffer.
const maxInline = 32

// Projective is the ladder's output: P = k·G = (XP : ZP) and Q = P + G =
// (XQ : ZQ), as integers mod p sharing any one scaling (the Montgomery
// factor cancels in X/Z).
type Projective struct{ XP, ZP, XQ, ZQ *big.Int }

// Channels are the B residues of X_P, Z_P, X_Q, Z_Q: what the kernel
// returns and what the CPU twin must reproduce bit for bit.
type Channels [4][]uint32

// Projective converts channels to integers (CRT, then mod p).
func (su *Setup) Projective(ch Channels) Projective {
	var v [4]*big.Int
	for i := range ch {
		v[i] = su.Params.FromRNS(ch[i])
		v[i].Mod(v[i], su.Curve.P)
	}
	return Projective{v[0], v[1], v[2], v[3]}
}
