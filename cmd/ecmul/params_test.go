package main

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
)

// TestParamsDocExample: the example of docs/cli.md's params section, a
// params command piped through grep -E, shows the lines of the command's
// output that the pattern matches.
func TestParamsDocExample(t *testing.T) {
	command, shown := cliExample(t, "params")
	m := regexp.MustCompile(`^ecmul (params[^|]*)\| grep -E '([^']+)'$`).FindStringSubmatch(command)
	require.NotNil(t, m, "docs/cli.md: the params example is not `ecmul params … | grep -E '…'`: %s", command)
	code, stdout, stderr := cli(t, "", strings.Fields(m[1])...)
	require.Zero(t, code, stderr)
	pattern := regexp.MustCompile(m[2])
	var want []string
	for _, l := range strings.Split(stdout, "\n") {
		if pattern.MatchString(l) {
			want = append(want, l)
		}
	}
	require.Equal(t, want, shown)
}

// TestParamsComb: params shows the two fixed-base combs of the curve and
// channel width, constant time then variable time, after the ladder
// schedule, their numbers those of the ladder package's comb Setups:
// windows × bits covering the scalar's bits, rows per window, the uploaded
// table's bytes (also counted from its layout: per window and row, n + 1
// channel roles of four words), the multiplications of one window, the
// proved largest multiplication input against 9u, and ProveComb's argument,
// holding.
func TestParamsComb(t *testing.T) {
	titles := map[ladder.Kind]string{
		ladder.Comb:        "\n\nfixed-base comb k·G: ",
		ladder.CombVarTime: "\n\nfixed-base comb k·G, variable time (public scalars: ECDSA's u1·G): ",
	}
	forParams(t, func(c *curves.Curve, bits int, out string) {
		require.Less(t, strings.Index(out, "schedule "+ladder.DefaultKind.String()+":"), strings.Index(out, titles[ladder.Comb]))
		require.Less(t, strings.Index(out, titles[ladder.Comb]), strings.Index(out, titles[ladder.CombVarTime]))
		for kind, title := range titles {
			name := fmt.Sprintf("%s, %d-bit channels, %v", c.Name(), bits, kind)
			_, section, ok := strings.Cut(out, title)
			require.True(t, ok, "%s: no comb section:\n%s", name, out)
			section, _, _ = strings.Cut(section, "\n\n")
			checkCombSection(t, name, c, kind, bits, section)
		}
	})
}

func checkCombSection(t *testing.T, name string, c *curves.Curve, kind ladder.Kind, bits int, section string) {
	su, err := ladder.NewSetupBits(c, kind, bits)
	require.NoError(t, err)
	n, par := c.N(), su.Params
	w, rows, windows := kind.CombWindow(), kind.CombRows(), kind.CombWindows(n)
	require.Greater(t, windows*w, n.BitLen(), name)
	require.LessOrEqual(t, (windows-1)*w, n.BitLen(), name)
	require.Equal(t, 1<<(w-1), rows, name)
	require.NoError(t, ladder.ProveComb(n, w, windows), name)
	table := 4 * len(su.CombTableWords())
	require.Equal(t, (windows*rows+1)*(par.N+1)*4*4, table, name)
	muls := 0
	for _, st := range su.Schedule.Loop {
		muls += len(st.Muls)
	}
	require.Positive(t, muls, name)
	top := new(big.Int).Add(su.Schedule.MaxMulInput, big.NewInt(1))
	require.LessOrEqual(t, top.Cmp(par.AddBound), 0, name)

	mulInput := fmt.Sprintf("largest multiplication input below %s, 9u = %s: holds", size(top), size(par.AddBound))
	if top.Cmp(par.AddBound) == 0 {
		mulInput = fmt.Sprintf("largest multiplication input 9u − 1 (9u = %s): holds, the bound is reached", size(par.AddBound))
	}
	want := []string{
		fmt.Sprintf("%d windows × %d bits", windows, w),
		fmt.Sprintf("table: %d rows per window, %d rows, %d bytes as uploaded", rows, windows*rows, table),
		fmt.Sprintf("multiplications per window: %d, none in the first (its row starts the accumulator): %d in all", muls, (windows-1)*muls),
		mulInput,
	}
	lines := strings.Split(strings.TrimSuffix(section, "\n"), "\n")
	require.Len(t, lines, len(want)+1, "%s:\n%s", name, section)
	require.Equal(t, want, lines[:len(want)], name)
	proof := lines[len(want)]
	require.Regexp(t, "^"+regexp.QuoteMeta(fmt.Sprintf("no exceptional case for k < n: %d·%d > %d bits (the top digit >= 0); ", windows, w, n.BitLen()))+
		".*"+regexp.QuoteMeta(fmt.Sprintf("is not ±T = ±d·2^(%d·i) (1 <= |d| <= %d) as integers", w, rows))+
		".*: holds$", proof, name)
}

