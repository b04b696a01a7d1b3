package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/rns"
)

// requireUsage checks that args are a usage error: exit status 2, nothing
// on standard output, and one message on standard error that contains
// every string of want.
func requireUsage(t *testing.T, args []string, want ...string) string {
	t.Helper()
	code, out, errOut := cli(t, "", args...)
	require.Equal(t, exitUsage, code, "%q: %s", args, errOut)
	require.Empty(t, out, "%q", args)
	for _, w := range want {
		require.Contains(t, errOut, w, "%q", args)
	}
	return errOut
}

// TestStrayArguments: no command takes an argument that is not a flag, so
// every such argument is a usage error, after flags or before them.
func TestStrayArguments(t *testing.T) {
	for _, c := range commands() {
		requireUsage(t, []string{c.name, "stray"}, `unexpected argument "stray"`)
	}
	requireUsage(t, []string{"params", "p256"}, `unexpected argument "p256"`)
	requireUsage(t, []string{"params", "--curve", "p256", "bogus"}, `unexpected argument "bogus"`)
	requireUsage(t, []string{"devices", "extra"}, `unexpected argument "extra"`)
	requireUsage(t, []string{"mul", "--backend", "cpu", "a", "b"}, `unexpected argument "a"`)
	requireUsage(t, []string{"help", "mul", "extra"}, `unexpected argument "extra"`)
}

// TestChannelBitsUsage: a width the library does not support, or one that
// does not go with the base extension, is a usage error naming the flags,
// not the library's field.
func TestChannelBitsUsage(t *testing.T) {
	for _, args := range [][]string{
		{"params", "--channel-bits", "17"},
		{"params", "--channel-bits", "24"},
		{"mul", "--backend", "cpu", "--channel-bits", "17"},
		{"mul", "--backend", "rns-cpu", "--channel-bits", "-16"},
		{"verify", "--backend", "rns-cpu", "--channel-bits", "17"},
		{"bench", "--backend", "cpu", "--channel-bits", "17"},
	} {
		errOut := requireUsage(t, args, "--channel-bits", "want 16 or 30")
		require.NotContains(t, errOut, "Options.")
	}
	for _, cmd := range []string{"mul", "verify"} {
		errOut := requireUsage(t, []string{cmd, "--backend", "rns-cpu", "--channel-bits", "30", "--ext", "KAWAMURA"},
			"--channel-bits 30 needs --ext shenoy", "--ext kawamura")
		require.NotContains(t, errOut, "Options.")
	}
}

// TestMulNamesTheWrongFlag: a bad --chunk or --inflight names that flag
// alone.
func TestMulNamesTheWrongFlag(t *testing.T) {
	errOut := requireUsage(t, []string{"mul", "--chunk", "0"}, "--chunk must be at least 1, not 0")
	require.NotContains(t, errOut, "inflight")
	errOut = requireUsage(t, []string{"mul", "--inflight", "-1"}, "--inflight must be at least 0, not -1")
	require.NotContains(t, errOut, "chunk")
}

// TestBenchRefusesFinishItemsOutOfRange: --finish-items takes 0 to the
// finish kernel's most items per thread.
func TestBenchRefusesFinishItemsOutOfRange(t *testing.T) {
	for _, n := range []string{"-1", strconv.Itoa(diag.MaxFinishItemsPerThread + 1)} {
		requireUsage(t, []string{"bench", "--finish-items", n}, "--finish-items must be 0 to "+strconv.Itoa(diag.MaxFinishItemsPerThread)+", not "+n)
	}
}

// TestNamesInAnyCase: every name a flag takes is accepted in any case.
func TestNamesInAnyCase(t *testing.T) {
	c := curves.P224()
	rng := newRNG(61)
	items := validItems(t, rng, c, 4)
	code, out, errOut := cli(t, input(rng, items), "mul", "--curve", "P-224", "--backend", "RNS-CPU", "--schedule", "PAPER",
		"--ext", "Shenoy", "--channel-bits", "16", "--format", "HEX", "--devices", "ALL")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, output(items), out)

	code, out, errOut = cli(t, "", "params", "--curve", "P256", "--schedule", "Paper")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "schedule paper:")

	code, out, errOut = cli(t, "", "verify", "--backend", "Rns-Cpu", "--schedule", "COZ", "--ext", "KAWAMURA", "--n", "3")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "schedule=coz ext=kawamura channel-bits=16")

	code, out, errOut = cli(t, "", "gen", "--curve", "SECP256K1", "--format", "JSONL", "--n", "1")
	require.Equal(t, exitOK, code, errOut)
	require.True(t, strings.HasPrefix(out, `{"scalar":"`), out)

	cfg, err := parseBenchFlags(&benchFlags{curves: "P224,Secp256k1", backend: "CPU", schedules: "COZ,Paper", exts: "SHENOY",
		widths: "16", mappings: "WARP,Default", ipbs: "8", gpus: "ALL", batches: "1", reps: 1, chunk: 1, peerSeconds: 1})
	require.NoError(t, err)
	require.Len(t, cfg.curves, 2)
	require.Len(t, cfg.schedules, 2)
	require.Equal(t, []string{"warp", "default"}, cfg.mappings)
}

