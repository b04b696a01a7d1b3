package fp

import "math/big"

// powChain raises to a fixed public exponent (Sqrt's, and p − 2 in the
// tests, where Fermat's inverse checks Inverse) with about one squaring per
// bit and a few multiplications per run of ones, where 4-bit windows would
// take one per window: x^(2^k − 1) for the lengths k that the exponent's
// first run of ones passes through on its way (k, 2k and 2k + 1 from k)
// are kept, and every later run of ones is made of them. For P-224's p − 2
// that is 223 squarings and 15 multiplications, against 224 and 70 with
// windows (4.5 against 5.7 µs on the development machine).
type powChain struct {
	steps []chainStep
	slots int // values kept: x^(2^k − 1) for the kept lengths k
}

// chainStep squares the accumulator squarings times, then multiplies it by
// kept value mul (none when mul < 0), then keeps it as value keep (none
// when keep < 0).
type chainStep struct {
	squarings, mul, keep int
}

// newPowChain builds the program of x^e for e > 0.
func newPowChain(e *big.Int) powChain {
	if e.Sign() <= 0 {
		panic("fp: a power chain needs a positive exponent")
	}
	var c powChain
	top := e.BitLen() - 1
	first := 0 // the first run's length
	for first <= top && e.Bit(top-first) == 1 {
		first++
	}
	// the first run, x^(2^first − 1), by the binary digits of first: from
	// y_k (kept), y_2k = y_k^(2^k)·y_k and y_2k+1 = y_2k^2·x
	kept := map[int]int{1: 0} // length → value
	c.slots = 1
	keep := func(k int) int { kept[k] = c.slots; c.slots++; return c.slots - 1 }
	k := 1
	for i := big.NewInt(int64(first)).BitLen() - 2; i >= 0; i-- {
		c.steps = append(c.steps, chainStep{k, kept[k], keep(2 * k)})
		k *= 2
		if first>>i&1 == 1 {
			c.steps = append(c.steps, chainStep{1, 0, keep(k + 1)})
			k++
		}
	}
	// the rest: zeros square, a run of ones is kept runs, longest first
	zeros := 0
	for i := top - first; i >= 0; {
		if e.Bit(i) == 0 {
			zeros++
			i--
			continue
		}
		run := 0
		for i-run >= 0 && e.Bit(i-run) == 1 {
			run++
		}
		i -= run
		for run > 0 {
			p := 1
			for l := range kept {
				if l <= run && l > p {
					p = l
				}
			}
			c.steps = append(c.steps, chainStep{zeros + p, kept[p], -1})
			zeros, run = 0, run-p
		}
	}
	if zeros > 0 {
		c.steps = append(c.steps, chainStep{zeros, -1, -1})
	}
	return c
}

// pow sets z = x^e for the chain's exponent e.
func (f *Field) pow(z, x *Element, c *powChain) {
	var buf [32]Element
	vals := buf[:]
	if c.slots > len(buf) {
		vals = make([]Element, c.slots)
	}
	acc := *x
	vals[0] = *x
	for _, s := range c.steps {
		for range s.squarings {
			f.Square(&acc, &acc)
		}
		if s.mul >= 0 {
			f.Mul(&acc, &acc, &vals[s.mul])
		}
		if s.keep >= 0 {
			vals[s.keep] = acc
		}
	}
	*z = acc
}
