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
	"github.com/rnsec/ecmul/ecdsa"
	"github.com/rnsec/ecmul/internal/curves"
)

// TestVerifyOps runs verify --op base, ecdsa and sign on the CPU backends:
// every item matches, the header names the operation and its references.
func TestVerifyOps(t *testing.T) {
	type run struct {
		op      string
		backend string
		n       int
	}
	runs := []run{{"base", "cpu", 120}, {"base", "rns-cpu", 40}, {"ecdsa", "cpu", 60}, {"ecdsa", "rns-cpu", 24}, {"sign", "cpu", 60}, {"sign", "rns-cpu", 24}}
	if testing.Short() {
		runs = []run{{"base", "cpu", 30}, {"base", "rns-cpu", 14}, {"ecdsa", "cpu", 12}, {"ecdsa", "rns-cpu", 9}, {"sign", "cpu", 12}, {"sign", "rns-cpu", 9}}
	}
	refs := map[string]map[string]string{
		"base":  {"P-224": "crypto/elliptic,textbook", "P-256": "crypto/elliptic,gnark-crypto,textbook", "secp256k1": "gnark-crypto,textbook"},
		"ecdsa": {"P-224": "crypto/ecdsa,textbook", "P-256": "crypto/ecdsa,textbook", "secp256k1": "gnark-crypto,textbook"},
		"sign":  {"P-224": "crypto/ecdsa,textbook", "P-256": "crypto/ecdsa,textbook", "secp256k1": "gnark-crypto,textbook"},
	}
	for _, c := range curves.All() {
		for _, r := range runs {
			t.Run(c.Name()+"/"+r.op+"/"+r.backend, func(t *testing.T) {
				code, out, errOut := cli(t, "", "verify", "--curve", curveFlag(c), "--op", r.op, "--backend", r.backend,
					"--n", fmt.Sprint(r.n), "--chunk", "7", "--seed", "4")
				require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
				require.Empty(t, errOut)
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				require.Len(t, lines, 3, out)
				require.Regexp(t, `^verify curve=`+regexp.QuoteMeta(c.Name())+` op=`+r.op+` backend=`+r.backend+` `, lines[0])
				require.Contains(t, lines[0], fmt.Sprintf(" n=%d seed=4 chunk=7 references=%s", r.n, refs[r.op][c.Name()]))
				m := summary.FindStringSubmatch(lines[1])
				require.NotNil(t, m, lines[1])
				require.Equal(t, []string{fmt.Sprint(r.n), "0", "0"}, m[1:])
				require.Equal(t, "PASS", lines[2])
			})
		}
	}
}

func TestVerifyOpUsage(t *testing.T) {
	for _, op := range []string{"signing", "", "mul,base"} {
		code, out, errOut := cli(t, "", "verify", "--backend", "cpu", "--op", op, "--n", "1")
		require.Equal(t, exitUsage, code, "%q", op)
		require.Empty(t, out)
		require.Contains(t, errOut, "ecmul verify: --op: unknown operation", "%q", op)
	}
	code, out, errOut := cli(t, "", "verify", "--backend", "cpu", "--op", "BASE", "--n", "2")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, " op=base ")
}

// faultyBase wraps a cpu engine's ScalarBaseMultBytes and spoils the
// outputs of chosen items (by their index in the whole run): their
// uncompressed encoding and status.
type faultyBase struct {
	eng    *ecmul.Engine
	offset int64
	spoil  map[int64]func(enc []byte, st *ecmul.Status)
}

func (f *faultyBase) base(ctx context.Context, out []byte, status []ecmul.Status, scalars []byte) error {
	err := f.eng.ScalarBaseMultBytes(ctx, out, status, scalars)
	size := len(out) / len(status)
	for i := range status {
		if s := f.spoil[f.offset+int64(i)]; s != nil {
			s(out[i*size:(i+1)*size], &status[i])
		}
	}
	f.offset += int64(len(status))
	return err
}

