package ecdsasign

import "github.com/rnsec/ecmul/internal/fp"

// nonce writes item i's nonce into k (L bytes): the candidate number skip
// in [1, n − 1] of its DRBG (RFC 6979 §3.2 step h; skip counts the nonces
// refused for r = 0 or s = 0). A candidate is the DRBG's next L bytes,
// whose bitlen(n) leftmost bits are the candidate integer (bits2int).
func (b *batch) nonce(k []byte, st *step, i, skip int) {
	o := b.o
	d := drbgPool.Get().(*drbg)
	defer drbgPool.Put(d)
	defer d.wipe()
	h1 := d.h1[:o.size]
	b.putH1(h1, i)
	var extra []byte
	if st.extra != nil {
		extra = st.extra[(i-st.lo)*ExtraBytes : (i-st.lo+1)*ExtraBytes]
	}
	h, _ := hashFor(b.opt.Hash, len(b.digests[i])) // checked by checkItem
	d.seed(h, b.key(i), h1, extra)
	for {
		d.generate(k)
		// public: a refused candidate is the RFC's retry
		if o.inRange(o.bits2int(k)) != 0 {
			if skip == 0 {
				return
			}
			skip--
		}
		d.next()
	}
}

// finish computes item i's signature from its nonce's inverse and x(k·G),
// at slot j of the round, and reports whether r or s is 0 (the item goes round
// again). An item without a point gets ErrNoPoint.
func (b *batch) finish(st *step, i, j int) (again bool) {
	o, L := b.o, b.o.size
	if !st.ok[j] {
		b.errs[i] = b.itemError(i, ErrNoPoint)
		clear(b.sig(i))
		return false
	}
	r := o.reduce(fp.LimbsFromBytes(st.xs[j*L : (j+1)*L])) // x < 2^(8L) < 2n
	d := fp.LimbsFromBytes(b.key(i))
	e := o.bits2int(b.digests[i])
	s := o.signature(&st.kinv[j], d, r, e, b.opt.LowS)
	if zeroMask(r)|zeroMask(s) != 0 { // public: the RFC's retry
		return true
	}
	sig := b.sig(i)
	fp.PutLimbs(sig[:L], r)
	fp.PutLimbs(sig[L:], s)
	return false
}
