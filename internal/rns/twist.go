package rns

import (
	"fmt"
	"math/big"
)

// The twist of wide bases (after Kawamura, Komano, Shimizu and Yonemura,
// "RNS Montgomery reduction algorithms using quadratic residuosity", 2019).
// The first step of the multiplication computes q_j = x_j·y_j·NegR_j in B,
// NegR_j = −|(p·M_j)^{-1}|_{m_j}. When every NegR_j is a square σ_j² mod m_j,
// B residues are stored as x̂_j = x_j·σ_j, so that x̂_j·ŷ_j = q_j and the
// multiplication by NegR disappears; the second extension's rows into B and
// the α correction carry σ_j, so that its output is again in stored form.
// Wide bases are chosen so: B is the first n primes of the candidate list,
// in lexicographic order of their positions, whose NegR_j are all squares.

// NegR returns NegR_j = −|(p·M_j)^{-1}|_{m_j} for channel j of B.
func (p *Params) NegR(j int) uint32 { return negR(p.P, p.B, j) }

func negR(prime *big.Int, b Basis, j int) uint32 {
	m := big.NewInt(int64(b.Moduli[j].M))
	part := new(big.Int).Quo(b.M, m)
	r := new(big.Int).ModInverse(part.Mul(part, prime), m)
	return uint32(new(big.Int).Sub(m, r).Uint64()) % b.Moduli[j].M
}

// Twisted reports whether B residues are stored twisted (wide channels).
func (p *Params) Twisted() bool { return p.Wide() }

// twists returns σ_j, the smaller square root of NegR_j mod the prime m_j,
// for every channel of B; all ones when the system is not twisted. It fails
// when some NegR_j is not a square (or m_j not prime).
func twists(prime *big.Int, b Basis, twisted bool) ([]uint32, error) {
	s := make([]uint32, len(b.Moduli))
	for j, mod := range b.Moduli {
		s[j] = 1
		if !twisted {
			continue
		}
		m := big.NewInt(int64(mod.M))
		root := new(big.Int).ModSqrt(big.NewInt(int64(negR(prime, b, j))), m)
		if root == nil || !m.ProbablyPrime(20) {
			return nil, fmt.Errorf("rns: NegR of modulus %d is not a square mod a prime", mod.M)
		}
		if other := new(big.Int).Sub(m, root); other.Cmp(root) < 0 {
			root = other
		}
		s[j] = uint32(root.Uint64())
	}
	return s, nil
}

// twistedBases returns B and B̃ of n moduli each for a twisted system: B is
// the first n-subset, in lexicographic order of positions, of the prime
// candidates whose NegR_j are all squares, B̃ the first n − 1 other
// candidates and then 2^30 (WideTop). ok is false when no subset qualifies.
//
// Legendre symbols are multiplicative and a unit and its inverse have the
// same symbol, so NegR_j is a square mod m_j exactly when
// (−p/m_j)·Π_{k≠j} (m_k/m_j) = 1: the search runs on a table of signs.
func twistedBases(prime *big.Int, cands []Modulus, n int) (b, bt []Modulus, ok bool) {
	var primes []int // positions in cands
	for i, c := range cands {
		if big.NewInt(int64(c.M)).ProbablyPrime(20) {
			primes = append(primes, i)
		}
	}
	k := len(primes)
	negP := new(big.Int).Neg(prime)
	base := make([]int, k)
	sign := make([][]int, k) // sign[a][b] = (m_b / m_a)
	for a, ia := range primes {
		ma := big.NewInt(int64(cands[ia].M))
		base[a] = big.Jacobi(new(big.Int).Mod(negP, ma), ma)
		sign[a] = make([]int, k)
		for c, ic := range primes {
			sign[a][c] = big.Jacobi(big.NewInt(int64(cands[ic].M)), ma)
		}
	}
	pick := make([]int, 0, n)
	var search func(from int) bool
	search = func(from int) bool {
		if len(pick) == n {
			for _, a := range pick {
				s := base[a]
				for _, c := range pick {
					if c != a {
						s *= sign[a][c]
					}
				}
				if s != 1 {
					return false
				}
			}
			return true
		}
		for a := from; a <= k-(n-len(pick)); a++ {
			pick = append(pick, a)
			if search(a + 1) {
				return true
			}
			pick = pick[:len(pick)-1]
		}
		return false
	}
	if !search(0) {
		return nil, nil, false
	}
	inB := map[int]bool{}
	for _, a := range pick {
		inB[primes[a]] = true
		b = append(b, cands[primes[a]])
	}
	for i, c := range cands {
		if len(bt) < n-1 && !inB[i] {
			bt = append(bt, c)
		}
	}
	return b, append(bt, wideTop), true
}

// wideTop is WideTop, with the folds NewModulusBits proves.
var wideTop = func() Modulus {
	m, err := NewModulusBits(WideChannelBits, 0)
	if err != nil {
		panic(err)
	}
	return m
}()

// WideTop returns 2^30, the last modulus of every wide B̃: its channel's
// products and sums need only their low 32-bit words (the pair mapping's
// channel 8 takes them so), and α, found from the ξ̃'s top bits
// (PairAlpha), needs no odd M̃.
func WideTop() Modulus { return wideTop }

// twistBound: every σ_j of B squares to NegR_j mod m_j (a count of the
// channels where it does not, which must be zero), so that x̂_j·ŷ_j is q_j.
func (p *Params) twistBound() Bound {
	wrong := 0
	if len(p.Twist) != len(p.B.Moduli) {
		wrong = len(p.B.Moduli)
	}
	for j, mod := range p.B.Moduli[:min(len(p.Twist), len(p.B.Moduli))] {
		s := uint64(p.Twist[j])
		if s*s%uint64(mod.M) != uint64(p.NegR(j)) || !big.NewInt(int64(mod.M)).ProbablyPrime(20) {
			wrong++
		}
	}
	return lte("twist squares NegR", "σ_j² ≡ −(p·M_j)^{-1} (mod m_j), m_j prime, for every channel of B: stored residues x·σ_j multiply to q_j; channels failing",
		big.NewInt(int64(wrong)), big.NewInt(0))
}
