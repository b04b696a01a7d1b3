package rns

import "fmt"

// ChannelBits is the default width of an RNS channel, the paper's: moduli
// 2^16 − c, whose products fit 32 bits.
const ChannelBits = 16

// WideChannelBits is the width of the wide channels: moduli 2^30 − c, whose
// products fit 60 bits, so a base extension's sum of up to 16 of them fits
// one 64-bit accumulator.
const WideChannelBits = 30

// Widths lists the supported channel widths, the default first.
var Widths = []int{ChannelBits, WideChannelBits}

// Modulus is one RNS channel m = 2^Bits − c with the number of folds that
// provably bring any input of its reduction below 2m (see FoldsFor): a
// 32-bit value for 16-bit channels, the value c'·hi + lo that a 64-bit value
// hi·2^32 + lo is first mapped to, c' = 2^32 mod m, for wide ones (Reduce64).
type Modulus struct {
	M     uint32 // the modulus 2^Bits − C
	C     uint32 // odd, small; 0 for 2^WideChannelBits, the last modulus of a wide B̃ (PowerOfTwo)
	Bits  int    // the channel width: ChannelBits or WideChannelBits
	Folds int    // folds needed for the reduction's input, proved by FoldsFor
}

// NewModulus returns the 16-bit channel 2^16 − c with its proved fold count.
func NewModulus(c uint32) (Modulus, error) { return NewModulusBits(ChannelBits, c) }

// NewModulusBits returns the channel 2^bits − c, bits 16 or 30, with its
// proved fold count.
func NewModulusBits(bits int, c uint32) (Modulus, error) {
	if bits != ChannelBits && bits != WideChannelBits {
		return Modulus{}, fmt.Errorf("rns: %d-bit channels: want %d or %d", bits, ChannelBits, WideChannelBits)
	}
	pow2 := c == 0 && bits == WideChannelBits
	if !pow2 && (c%2 == 0 || c >= 1<<(ChannelBits-1)) {
		return Modulus{}, fmt.Errorf("rns: c = %d: want an odd c below 2^15, or 0 for 2^%d", c, WideChannelBits)
	}
	m := Modulus{M: 1<<bits - c, C: c, Bits: bits}
	folds, ok := m.FoldsFor(m.reductionInput())
	if !ok {
		return Modulus{}, fmt.Errorf("rns: c = %d: fold reduction does not converge", c)
	}
	m.Folds = folds
	return m, nil
}

// PowerOfTwo reports whether m is 2^Bits: its reductions keep the low
// Bits bits, and its products and sums need only their low 32-bit words.
func (m Modulus) PowerOfTwo() bool { return m.C == 0 }

// reductionInput returns the largest value the folds of Reduce or Reduce64
// start from: 2^32 − 1 for 16-bit channels; for wide ones the largest
// c'·hi + lo over 64-bit inputs, c' = 2^32 mod m = 4c.
func (m Modulus) reductionInput() uint64 {
	if m.Bits == ChannelBits {
		return 1<<32 - 1
	}
	return (1<<32-1)*m.wideHighWeight() + 1<<32 - 1
}

// wideHighWeight returns 2^32 mod m = 2^(32−Bits)·c for a wide channel.
func (m Modulus) wideHighWeight() uint64 { return uint64(m.C) << (32 - m.Bits) }

func (m Modulus) lowMask() uint64 { return 1<<m.Bits - 1 }

// foldBound returns the largest value c·hi + lo can take over all z ≤ bound,
// where hi = z >> Bits and lo = z mod 2^Bits.
func (m Modulus) foldBound(bound uint64) uint64 {
	c := uint64(m.C)
	hi, lo := bound>>m.Bits, bound&m.lowMask()
	best := c*hi + lo // z = bound itself
	if hi > 0 {
		// one step down in hi frees the low part to be all ones
		if alt := c*(hi-1) + m.lowMask(); alt > best {
			best = alt
		}
	}
	return best
}

// FoldsFor returns how many folds z ← c·(z>>Bits) + (z mod 2^Bits) bring
// every z ≤ bound below 2m, after which one min(z, z−m) makes z canonical.
// The count is derived from the exact maximum after each fold (foldBound),
// so it is a proof for all inputs up to bound, not an estimate. ok is false
// if the folds stop shrinking the bound before reaching 2m.
func (m Modulus) FoldsFor(bound uint64) (folds int, ok bool) {
	twoM := 2 * uint64(m.M)
	for bound >= twoM {
		next := m.foldBound(bound)
		if next >= bound {
			return folds, false
		}
		bound = next
		folds++
	}
	return folds, true
}

// minU32 is the branch-free unsigned minimum the channel arithmetic relies on.
func minU32(a, b uint32) uint32 {
	if a < b {
		return a
	}
	return b
}

// Reduce returns z mod m for any 32-bit z, with m.Folds folds and one
// unsigned min, exactly as the kernel does it for 16-bit channels (a wide
// channel takes Reduce64).
func (m Modulus) Reduce(z uint32) uint32 {
	if m.Bits != ChannelBits {
		return m.Reduce64(uint64(z))
	}
	for range m.Folds {
		z = m.C*(z>>ChannelBits) + z&0xffff
	}
	return minU32(z, z-m.M)
}

// Reduce64 returns z mod m for any 64-bit z. A wide channel computes it as
// the kernel does: hi·2^32 + lo ≡ hi·(2^32 mod m) + lo, then m.Folds folds
// and one unsigned min; a 16-bit channel divides. Each fold
// c·(z >> Bits) + (z mod 2^Bits) = z − (z >> Bits)·m is taken in 32-bit
// words, lo32(z) − (z >> Bits)·m, exact because the fold is below 2^32
// (Params: "wide fold in 32-bit words").
func (m Modulus) Reduce64(z uint64) uint32 {
	if m.Bits == ChannelBits {
		return uint32(z % uint64(m.M))
	}
	z = (z>>32)*m.wideHighWeight() + z&(1<<32-1)
	for range m.Folds {
		z = uint64(uint32(z) - uint32(z>>m.Bits)*m.M)
	}
	r := uint32(z)
	return minU32(r, r-m.M)
}

// Add returns (a + b) mod m for a, b < m: min(s, s − m) on unsigned words.
func (m Modulus) Add(a, b uint32) uint32 {
	s := a + b
	return minU32(s, s-m.M)
}

// Sub returns (a − b) mod m for a, b < m: min(d, d + m) on unsigned words.
func (m Modulus) Sub(a, b uint32) uint32 {
	d := a - b
	return minU32(d, d+m.M)
}

// Mul returns a·b mod m for a, b < m.
func (m Modulus) Mul(a, b uint32) uint32 {
	if m.Bits != ChannelBits {
		return m.Reduce64(uint64(a) * uint64(b))
	}
	return m.Reduce(a * b)
}
