package ecdsasign_test

import (
	"encoding/asn1"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/ecdsasign"
)

func TestAppendDER(t *testing.T) {
	cases := map[string]string{
		"0000":     "3006020100020100",
		"7f80":     "300702017f02020080",
		"00ff0001": "3007020200ff020101",
	}
	for sig, want := range cases {
		got, err := ecdsasign.AppendDER([]byte{0xaa}, unhex(t, sig))
		require.NoError(t, err)
		require.Equal(t, "aa"+want, hexOf(got), sig)
	}
	for _, n := range []int{1, 3, 66} {
		_, err := ecdsasign.AppendDER(nil, make([]byte, n))
		require.Error(t, err, "%d bytes", n)
	}
}

// FuzzAppendDER: the encoding of any r‖s is the one encoding/asn1 gives
// for the same two integers, and parses back to them.
func FuzzAppendDER(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add([]byte{0x80, 0x7f})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, sig []byte) {
		der, err := ecdsasign.AppendDER(nil, sig)
		if len(sig)%2 != 0 || len(sig) > 64 {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		type rs struct{ R, S *big.Int }
		h := len(sig) / 2
		want := rs{new(big.Int).SetBytes(sig[:h]), new(big.Int).SetBytes(sig[h:])}
		enc, err := asn1.Marshal(want)
		require.NoError(t, err)
		require.Equal(t, enc, der)
		var got rs
		rest, err := asn1.Unmarshal(der, &got)
		require.NoError(t, err)
		require.Empty(t, rest)
		require.Zero(t, want.R.Cmp(got.R))
		require.Zero(t, want.S.Cmp(got.S))
	})
}
