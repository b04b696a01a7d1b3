package ladder

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/rns"
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
	// Bits is the number of ladder iterations, the same for every scalar:
	// t = bitlen(n) for Paper, t + 1 for CoZ (see LadderScalar).
	Bits int

	host  *hostField // field arithmetic for the host conversions
	order *big.Int   // the group order n, read once from the curve
	coZ   *coZRule   // the co-Z ladder scalar's choice of multiple of n; nil for Paper
	comb  *combTable // the comb's multiples of G; nil for the ladders
	bytes *bytesPath // the bytes path's constants; nil when the curve has none
}

// coZRule holds the constants of the co-Z ladder scalar's rule.
type coZRule struct {
	high   *big.Int // n − CoZHigh
	nm1    *big.Int // n − 1
	n2, n3 *big.Int // 2n, 3n
}

func newCoZRule(n *big.Int) *coZRule {
	return &coZRule{high: new(big.Int).Sub(n, big.NewInt(CoZHigh)), nm1: new(big.Int).Sub(n, big.NewInt(1)),
		n2: new(big.Int).Lsh(n, 1), n3: new(big.Int).Mul(n, big.NewInt(3))}
}

// fixed returns the fixed result of k mod n in kp.
func (r *coZRule) fixed(kp *big.Int) Fixed {
	switch {
	case kp.Sign() == 0:
		return FixedInfinity
	case kp.Cmp(r.nm1) == 0:
		return FixedNegBase
	}
	return FixedNone
}

// NewSetup builds and proves the default ladder for c.
func NewSetup(c *curves.Curve) (*Setup, error) { return NewSetupKind(c, DefaultKind) }

// NewSetupKind builds and proves the ladder of schedule kind for c, in an
// RNS of 16-bit channels.
func NewSetupKind(c *curves.Curve, kind Kind) (*Setup, error) {
	return NewSetupBits(c, kind, rns.ChannelBits)
}

// NewSetupBits builds and proves the ladder of schedule kind for c, in an
// RNS of channelBits-wide channels (rns.Widths).
func NewSetupBits(c *curves.Curve, kind Kind, channelBits int) (*Setup, error) {
	par, err := rns.NewParamsBits(c.P(), channelBits)
	if err != nil {
		return nil, fmt.Errorf("ladder: %s: %w", c.Name(), err)
	}
	s, k, err := NewSchedule(kind, c.A(), c.B(), par)
	if err != nil {
		return nil, fmt.Errorf("ladder: %s: %w", c.Name(), err)
	}
	bits := c.N().BitLen()
	if kind.IsComb() {
		if err := ProveComb(c.N(), kind.CombWindow(), kind.CombWindows(c.N())); err != nil {
			return nil, fmt.Errorf("ladder: %s: %w", c.Name(), err)
		}
	}
	if kind == CoZ {
		bits++
		if err := ProveCoZScalars(c.N(), bits); err != nil {
			return nil, fmt.Errorf("ladder: %s: %w", c.Name(), err)
		}
	}
	host := newHostField(par, c.A(), c.B())
	if host == nil {
		return nil, fmt.Errorf("ladder: %s: p is outside the host arithmetic's range (2^64, 2^256)", c.Name())
	}
	su := &Setup{Curve: c, Params: par, Tables: basext.NewTables(par), Schedule: s, Consts: k, Bits: bits, host: host, order: c.N()}
	if kind == CoZ {
		su.coZ = newCoZRule(c.N())
	}
	if kind.IsComb() {
		host.unitY = true
		if su.comb, err = combTableFor(c, par, kind.CombWindow(), kind.CombWindows(c.N())); err != nil {
			return nil, fmt.Errorf("ladder: %s: %w", c.Name(), err)
		}
	}
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
	su.initBytesPath()
	return su, nil
}

// LadderScalar returns k' ≡ k (mod n) with k' in [2^L, 2^(L+1)), L =
// su.Bits: the ladder starts from (G, 2G) for the top bit and runs exactly L
// iterations, whatever k is.
//
// Paper (L = t = bitlen(n)): k mod n plus n or 2n; k ≡ 0 (mod n) gives the
// point at infinity like any other multiple of n.
//
// CoZ (L = t + 1): k mod n plus 3n, or plus 2n when k mod n >= n − 4. The
// co-Z formulas fail when the ladder meets Q = O, R = O or Q = −R, which
// happens exactly when a prefix ⌊k'/2^i⌋, i >= 1, is ≡ 0, −1 or (n−1)/2
// (mod n); ProveCoZScalars shows that this choice of k' avoids every such
// prefix unless k ≡ 0 or −1 (mod n), whose results Prepare fixes.
//
// The result is one allocation with room for its words. Scalars below
// 2^(t+3) <= 16n (those below n, and ladder scalars themselves) are reduced
// by at most 15 subtractions instead of a division.
func (su *Setup) LadderScalar(k *big.Int) *big.Int {
	kp, _ := su.ladderScalar(k)
	return kp
}

// ladderScalar is LadderScalar, also returning the fixed result of the
// co-Z ladder's scalars k ≡ 0 and −1 (mod n).
func (su *Setup) ladderScalar(k *big.Int) (*big.Int, Fixed) {
	n := su.order
	s := new(ladderScalar)
	kp := s.init()
	if k.Sign() >= 0 && k.BitLen() <= n.BitLen()+3 {
		kp.Set(k)
		for kp.Cmp(n) >= 0 {
			kp.Sub(kp, n)
		}
	} else {
		kp.Mod(k, n)
	}
	if su.coZ != nil {
		fixed := su.coZ.fixed(kp)
		return su.coZ.scalar(kp), fixed
	}
	if su.comb != nil {
		if kp.Sign() == 0 {
			return kp, FixedInfinity
		}
		return kp, FixedNone
	}
	kp.Add(kp, n)
	if kp.BitLen() <= su.Bits {
		kp.Add(kp, n)
	}
	return kp, FixedNone
}

