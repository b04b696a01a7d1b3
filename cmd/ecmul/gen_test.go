package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// TestGenFeedsMul generates lines in every format and runs them through
// mul: every line is valid, and mul's answers are the reference's.
func TestGenFeedsMul(t *testing.T) {
	for _, c := range curves.All() {
		for _, f := range stream.LineFormats {
			for _, compressed := range []bool{false, true} {
				if compressed && f != stream.SEC1 {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/compressed=%v", c.Name(), f, compressed), func(t *testing.T) {
					args := []string{"gen", "--curve", curveFlag(c), "--n", "40", "--pool", "8", "--format", string(f)}
					if compressed {
						args = append(args, "--compressed")
					}
					code, gen, errOut := cli(t, "", args...)
					require.Equal(t, exitOK, code, errOut)
					lines := strings.Split(strings.TrimSuffix(gen, "\n"), "\n")
					require.Len(t, lines, 40)

					var want strings.Builder
					points := map[string]bool{}
					for _, l := range lines {
						p, k, err := stream.ParseLine(c, f, l)
						require.NoError(t, err, l)
						require.Positive(t, k.Sign())
						require.Negative(t, k.Cmp(c.N()))
						if f != stream.JSONL {
							require.Len(t, strings.Fields(l)[0], 2*c.ByteLen(), "scalars are zero-padded")
						}
						points[p.X.String()] = true
						x, y, ok, err := c.ReferenceScalarMult(p.X, p.Y, k)
						require.NoError(t, err)
						require.True(t, ok)
						want.WriteString(formatCase{x: fieldHex(c, x), y: fieldHex(c, y)}.outputLine(f, false) + "\n")
					}
					require.Greater(t, len(points), 3, "points come from the pool")
					require.LessOrEqual(t, len(points), 8)

					code, out, errOut := cli(t, gen, "mul", "--curve", curveFlag(c), "--backend", "cpu", "--format", string(f))
					require.Equal(t, exitOK, code, errOut)
					require.Equal(t, want.String(), out)
				})
			}
		}
	}
}

// TestGenDocExample: the example of docs/cli.md's gen section shows the
// command's output, line for line.
func TestGenDocExample(t *testing.T) {
	command, shown := cliExample(t, "gen")
	args, ok := strings.CutPrefix(command, "ecmul ")
	require.True(t, ok, command)
	code, stdout, stderr := cli(t, "", strings.Fields(args)...)
	require.Zero(t, code, stderr)
	require.Equal(t, strings.Join(shown, "\n")+"\n", stdout)
}

func TestGenSeed(t *testing.T) {
	gen := func(args ...string) string {
		code, out, errOut := cli(t, "", append([]string{"gen", "--curve", "p256", "--n", "50"}, args...)...)
		require.Equal(t, exitOK, code, errOut)
		return out
	}
	a := gen("--seed", "42")
	require.Equal(t, a, gen("--seed", "42"), "a seed names a data set")
	require.NotEqual(t, a, gen("--seed", "43"))
	require.True(t, strings.HasPrefix(a, gen("--seed", "42", "--n", "10")), "a shorter run is a prefix of a longer one")
	require.Equal(t, "", gen("--n", "0"))

	// --out writes the same lines to a file.
	path := filepath.Join(t.TempDir(), "items.txt")
	code, out, _ := cli(t, "", "gen", "--curve", "p256", "--n", "50", "--seed", "42", "--out", path)
	require.Equal(t, exitOK, code)
	require.Empty(t, out)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, a, string(b))
	code, _, errOut := cli(t, "", "gen", "--out", filepath.Join(t.TempDir(), "no", "dir", "x"))
	require.Equal(t, exitFail, code)
	require.NotEmpty(t, errOut)
}

// TestScalarSampler draws scalars below an order just above a power of
// two, where half the draws are rejected, and below the real curves' orders.
func TestScalarSampler(t *testing.T) {
	awkward := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 200), big.NewInt(3))
	orders := []*big.Int{awkward}
	for _, c := range curves.All() {
		orders = append(orders, c.N())
	}
	for _, n := range orders {
		s := newScalarSampler(n)
		rng := newRNG(5)
		top := 0
		for range 2000 {
			k := new(big.Int).SetBytes(s.next(rng))
			require.Positive(t, k.Sign())
			require.Negative(t, k.Cmp(n))
			if k.BitLen() == n.BitLen() {
				top++
			}
		}
		if n != awkward {
			require.Positive(t, top, "n = %x: the top bit is reached", n)
		}
	}
}

// TestGenLinesAnyCores: over several blocks of genBlock lines, formatted in
// parts on all cores, gen writes the lines of a one-line-at-a-time loop over
// the same draws, whatever GOMAXPROCS, in every format.
func TestGenLinesAnyCores(t *testing.T) {
	c := curves.P224()
	const count, pool, seed = 2*genBlock + 17, 5, 11
	for _, format := range []stream.Format{stream.Hex, stream.Raw, stream.JSONL, stream.SEC1} {
		// the reference: draw and write one line at a time
		var want bytes.Buffer
		rng := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc908))
		gp := &genPool{s: sampler{c, seed}, points: make([]*curves.Point, pool)}
		ks := newScalarSampler(c.N())
		for range count {
			k := ks.next(rng)
			p := gp.point(rng.IntN(pool))
			var text []byte
			switch format {
			case stream.Raw:
				text = append(p.X.FillBytes(make([]byte, c.ByteLen())), p.Y.FillBytes(make([]byte, c.ByteLen()))...)
			case stream.SEC1:
				text = hex.AppendEncode(nil, c.EncodeSEC1(p, false))
			case stream.JSONL:
				text = stream.AppendCoordinate(append(text, `","x":"`...), c, p.X)
				text = append(stream.AppendCoordinate(append(text, `","y":"`...), c, p.Y), `"}`...)
			default:
				text = stream.AppendCoordinate(append(stream.AppendCoordinate(nil, c, p.X), ' '), c, p.Y)
			}
			switch format {
			case stream.Raw:
				want.Write(k)
				want.Write(text)
			case stream.JSONL:
				fmt.Fprintf(&want, "{\"scalar\":\"%x%s\n", k, text)
			default:
				fmt.Fprintf(&want, "%x %s\n", k, text)
			}
		}
		for _, procs := range []int{1, 4} {
			prev := runtime.GOMAXPROCS(procs)
			var got bytes.Buffer
			_, err := genItems(context.Background(), &got, c, count, seed, format, false, pool)
			runtime.GOMAXPROCS(prev)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want.Bytes(), got.Bytes()), "%s, GOMAXPROCS %d", format, procs)
		}
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

var errWriteFailed = errors.New("write failed")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errWriteFailed
	}
	f.n -= len(p)
	return len(p), nil
}

// TestGenStopsOnWriteError: a write that fails in the middle of a long run,
// while later blocks are being drawn, ends gen with that error.
func TestGenStopsOnWriteError(t *testing.T) {
	c := curves.P224()
	for _, after := range []int{0, 1 << 20, 5 << 20} {
		_, err := genItems(context.Background(), &failAfter{n: after}, c, 8*genBlock, 1, stream.Hex, false, 16)
		require.ErrorIs(t, err, errWriteFailed, "failing after %d bytes", after)
	}
}
