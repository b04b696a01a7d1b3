package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// summary is the items=… line of verify's output.
var summary = regexp.MustCompile(`(?m)^items=(\d+) mismatches=(\d+) item_errors=(\d+) seconds=[0-9.]+ engine_seconds=[0-9.]+ engine_op/s=\d+ reference_cores=\d+$`)

func TestVerifyBackends(t *testing.T) {
	type run struct {
		args []string
		n    int
	}
	runs := []run{
		{[]string{"--backend", "cpu"}, 300},
		{[]string{"--backend", "rns-cpu"}, 24},
		{[]string{"--backend", "rns-cpu", "--ext", "kawamura"}, 20},
	}
	if testing.Short() {
		runs = []run{{[]string{"--backend", "cpu"}, 60}, {[]string{"--backend", "rns-cpu"}, 18}}
	}
	for _, c := range curves.All() {
		for _, r := range runs {
			t.Run(c.Name()+"/"+strings.Join(r.args, " "), func(t *testing.T) {
				args := append([]string{"verify", "--curve", curveFlag(c), "--n", fmt.Sprint(r.n), "--chunk", "7"}, r.args...)
				code, out, errOut := cli(t, "", args...)
				require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
				require.Empty(t, errOut)
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				require.Len(t, lines, 3, out)
				require.Regexp(t, `^verify curve=`+regexp.QuoteMeta(c.Name())+` op=mul backend=`, lines[0])
				require.Contains(t, lines[0], fmt.Sprintf(" n=%d seed=1 chunk=7 references=", r.n))
				if c.Name() == "P-256" {
					require.Contains(t, lines[0], "references=crypto/elliptic,gnark-crypto")
				}
				if strings.Contains(strings.Join(r.args, " "), "rns-cpu") {
					require.Contains(t, lines[0], "ext=")
				}
				m := summary.FindStringSubmatch(lines[1])
				require.NotNil(t, m, lines[1])
				require.Equal(t, []string{fmt.Sprint(r.n), "0", "0"}, m[1:])
				require.Equal(t, "PASS", lines[2])
			})
		}
	}
}

// faultyEngine wraps a cpu engine and spoils the results of chosen items
// (by their index in the whole run).
type faultyEngine struct {
	eng    *ecmul.Engine
	offset int64 // index of the next batch's first item
	spoil  map[int64]func(*ecmul.Result)
}

func (f *faultyEngine) scalarMult(ctx context.Context, res []ecmul.Result, ks []*big.Int, pts []*ecmul.Point) error {
	err := f.eng.ScalarMult(ctx, res, ks, pts)
	for i := range res {
		if s := f.spoil[f.offset+int64(i)]; s != nil {
			s(&res[i])
		}
	}
	f.offset += int64(len(pts))
	return err
}

func TestVerifyReportsMismatches(t *testing.T) {
	for _, c := range []*curves.Curve{curves.P224(), curves.P256()} {
		for _, overlap := range []bool{false, true} {
			eng, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
			require.NoError(t, err)
			defer eng.Close()
			f := &faultyEngine{eng: eng, spoil: map[int64]func(*ecmul.Result){
				37: func(r *ecmul.Result) { r.X = new(big.Int).Add(r.X, big.NewInt(1)) },
				50: func(r *ecmul.Result) {
					*r = ecmul.Result{Err: errors.New("GPU fault")}
				},
				3: func(r *ecmul.Result) { *r = ecmul.Result{Infinity: true} },                     // 3·P is not infinity
				8: func(r *ecmul.Result) { *r = ecmul.Result{X: big.NewInt(1), Y: big.NewInt(2)} }, // n·P is infinity
				9: func(r *ecmul.Result) { r.Y = new(big.Int).Add(r.Y, c.P()) },
			}}
			var out, errOut bytes.Buffer
			cfg := verifyConfig{curve: c, n: 100, seed: 5, chunk: 16, overlap: overlap, header: "backend=test"}
			code := verifyRun(context.Background(), verifyEngine{mult: f.scalarMult}, cfg, &out, &errOut)
			require.Equal(t, exitFail, code, out.String())
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			require.Len(t, lines, 1+5+2, out.String())
			require.Equal(t, "FAIL", lines[len(lines)-1])
			m := summary.FindStringSubmatch(lines[len(lines)-2])
			require.NotNil(t, m, out.String())
			require.Equal(t, []string{"100", "4", "1"}, m[1:])

			w := 2 * c.ByteLen()
			line := regexp.MustCompile(fmt.Sprintf(`^mismatch index=(\d+) scalar=[0-9a-f]+ point=[0-9a-f]{%d},[0-9a-f]{%d} got=(.+) want=(\S+)$`, w, w))
			byIndex := map[string][2]string{}
			var order []string
			for _, l := range lines[1:6] {
				m := line.FindStringSubmatch(l)
				require.NotNil(t, m, l)
				byIndex[m[1]] = [2]string{m[2], m[3]}
				order = append(order, m[1])
			}
			require.Equal(t, []string{"3", "8", "9", "37", "50"}, order, "in index order")
			require.Equal(t, "infinity", byIndex["3"][0])
			require.NotEqual(t, "infinity", byIndex["3"][1])
			require.Equal(t, "infinity", byIndex["8"][1])
			require.Contains(t, byIndex["9"][0], "out-of-range")
			require.Equal(t, "error(GPU fault)", byIndex["50"][0])
			require.NotEqual(t, byIndex["37"][0], byIndex["37"][1])

			// The scalar and point of a mismatch line reproduce the item.
			items := newVerifyItems(c, 5)
			pts, ks := items.items(37, 38)
			require.Contains(t, lines[4], fmt.Sprintf("scalar=%x point=%s,%s ", ks[0], fieldHex(c, pts[0].X), fieldHex(c, pts[0].Y)))
		}
	}
}

