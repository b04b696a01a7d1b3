package ecdsa_test

import (
	"context"
	"fmt"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/wycheproof"
)

// wycheproofCounts is what one file did on one backend: the valid cases that
// verified, and the invalid ones rejected by their length (P1363), by
// ParseDER, or by Verify.
type wycheproofCounts struct {
	Valid                       int
	RejectedLength, RejectedDER int
	RejectedVerify              int
	SampledOut                  int
}

func (n wycheproofCounts) String() string {
	return fmt.Sprintf("valid %d, invalid rejected %d (length %d, DER %d, verify %d)",
		n.Valid, n.RejectedLength+n.RejectedDER+n.RejectedVerify, n.RejectedLength, n.RejectedDER, n.RejectedVerify)
}

// runWycheproof verifies every case of f in one call of ecdsa.Verify on e, and returns the counts, or an error naming the
// first case whose outcome is not Wycheproof's: a valid case must verify;
// an invalid one must have a P1363 signature of the wrong length, fail
// ParseDER, or be Invalid. (The files have no acceptable case; one would
// be allowed either outcome.)
func runWycheproof(ctx context.Context, e *ecmul.Engine, f *wycheproof.ECDSAFile) (wycheproofCounts, error) {
	var n wycheproofCounts
	c := e.Curve()
	L := c.ByteLen()
	h, err := wycheproof.NewHash(f.Hash)
	if err != nil {
		return n, err
	}
	type item struct {
		tc     *wycheproof.ECDSACase
		digest []byte
	}
	var items []item
	var digests [][]byte
	var sigs, keys []byte
	for gi := range f.Groups {
		g := &f.Groups[gi]
		for ci := range g.Cases {
			tc := &g.Cases[ci]
			rs := tc.Sig
			if f.P1363 {
				if len(rs) != 2*L {
					if tc.Result == wycheproof.Valid {
						return n, fmt.Errorf("tcId %d (%s): a valid signature of %d bytes, not %d", tc.TcID, tc.Comment, len(rs), 2*L)
					}
					n.RejectedLength++
					continue
				}
			} else if rs, err = ecdsa.ParseDER(tc.Sig, c); err != nil {
				if tc.Result == wycheproof.Valid {
					return n, fmt.Errorf("tcId %d (%s): ParseDER: %v", tc.TcID, tc.Comment, err)
				}
				n.RejectedDER++
				continue
			}
			h.Reset()
			h.Write(tc.Msg)
			d := h.Sum(nil)
			items = append(items, item{tc, d})
			digests = append(digests, d)
			sigs = append(sigs, rs...)
			keys = append(keys, g.Key...)
		}
	}
	verdicts := make([]ecdsa.Verdict, len(items))
	if err := ecdsa.Verify(ctx, e, verdicts, digests, sigs, keys); err != nil {
		return n, err
	}
	for j, it := range items {
		switch v := verdicts[j]; {
		case it.tc.Result == wycheproof.Valid && v == ecdsa.Valid:
			n.Valid++
		case it.tc.Result == wycheproof.Invalid && v == ecdsa.Invalid:
			n.RejectedVerify++
		case it.tc.Result == wycheproof.Acceptable && (v == ecdsa.Valid || v == ecdsa.Invalid):
		default:
			return n, fmt.Errorf("tcId %d (%s, %v): %s, want %s", it.tc.TcID, it.tc.Comment, it.tc.Flags, v, it.tc.Result)
		}
	}
	return n, nil
}
