package main

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
	"github.com/rnsec/ecmul/internal/kernels"
)

// kernelFamilies names the kernel's schedules (kernels.Schedules, the
// ladder entry points' families) as the help texts name them.
var kernelFamilies = map[string]string{
	"coz":    "ladder",
	"paper":  "ladder",
	"comb":   "comb",
	"combvt": "variable-time comb",
}

// familyPatterns find each family in a help's prose; "comb" is the
// constant-time comb, any "comb" left once the variable-time ones are
// taken out.
var familyPatterns = map[string]*regexp.Regexp{
	"ladder":             regexp.MustCompile(`\bladders?\b`),
	"comb":               regexp.MustCompile(`\bcombs?\b`),
	"variable-time comb": regexp.MustCompile(`\bvariable-time combs?\b`),
}

// namedFamilies returns the kernel families a help's prose names.
func namedFamilies(prose string) []string {
	prose = strings.Join(strings.Fields(prose), " ")
	var named []string
	for fam, re := range familyPatterns {
		text := prose
		if fam == "comb" {
			text = familyPatterns["variable-time comb"].ReplaceAllString(prose, "")
		}
		if re.MatchString(text) {
			named = append(named, fam)
		}
	}
	sort.Strings(named)
	return named
}

// helpRun is one run of a command on the gpu backend in TestHelpNamesWhatRuns:
// its arguments after the command's name, and its input.
type helpRun struct {
	args []string
	in   string
}

// helpRuns runs every command that computes on an engine (those with a
// --backend flag) on the gpu backend, in each configuration whose k·P,
// k·G or u1·G kernels differ: the defaults (Shenoy's extension, 30-bit
// channels), 16-bit channels, and Kawamura's extension.
func helpRuns(c *curves.Curve) map[string][]helpRun {
	fx := hexFixture(c)
	mulLine := fx["scalar"] + " " + fx["x"] + " " + fx["y"] + "\n"
	ecdsaLine := strings.Join([]string{fx["digest"], fx["r"], fx["s"], fx["qx"], fx["qy"]}, " ") + "\n"
	configs := [][]string{nil, {"--channel-bits", "16"}, {"--ext", "kawamura"}}
	runs := map[string][]helpRun{}
	for _, cfg := range configs {
		with := func(args ...string) []string { return append(append([]string{"--curve", c.Name()}, cfg...), args...) }
		runs["mul"] = append(runs["mul"], helpRun{with(), mulLine})
		runs["base"] = append(runs["base"], helpRun{with(), "2\n"})
		runs["ecdsa-verify"] = append(runs["ecdsa-verify"], helpRun{with(), ecdsaLine})
		runs["ecdsa-sign"] = append(runs["ecdsa-sign"], helpRun{with(), fx["digest"] + " c0ffee\n"})
		for _, op := range opNames {
			runs["verify"] = append(runs["verify"], helpRun{with("--op", op, "--n", "2"), ""})
		}
		runs["bench"] = append(runs["bench"], helpRun{with("--op", strings.Join(opNames, ","), "--batch", "1", "--reps", "1", "--peers=false"), ""})
	}
	return runs
}

// TestHelpNamesWhatRuns: the help of every command that computes on an
// engine names exactly the kernel families (the ladder, the constant-time
// comb, the variable-time comb) that the command launches, over the
// configurations of helpRuns; each run launches on a fake driver whose
// kernels the CPU twin emulates, and a launch's family is its entry
// point's schedule, from the kernel's own table. A help that says a
// command runs the ladder while it runs the comb, or that leaves out a
// family it runs, fails.
func TestHelpNamesWhatRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command on emulated kernels: in the full suite")
	}
	for _, s := range kernels.Schedules {
		require.Contains(t, kernelFamilies, s, "the kernel's schedule %s has no family in the help texts' words", s)
	}
	var mu sync.Mutex
	launched := map[string]bool{}
	d := fakecuda.New()
	emulate := kernelemu.Launch(d)
	d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		if k, err := kernels.ByName(fn); err == nil {
			mu.Lock()
			launched[kernelFamilies[k.Schedule]] = true
			mu.Unlock()
		}
		return emulate(fn, grid, block, params)
	}
	t.Cleanup(engine.UseGPUDriver(d, []byte("fatbin")))

	c := curves.P256()
	runs := helpRuns(c)
	registered := registeredFlags()
	for _, cmd := range commands() {
		computes := slices.Contains(registered[cmd.name], "backend")
		require.Equal(t, computes, runs[cmd.name] != nil, "%s: a command with a --backend flag computes on an engine, and has runs here", cmd.name)
		if !computes {
			continue
		}
		clear(launched)
		for _, r := range runs[cmd.name] {
			args := append([]string{cmd.name, "--backend", "gpu"}, r.args...)
			code, out, errOut := cli(t, r.in, args...)
			require.Equal(t, exitOK, code, "%q: %s%s", args, out, errOut)
		}
		var ran []string
		for fam := range launched {
			ran = append(ran, fam)
		}
		sort.Strings(ran)
		_, help, _ := cli(t, "", "help", cmd.name)
		prose, _, ok := strings.Cut(help, "\nFlags:\n")
		require.True(t, ok, "%s: the help has a Flags: section", cmd.name)
		if named := namedFamilies(prose); !slices.Equal(ran, named) {
			t.Errorf("%s: its help names %q, it launches %q", cmd.name, named, ran)
		}
	}
}

// TestNamedFamilies: the prose's families, told apart.
func TestNamedFamilies(t *testing.T) {
	for prose, want := range map[string][]string{
		"k·G on the fixed-base comb":                          {"comb"},
		"u1·G on the variable-time\ncomb, u2·Q on the ladder": {"ladder", "variable-time comb"},
		"the comb's kernel; the variable-time combs":          {"comb", "variable-time comb"},
		"mul's variable-base ladder with G":                   {"ladder"},
		"combined, honeycomb, combvt":                         nil,
	} {
		require.Equal(t, want, namedFamilies(prose), "%q", prose)
	}
}