// TestParamsMMABounds: for 30-bit channels params lists the five bounds of
// the mma mapping's extension sums (rns.Params.Bounds) with their left
// sides, holding; for 16-bit channels none of them.
func TestParamsMMABounds(t *testing.T) {
	names := []string{"mma byte sums exact", "mma lo fits 32 bits", "mma mid fits 32 bits", "mma hi fits 32 bits", "mma 64-bit sum"}
	forParams(t, func(c *curves.Curve, bits int, out string) {
		if bits != rns.WideChannelBits {
			require.NotContains(t, out, "mma ", "%s, %d-bit channels", c.Name(), bits)
			return
		}
		par, err := rns.NewParamsBits(c.P(), bits)
		require.NoError(t, err)
		left := map[string]string{}
		for _, b := range par.Bounds() {
			left[b.Name] = size(b.Left)
		}
		for _, name := range names {
			require.Contains(t, left, name)
			require.Regexp(t, "(?m)^"+regexp.QuoteMeta(name)+` +`+regexp.QuoteMeta(left[name])+` +< +\S+ +yes +`, out, "%s: %s", c.Name(), name)
		}
	})
}

// forParams runs ecmul params on every curve and channel width and hands
// each output, which must come with exit status 0, to check. The outputs
// are kept for the next test that asks: params prints the same every time.
func forParams(t *testing.T, check func(c *curves.Curve, bits int, out string)) {
	t.Helper()
	paramsOutputs.mu.Lock()
	defer paramsOutputs.mu.Unlock()
	if paramsOutputs.out == nil {
		paramsOutputs.out = map[string]string{}
	}
	for _, c := range curves.All() {
		for _, bits := range rns.Widths {
			key := fmt.Sprint(c.Name(), bits)
			out, ok := paramsOutputs.out[key]
			if !ok {
				code, stdout, errOut := cli(t, "", "params", "--curve", c.Name(), "--channel-bits", strconv.Itoa(bits))
				require.Equal(t, exitOK, code, errOut)
				out = stdout
				paramsOutputs.out[key] = out
			}
			check(c, bits, out)
		}
	}
}

// paramsOutputs are forParams's outputs, by curve and channel width.
var paramsOutputs struct {
	mu  sync.Mutex
	out map[string]string
}

// TestParamsTwist: for 30-bit channels params shows B's twist σ_j and the
// bounds that the twist and the 32-bit fold rely on, holding; 16-bit
// channels have neither.
func TestParamsTwist(t *testing.T) {
	forParams(t, func(c *curves.Curve, bits int, out string) {
		if bits != rns.WideChannelBits {
			require.NotContains(t, out, "twist", "%s, %d-bit channels", c.Name(), bits)
			return
		}
		par, err := rns.NewParamsBits(c.P(), bits)
		require.NoError(t, err)
		require.Contains(t, out, fmt.Sprintf("  twist σ: %v ", par.Twist), c.Name())
		require.Regexp(t, `(?m)^twist squares NegR +0 +<= +0 +yes +`, out, c.Name())
		require.Regexp(t, `(?m)^wide fold in 32-bit words +\S+ +< +\S+ +yes +`, out, c.Name())
	})
}

// TestParamsSign: params shows the sign pack kernel's arithmetic mod n,
// holding, on every curve.
func TestParamsSign(t *testing.T) {
	forParams(t, func(c *curves.Curve, bits int, out string) {
		require.Regexp(t, `(?m)^ECDSA signing on the GPU \(the sign pack kernel\): r = x\(k·G\) mod n .*: holds$`, out, "%s, %d-bit channels", c.Name(), bits)
	})
}
