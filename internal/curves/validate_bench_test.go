package curves_test

import (
	"math/big"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
)

// BenchmarkValidate measures the on-curve check every item of a batch
// passes before any arithmetic.
func BenchmarkValidate(b *testing.B) {
	for _, c := range []*curves.Curve{curves.P224(), curves.P256(), curves.Secp256k1()} {
		b.Run(c.Name(), func(b *testing.B) {
			x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), big.NewInt(12345))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := c.Validate(x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