// TestVerifyBaseReportsMismatches: an engine whose k·G is wrong for a few
// items gets a mismatch line for each, in index order, and FAIL.
func TestVerifyBaseReportsMismatches(t *testing.T) {
	for _, c := range []*curves.Curve{curves.P224(), curves.Secp256k1()} {
		for _, overlap := range []bool{false, true} {
			eng, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
			require.NoError(t, err)
			defer eng.Close()
			edges := baseEdgeScalars(c)
			require.Zero(t, edges[8].Cmp(c.N()), "item 8 is k = n")
			g := c.EncodeSEC1(c.Generator(), false)
			f := &faultyBase{eng: eng, spoil: map[int64]func([]byte, *ecmul.Status){
				2:  func(enc []byte, st *ecmul.Status) { clear(enc); *st = ecmul.StatusInfinity },         // 2·G is not infinity
				8:  func(enc []byte, st *ecmul.Status) { copy(enc, g); *st = ecmul.StatusPoint },          // n·G is infinity
				33: func(enc []byte, _ *ecmul.Status) { enc[5] ^= 0x10 },                                  // a bit of x
				40: func(enc []byte, st *ecmul.Status) { clear(enc); *st = ecmul.StatusResultCheck },      // a fault
				41: func(enc []byte, _ *ecmul.Status) { enc[0] = 2 },                                      // not uncompressed
				77: func(enc []byte, _ *ecmul.Status) { copy(enc[1+c.ByteLen():], enc[1:1+c.ByteLen()]) }, // y = x
			}}
			var out, errOut bytes.Buffer
			cfg := verifyConfig{curve: c, op: opBase, n: 90, seed: 5, chunk: 16, overlap: overlap, header: "backend=test"}
			code := verifyRun(context.Background(), verifyEngine{base: f.base}, cfg, &out, &errOut)
			require.Equal(t, exitFail, code, out.String())
			require.Empty(t, errOut.String())
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			require.Len(t, lines, 1+6+2, out.String())
			require.True(t, strings.HasPrefix(lines[0], "verify curve="+c.Name()+" op=base backend=test n=90 "), lines[0])
			require.Equal(t, "FAIL", lines[len(lines)-1])
			m := summary.FindStringSubmatch(lines[len(lines)-2])
			require.NotNil(t, m, out.String())
			require.Equal(t, []string{"90", "4", "2"}, m[1:])

			gText := pointText(c, c.Gx(), c.Gy())
			line := regexp.MustCompile(`^mismatch index=(\d+) scalar=([0-9a-f]+) point=` + gText + ` got=(.+) want=(\S+)$`)
			var order []string
			byIndex := map[string][2]string{}
			for _, l := range lines[1:7] {
				m := line.FindStringSubmatch(l)
				require.NotNil(t, m, l)
				order = append(order, m[1])
				byIndex[m[1]] = [2]string{m[3], m[4]}
			}
			require.Equal(t, []string{"2", "8", "33", "40", "41", "77"}, order, "in index order")
			require.Equal(t, "infinity", byIndex["2"][0])
			require.Equal(t, gText, byIndex["8"][0])
			require.Equal(t, "infinity", byIndex["8"][1])
			require.Contains(t, byIndex["40"][0], "error(")
			require.Contains(t, byIndex["41"][0], "error(")
			require.NotEqual(t, byIndex["33"][0], byIndex["33"][1])
			require.NotEqual(t, byIndex["77"][0], byIndex["77"][1])
			// The scalar of a line is the item's.
			ks := newBaseItems(c, 5).scalars(33, 34)
			require.Contains(t, lines[3], fmt.Sprintf("scalar=%x ", ks[0]))
		}
	}
}

// TestVerifyBaseBatchError: a call of ScalarBaseMultBytes that fails as a
// whole ends the run: FAIL, the error on standard error, the items of the
// chunks before it counted.
func TestVerifyBaseBatchError(t *testing.T) {
	c := curves.P256()
	eng, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	defer eng.Close()
	calls := 0
	fail := func(ctx context.Context, out []byte, status []ecmul.Status, scalars []byte) error {
		if calls++; calls == 3 {
			return errors.New("device lost")
		}
		return eng.ScalarBaseMultBytes(ctx, out, status, scalars)
	}
	for _, overlap := range []bool{false, true} {
		calls = 0
		var out, errOut bytes.Buffer
		code := verifyRun(context.Background(), verifyEngine{base: fail}, verifyConfig{curve: c, op: opBase, n: 100, seed: 1, chunk: 10, overlap: overlap}, &out, &errOut)
		require.Equal(t, exitFail, code)
		require.Contains(t, errOut.String(), "device lost")
		require.Contains(t, out.String(), "items=20 mismatches=0 item_errors=0 ")
		require.True(t, strings.HasSuffix(out.String(), "FAIL\n"))
	}
}

// faultyECDSA wraps ecdsa.Verify on a cpu engine and replaces the verdicts
// of chosen items (by their index in the whole run).
type faultyECDSA struct {
	eng    *ecmul.Engine
	offset int64
	spoil  map[int64]ecdsa.Verdict
}

func (f *faultyECDSA) verify(ctx context.Context, verdicts []ecdsa.Verdict, digests [][]byte, sigs, keys []byte) error {
	err := ecdsa.Verify(ctx, f.eng, verdicts, digests, sigs, keys)
	for i := range verdicts {
		if v, ok := f.spoil[f.offset+int64(i)]; ok {
			verdicts[i] = v
		}
	}
	f.offset += int64(len(verdicts))
	return err
}

