package rns

import "fmt"

// ChannelBits is the width of every RNS channel: moduli are 2^16 − c.
const ChannelBits = 16

// Modulus is one RNS channel m = 2^16 − c with the number of folds that
// provably bring any 32-bit value below 2m (see FoldsFor).
type Modulus struct {
	M     uint32 // the modulus 2^16 − C
	C     uint32 // odd, small
	Folds int    // folds needed for a 32-bit input, proved by FoldsFor
}

// NewModulus returns the channel 2^16 − c with its proved fold count.
func NewModulus(c uint32) (Modulus, error) {
	if c == 0 || c%2 == 0 || c >= 1<<(ChannelBits-1) {
		return Modulus{}, fmt.Errorf("rns: c = %d: want an odd c below 2^15", c)
	}
	m := Modulus{M: 1<<ChannelBits - c, C: c}
	folds, ok := m.FoldsFor(1<<32 - 1)
	if !ok {
		return Modulus{}, fmt.Errorf("rns: c = %d: fold reduction does not converge", c)
	}
	m.Folds = folds
	return m, nil
}

// foldBound returns the largest value c·hi + lo can take over all z ≤ bound,
// where hi = z >> 16 and lo = z & 0xffff.
func (m Modulus) foldBound(bound uint64) uint64 {
	c := uint64(m.C)
	hi, lo := bound>>ChannelBits, bound&0xffff
	best := c*hi + lo // z = bound itself
	if hi > 0 {
		// one step down in hi frees the low half to be all ones
		if alt := c*(hi-1) + 0xffff; alt > best {
			best = alt
		}
	}
	return best
}

// FoldsFor returns how many folds z ← c·(z>>16) + (z&0xffff) bring every
// z ≤ bound below 2m, after which one min(z, z−m) makes z canonical. The
// count is derived from the exact maximum after each fold (foldBound), so it
// is a proof for all inputs up to bound, not an estimate. ok is false if the
// folds stop shrinking the bound before reaching 2m.
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
// unsigned min, exactly as the kernel does it.
func (m Modulus) Reduce(z uint32) uint32 {
	for range m.Folds {
		z = m.C*(z>>ChannelBits) + z&0xffff
	}
	return minU32(z, z-m.M)
}

// Reduce64 returns z mod m for a 64-bit sum (the base-extension accumulators).
func (m Modulus) Reduce64(z uint64) uint32 { return uint32(z % uint64(m.M)) }

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
func (m Modulus) Mul(a, b uint32) uint32 { return m.Reduce(a * b) }