// helpText returns what fs prints for -h.
func helpText(fs *flag.FlagSet) string {
	var b bytes.Buffer
	fs.SetOutput(&b)
	fs.Usage()
	return b.String()
}

// flagMention finds a flag named in a help's prose.
var flagMention = regexp.MustCompile(`(?:^|[^-\w])--([a-z][a-z0-9-]*)`)

// TestHelpMatchesFlags compares every command's help with the flags the
// command registers: the help is the one the command prints, every flag is
// listed with its default, the usage line names them all (or says
// [flags]), the prose names no flag the command lacks, and no flag's own
// text states a default, which the list prints beside it.
func TestHelpMatchesFlags(t *testing.T) {
	for _, c := range commands() {
		fs := c.flags()
		text := helpText(fs)
		code, out, _ := cli(t, "", c.name, "--help")
		require.Equal(t, exitOK, code)
		require.Equal(t, text, out, "%s: the help printed is that of the flags registered", c.name)
		usageLine, _, _ := strings.Cut(text, "\n")
		prose, _, _ := strings.Cut(text, "\nFlags:\n")
		fs.VisitAll(func(f *flag.Flag) {
			require.Regexp(t, `(?m)^  -`+regexp.QuoteMeta(f.Name)+`\b`, text, "%s: -%s is not listed", c.name, f.Name)
			require.NotContains(t, f.Usage, "the default", "%s -%s: the list shows the default", c.name, f.Name)
			if !strings.Contains(usageLine, "[flags]") {
				require.Contains(t, usageLine, "--"+f.Name, "%s: the usage line leaves -%s out", c.name, f.Name)
			}
		})
		for _, l := range strings.Split(prose, "\n") {
			if len(invocations(strings.TrimSpace(l))) > 0 {
				continue // an example, run by TestHelpExamples
			}
			for _, m := range flagMention.FindAllStringSubmatch(l, -1) {
				if m[1] != "h" && m[1] != "help" {
					require.NotNil(t, fs.Lookup(m[1]), "%s: the help names --%s, which it does not have: %q", c.name, m[1], l)
				}
			}
		}
	}
}

// TestMainHelp: the main help lists every command, help included, and
// every format of mul; "ecmul help --help" is that help.
func TestMainHelp(t *testing.T) {
	code, out, errOut := cli(t, "", "help", "--help")
	require.Equal(t, exitOK, code, errOut)
	var main bytes.Buffer
	usage(&main)
	require.Equal(t, main.String(), out)
	require.Regexp(t, `(?m)^  help `, out)
	mulLine := regexp.MustCompile(`(?m)^  mul .*$`).FindString(out)
	for _, f := range append(stream.LineFormats, stream.Raw) {
		require.Contains(t, mulLine, string(f))
	}
	params := helpText(paramsFlagSet(new(paramsFlags)))
	usageLine, _, _ := strings.Cut(params, "\n")
	for _, w := range rns.Widths {
		require.Contains(t, usageLine, strconv.Itoa(w))
	}
	require.NotContains(t, params, "2^16 − c\nof the bases", "the moduli depend on --channel-bits")
}

// packagePrefix finds a package's prefix after the command's.
var packagePrefix = regexp.MustCompile(`(?:^|: )(?:` + strings.Join(packagePrefixes, "|") + `): `)

// TestOnePrefixPerMessage: a message carries the command's prefix only,
// whatever the errors it reports carry; a usage error's second line says
// where the help is.
func TestOnePrefixPerMessage(t *testing.T) {
	cases := [][]string{
		{"mul", "--backend", "bogus"},
		{"mul", "--curve", "bogus"},
		{"mul", "--ext", "bogus"},
		{"mul", "--schedule", "bogus"},
		{"verify", "--backend", "bogus"},
		{"bench", "--backend", "cpu", "--ext", "bogus"},
		{"gen", "--format", "bogus"},
		{"params", "--curve", "bogus"},
	}
	if _, err := gpu.DefaultDriver(); err != nil {
		cases = append(cases, []string{"devices"}, []string{"mul", "--backend", "gpu"})
	}
	for _, args := range cases {
		code, _, errOut := cli(t, "", args...)
		line := strings.TrimSuffix(errOut, "\n")
		if code == exitUsage {
			line = strings.TrimSuffix(line, "\nRun \"ecmul "+args[0]+" -h\" for help.")
		}
		require.NotContains(t, line, "\n", "%q", args)
		rest, ok := strings.CutPrefix(line, "ecmul "+args[0]+": ")
		require.True(t, ok, "%q: %q", args, line)
		require.NotRegexp(t, packagePrefix, rest, "%q", args)
	}
	inner := fmt.Errorf("gpu: no CUDA device available: %w", errors.New("libcuda.so.1: not found"))
	require.Equal(t, "gpu backend: no CUDA device available: libcuda.so.1: not found",
		message(fmt.Errorf("ecmul: gpu backend: %w", inner)))
	require.Equal(t, `unknown curve "gpu: ecmul: x"`, message(errors.New(`curves: unknown curve "gpu: ecmul: x"`)), "quoted input is kept")
	require.Equal(t, "unknown backend", message(errors.New("unknown backend")))
}