// TestVerifyECDSAReportsMismatches: a wrong verdict is a mismatch, a
// verdict other than valid or invalid an item error; each line names the
// item so that ecdsa-verify can take it again.
func TestVerifyECDSAReportsMismatches(t *testing.T) {
	for _, c := range []*curves.Curve{curves.P256(), curves.Secp256k1()} {
		for _, overlap := range []bool{false, true} {
			eng, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
			require.NoError(t, err)
			defer eng.Close()
			f := &faultyECDSA{eng: eng, spoil: map[int64]ecdsa.Verdict{
				0:  ecdsa.Invalid, // valid
				1:  ecdsa.Invalid, // high-s, valid
				2:  ecdsa.Valid,   // r = 0
				7:  ecdsa.Valid,   // a wrong key
				19: ecdsa.Fault,
				25: ecdsa.KeyNotOnCurve,
			}}
			var out, errOut bytes.Buffer
			cfg := verifyConfig{curve: c, op: opECDSA, n: 30, seed: 2, chunk: 8, overlap: overlap, header: "backend=test"}
			code := verifyRun(context.Background(), verifyEngine{ecdsa: f.verify}, cfg, &out, &errOut)
			require.Equal(t, exitFail, code, out.String())
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			require.Len(t, lines, 1+6+2, out.String())
			require.True(t, strings.HasPrefix(lines[0], "verify curve="+c.Name()+" op=ecdsa backend=test n=30 "), lines[0])
			m := summary.FindStringSubmatch(lines[len(lines)-2])
			require.NotNil(t, m, out.String())
			require.Equal(t, []string{"30", "4", "2"}, m[1:])
			require.Equal(t, "FAIL", lines[len(lines)-1])

			w := 2 * c.ByteLen()
			line := regexp.MustCompile(fmt.Sprintf(`^mismatch index=(\d+) case=(\S+) digest=([0-9a-f]+) r=([0-9a-f]+) s=([0-9a-f]+) key=([0-9a-f]{%d}),([0-9a-f]{%d}) got=(.+) want=(valid|invalid)$`, w, w))
			items := ecdsaItems{c, 2}.items(0, 30)
			var order []string
			for _, l := range lines[1:7] {
				m := line.FindStringSubmatch(l)
				require.NotNil(t, m, l)
				order = append(order, m[1])
				var i int
				fmt.Sscan(m[1], &i)
				it := items[i]
				require.Equal(t, caseNames[it.kind], m[2])
				require.Equal(t, fmt.Sprintf("%x", it.digest), m[3])
				require.Equal(t, fmt.Sprintf("%x", it.r), m[4])
				require.Equal(t, fmt.Sprintf("%x", it.s), m[5])
				require.Equal(t, verdictText(it.want()), m[9])
				// The line, fed to ecdsa-verify, gets the right verdict.
				code, got, errOut := cli(t, strings.Join([]string{m[3], m[4], m[5], m[6], m[7]}, " ")+"\n",
					"ecdsa-verify", "--curve", curveFlag(c), "--backend", "cpu")
				require.Equal(t, m[9]+"\n", got, errOut)
				require.Equal(t, map[string]int{"valid": exitOK, "invalid": exitFail}[m[9]], code)
			}
			require.Equal(t, []string{"0", "1", "2", "7", "19", "25"}, order, "in index order")
			require.Contains(t, lines[1], " case=valid ")
			require.Contains(t, lines[1], " got=invalid want=valid")
			require.Contains(t, lines[3], " case=r=0 ")
			require.Contains(t, lines[3], " got=valid want=invalid")
			require.Contains(t, lines[4], " case=wrong-key ")
			require.Contains(t, lines[5], " got=error(internal fault: ")
			require.Contains(t, lines[6], " got=error(public key: ")
		}
	}
}

// TestVerifyECDSABatchError: ecdsa.Verify failing as a whole ends the run.
func TestVerifyECDSABatchError(t *testing.T) {
	fail := func(context.Context, []ecdsa.Verdict, [][]byte, []byte, []byte) error {
		return errors.New("device lost")
	}
	var out, errOut bytes.Buffer
	code := verifyRun(context.Background(), verifyEngine{ecdsa: fail}, verifyConfig{curve: curves.P224(), op: opECDSA, n: 5, seed: 1, chunk: 10}, &out, &errOut)
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut.String(), "ecmul verify: device lost")
	require.Contains(t, out.String(), "items=0 mismatches=0 item_errors=0 ")
	require.True(t, strings.HasSuffix(out.String(), "FAIL\n"))
}