func TestVerifyBatchError(t *testing.T) {
	c := curves.P224()
	calls := 0
	fail := func(ctx context.Context, res []ecmul.Result, ks []*big.Int, pts []*ecmul.Point) error {
		calls++
		if calls == 2 {
			return errors.New("device lost")
		}
		for i := range res {
			x, y, ok, err := c.ReferenceScalarMult(pts[i].X, pts[i].Y, ks[i])
			require.NoError(t, err)
			res[i] = ecmul.Result{X: x, Y: y, Infinity: !ok}
		}
		return nil
	}
	for _, overlap := range []bool{false, true} {
		calls = 0
		var out, errOut bytes.Buffer
		code := verifyRun(context.Background(), verifyEngine{mult: fail}, verifyConfig{curve: c, n: 100, seed: 1, chunk: 10, overlap: overlap}, &out, &errOut)
		require.Equal(t, exitFail, code)
		require.Contains(t, errOut.String(), "device lost")
		require.Contains(t, out.String(), "items=10 mismatches=0 item_errors=0 ")
		require.True(t, strings.HasSuffix(out.String(), "FAIL\n"))
	}
}

// TestVerifyItems checks the generated items: valid points, the edge
// scalars first, and item i the same whatever the chunks.
func TestVerifyItems(t *testing.T) {
	for _, c := range curves.All() {
		v := newVerifyItems(c, 9)
		const n = 400
		pts, ks := v.items(0, n)
		require.Len(t, pts, n)
		edges := edgeScalars(c)
		for i, e := range edges {
			require.Zero(t, e.Cmp(ks[i]), "item %d", i)
		}
		geN, edgeLater := 0, 0
		for i := range pts {
			require.NoError(t, c.Validate(pts[i].X, pts[i].Y))
			require.LessOrEqual(t, ks[i].BitLen(), stream.MaxScalarBits)
			require.GreaterOrEqual(t, ks[i].Sign(), 0)
			if ks[i].Cmp(c.N()) >= 0 {
				geN++
			}
			if i >= len(edges) {
				for _, e := range edges {
					if e.Cmp(ks[i]) == 0 {
						edgeLater++
					}
				}
			}
			if i%verifyGroup != 0 {
				require.Same(t, pts[i-1], pts[i], "items of a group share a point")
			} else if i > 0 {
				require.False(t, (*curves.Point)(pts[i-1]).Equal((*curves.Point)(pts[i])), "each group has a fresh point")
			}
		}
		require.Greater(t, geN, 8)
		require.Positive(t, edgeLater)

		// The same items in other chunks.
		for _, chunk := range []int64{1, 7, 33, 100} {
			for lo := int64(0); lo < n; lo += chunk {
				hi := min(lo+chunk, n)
				p2, k2 := v.items(lo, hi)
				for j := range p2 {
					require.True(t, (*curves.Point)(pts[lo+int64(j)]).Equal((*curves.Point)(p2[j])))
					require.Zero(t, ks[lo+int64(j)].Cmp(k2[j]))
				}
			}
		}
		// Another seed, other items.
		p3, k3 := newVerifyItems(c, 10).items(0, n)
		require.False(t, (*curves.Point)(pts[0]).Equal((*curves.Point)(p3[0])))
		require.NotZero(t, ks[n-1].Cmp(k3[n-1]))
	}
}

// TestVerifyOverlapSameReport runs the same items with and without
// overlapping the engine and the references: the reports agree.
func TestVerifyOverlapSameReport(t *testing.T) {
	c := curves.Secp256k1()
	eng, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	defer eng.Close()
	var reports []string
	for _, overlap := range []bool{false, true} {
		f := &faultyEngine{eng: eng, spoil: map[int64]func(*ecmul.Result){
			11: func(r *ecmul.Result) { *r = ecmul.Result{X: c.Gx(), Y: c.Gy()} }, // 2n·P is infinity
			21: func(r *ecmul.Result) { *r = ecmul.Result{Infinity: true} },
			90: func(r *ecmul.Result) { r.Infinity, r.X, r.Y = true, nil, nil },
		}}
		var out bytes.Buffer
		code := verifyRun(context.Background(), verifyEngine{mult: f.scalarMult}, verifyConfig{curve: c, n: 120, seed: 3, chunk: 25, overlap: overlap}, &out, &bytes.Buffer{})
		require.Equal(t, exitFail, code)
		reports = append(reports, summary.ReplaceAllString(out.String(), "SUMMARY"))
	}
	require.Equal(t, reports[0], reports[1])
	require.Equal(t, 3, strings.Count(reports[0], "mismatch index="))
}