// ladderScalar is a big.Int allocated together with the words it needs
// for values up to 2^(t+3), t <= 256, and one more: big.Int.Add makes room
// for a carry beyond its longer operand.
type ladderScalar struct {
	v big.Int
	w [(256+3+bits.UintSize-1)/bits.UintSize + 1]big.Word
}

// CoZHigh is how far below n a reduced scalar takes 2n instead of 3n on the
// co-Z ladder (ProveCoZScalars).
const CoZHigh = 4

// scalar turns k mod n in kp into the co-Z ladder scalar, in place.
func (r *coZRule) scalar(kp *big.Int) *big.Int {
	if kp.Cmp(r.high) >= 0 {
		return kp.Add(kp, r.n2)
	}
	return kp.Add(kp, r.n3)
}

// ProveCoZScalars checks, for ladders of L iterations, that coZRule gives
// every k in [0, n) a ladder scalar of exactly L+1 bits, and that no prefix
// ⌊k'/2^i⌋ (i >= 1) is ≡ 0, −1 or (n−1)/2 (mod n) unless k is 0 or n − 1.
// Only prefixes at or above (n−1)/2 can be, so only the few shifts i with
// 2^(L+1−i) > (n−1)/2 are looked at: every bad prefix d there stands for the
// 2^i ladder scalars d·2^i … d·2^i + 2^i − 1, each checked against the rule.
func ProveCoZScalars(n *big.Int, L int) error {
	one := big.NewInt(1)
	lo, hi := new(big.Int).Lsh(one, uint(L)), new(big.Int).Lsh(one, uint(L+1))
	nm1 := new(big.Int).Sub(n, one)
	rule := newCoZRule(n)
	// the rule is k + 3n on [0, n − CoZHigh) and k + 2n on [n − CoZHigh, n):
	// the ends of the two pieces bound every ladder scalar
	for _, k := range []*big.Int{big.NewInt(0), new(big.Int).Sub(n, big.NewInt(CoZHigh+1)), new(big.Int).Sub(n, big.NewInt(CoZHigh)), nm1} {
		kp := rule.scalar(new(big.Int).Set(k))
		if kp.Cmp(lo) < 0 || kp.Cmp(hi) >= 0 {
			return fmt.Errorf("co-Z ladder scalar of %v has %d bits, want %d", k, kp.BitLen(), L+1)
		}
	}
	half := new(big.Int).Rsh(nm1, 1)
	for i := 1; i <= L; i++ {
		top := new(big.Int).Lsh(one, uint(L+1-i)) // prefixes are below top
		if top.Cmp(half) <= 0 {
			break
		}
		bottom := new(big.Int).Lsh(one, uint(L-i))
		for _, r := range []*big.Int{big.NewInt(0), nm1, half} {
			// d = r + ℓn for every ℓ with bottom <= d < top
			d := new(big.Int).Sub(bottom, r)
			d.Add(d, nm1).Div(d, n).Mul(d, n).Add(d, r)
			for ; d.Cmp(top) < 0; d.Add(d, n) {
				for s := int64(0); s < 1<<i; s++ {
					kp := new(big.Int).Lsh(d, uint(i))
					kp.Add(kp, big.NewInt(s))
					k := new(big.Int).Mod(kp, n)
					if k.Sign() == 0 || k.Cmp(nm1) == 0 {
						continue
					}
					if rule.scalar(k).Cmp(kp) == 0 {
						return fmt.Errorf("co-Z ladder scalar of %v passes through an exceptional case", k)
					}
				}
			}
		}
	}
	return nil
}

func (s *ladderScalar) init() *big.Int {
	return s.v.SetBits(s.w[:0])
}

// Job is one prepared scalar multiplication: a base with x ≠ 0 and its ladder scalar.
type Job struct {
	X, Y   *big.Int // the base point, affine
	Scalar *big.Int // the ladder scalar, Bits+1 bits with the top one set
	// Fixed is the result for the scalars the co-Z ladder cannot compute
	// (k ≡ 0 or −1 mod n): the finish takes it instead of the ladder's output.
	Fixed Fixed
}

// Fixed names a result known without the ladder.
type Fixed uint8

const (
	FixedNone     Fixed = iota
	FixedInfinity       // k ≡ 0 (mod n): the point at infinity
	FixedNegBase        // k ≡ −1 (mod n): −G
)

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
	j := Job{X: x, Y: y}
	if x.Sign() == 0 {
		c := su.Curve
		j.X, j.Y = double(c, x, y)
		half := new(big.Int).ModInverse(big.NewInt(2), su.order)
		k = new(big.Int).Mul(k, half)
		k.Mod(k, su.order)
	}
	j.Scalar, j.Fixed = su.ladderScalar(k)
	return j, nil
}

// double returns 2·(x, y) in affine coordinates, for y ≠ 0 (always true on
// these prime-order curves).
func double(c *curves.Curve, x, y *big.Int) (*big.Int, *big.Int) {
	p := c.P()
	num := new(big.Int).Mul(x, x)
	num.Mul(num, big.NewInt(3)).Add(num, big.NewInt(c.A()))
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

// Channels are the B residues of the schedule's outputs (Schedule.Out):
// what the kernel returns and what the CPU twin must reproduce bit for bit.
type Channels [][]uint32