// TestVerifyBaseItems checks the items of base: the edge scalars first, 0,
// 1, n-1, n, n+1 and 2^(8L)-1 among them, every scalar of L bytes, some of
// n or more later, and item i the same whatever the chunks.
func TestVerifyBaseItems(t *testing.T) {
	for _, c := range curves.All() {
		n, L := c.N(), c.ByteLen()
		edges := baseEdgeScalars(c)
		top := new(big.Int).Lsh(big.NewInt(1), uint(8*L))
		for _, want := range []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(n, big.NewInt(1)), n,
			new(big.Int).Add(n, big.NewInt(1)), new(big.Int).Sub(top, big.NewInt(1))} {
			require.True(t, containsInt(edges, want), "%s: edge %x", c.Name(), want)
		}
		v := newBaseItems(c, 9)
		const count = 2000
		ks := v.scalars(0, count)
		for i, e := range edges {
			require.Zero(t, e.Cmp(ks[i]), "item %d", i)
		}
		wide, inRange := 0, 0
		for i, k := range ks {
			require.GreaterOrEqual(t, k.Sign(), 0)
			require.LessOrEqual(t, k.BitLen(), 8*L, "item %d: %x", i, k)
			if i < len(edges) || containsInt(edges, k) {
				continue
			}
			if k.Cmp(n) >= 0 {
				wide++
			} else {
				inRange++
			}
		}
		require.Positive(t, wide, "%s: scalars in [n, 2^(8L))", c.Name())
		require.Greater(t, inRange, count*9/10)
		for _, chunk := range []int64{1, 7, 100} {
			for lo := int64(0); lo < 300; lo += chunk {
				k2 := v.scalars(lo, lo+chunk)
				for j := range k2 {
					require.Zero(t, ks[lo+int64(j)].Cmp(k2[j]))
				}
			}
		}
		require.NotZero(t, ks[count-1].Cmp(newBaseItems(c, 10).scalars(count-1, count)[0]))
	}
}

func containsInt(xs []*big.Int, x *big.Int) bool {
	for _, y := range xs {
		if y.Cmp(x) == 0 {
			return true
		}
	}
	return false
}

// TestVerifyECDSAItems checks the items of ecdsa: each case first, then
// mostly valid ones; the verdict each was made to have is the references';
// item i the same whatever the chunks; a valid item made for bench is
// valid.
func TestVerifyECDSAItems(t *testing.T) {
	for _, c := range curves.All() {
		n := 60
		if testing.Short() {
			n = 20
		}
		v := ecdsaItems{c, 3}
		items := v.items(0, int64(n))
		valid := 0
		for i := range items {
			it := &items[i]
			if i < ecdsaCases {
				require.Equal(t, i, it.kind)
			}
			if it.want() == ecdsa.Valid {
				valid++
			}
			require.Equal(t, it.want(), libraryVerify(c, it), "%s item %d (%s)", c.Name(), i, caseNames[it.kind])
			require.Equal(t, it.want(), textbookVerify(c, it), "%s item %d (%s)", c.Name(), i, caseNames[it.kind])
			require.NoError(t, c.Validate(it.q.X, it.q.Y))
			require.NotEmpty(t, it.digest)
		}
		require.Greater(t, valid, n/2)
		again := v.items(5, 9)
		for j := range again {
			require.Equal(t, items[5+j], again[j])
		}
		for i := range 4 {
			it := v.item(int64(i), caseValid)
			require.Equal(t, ecdsa.Valid, libraryVerify(c, &it))
		}
	}
	// gnark-crypto refuses s above n/2: libraryVerify gives it n - s.
	c := curves.Secp256k1()
	half := new(big.Int).Rsh(c.N(), 1)
	for i := range 4 {
		it := ecdsaItems{c, 1}.item(int64(i), caseValid)
		if it.s.Cmp(half) <= 0 {
			it.s.Sub(c.N(), it.s)
		}
		require.Equal(t, ecdsa.Valid, libraryVerify(c, &it), "s above n/2")
		require.Equal(t, ecdsa.Valid, textbookVerify(c, &it), "s above n/2")
	}
}

// TestVerifyOpMulIsDefault: --op mul is verify as it ran before --op.
func TestVerifyOpMulIsDefault(t *testing.T) {
	var outs []string
	for _, args := range [][]string{nil, {"--op", "mul"}} {
		code, out, errOut := cli(t, "", append([]string{"verify", "--backend", "cpu", "--n", "40", "--seed", "3"}, args...)...)
		require.Equal(t, exitOK, code, errOut)
		outs = append(outs, summary.ReplaceAllString(out, "SUMMARY"))
	}
	require.Equal(t, outs[0], outs[1])
	require.True(t, strings.HasPrefix(outs[0], "verify curve=P-224 op=mul backend=cpu n=40 seed=3 "), outs[0])
}
