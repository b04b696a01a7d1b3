package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lines splits an output into its lines; an output that does not end in a
// newline has an unfinished last line, which counts.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// requireUsageLines checks that args are a usage error told in two lines
// on standard error, nothing on standard output: the first line with
// prefix, naming every string of want, and then the line that says which
// command prints the help.
func requireUsageLines(t *testing.T, args []string, prefix, help string, want ...string) {
	t.Helper()
	code, out, errOut := cli(t, "", args...)
	checkUsageLines(t, args, code, out, errOut, prefix, help, want...)
}

func checkUsageLines(t *testing.T, args []string, code int, out, errOut, prefix, help string, want ...string) {
	t.Helper()
	require.Equal(t, exitUsage, code, "%q: %s", args, errOut)
	require.Empty(t, out, "%q", args)
	l := lines(errOut)
	require.Equal(t, 2, len(l), "%q: %q", args, errOut)
	require.True(t, strings.HasPrefix(l[0], prefix+": "), "%q: %q", args, l[0])
	for _, w := range want {
		require.Contains(t, l[0], w, "%q", args)
	}
	require.Equal(t, `Run "`+help+`" for help.`, l[1], "%q", args)
}

// TestUsageErrorIsOneLine: an unknown flag, with one dash or two, a flag
// without its value and an argument that is not a flag are told in one
// line naming them, then where the help is, for every command; so are an
// unknown command and the mistakes of help.
func TestUsageErrorIsOneLine(t *testing.T) {
	for _, c := range commands() {
		prefix, help := "ecmul "+c.name, "ecmul "+c.name+" -h"
		requireUsageLines(t, []string{c.name, "--bogus"}, prefix, help, "unknown flag --bogus")
		requireUsageLines(t, []string{c.name, "-bogus"}, prefix, help, "unknown flag --bogus")
		requireUsageLines(t, []string{c.name, "--bogus=1"}, prefix, help, "unknown flag --bogus")
		requireUsageLines(t, []string{c.name, "stray"}, prefix, help, `unexpected argument "stray"`)
		var last string // a flag that takes a value, if the command has one
		c.flags().VisitAll(func(f *flag.Flag) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				last = f.Name
			}
		})
		if last != "" {
			requireUsageLines(t, []string{c.name, "--" + last}, prefix, help, "--"+last+" needs a value")
		}
	}
	requireUsageLines(t, []string{"frobnicate"}, "ecmul", "ecmul -h", `unknown command "frobnicate"`)
	requireUsageLines(t, []string{"--bogus"}, "ecmul", "ecmul -h", "unknown flag --bogus")
	requireUsageLines(t, []string{"help", "frobnicate"}, "ecmul help", "ecmul -h", `unknown command "frobnicate"`)
	requireUsageLines(t, []string{"help", "mul", "extra"}, "ecmul help", "ecmul -h", `unexpected argument "extra"`)
}

// TestBadFlagValue: a value a flag does not take is told in one line
// naming the flag and the value, then where the help is.
func TestBadFlagValue(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		flag, value string
	}{
		{[]string{"mul", "--curve", "nope"}, "--curve", "nope"},
		{[]string{"mul", "--backend", "fpga"}, "--backend", "fpga"},
		{[]string{"mul", "--ext", "montgomery"}, "--ext", "montgomery"},
		{[]string{"mul", "--schedule", "nope"}, "--schedule", "nope"},
		{[]string{"mul", "--channel-bits", "17"}, "--channel-bits", "17"},
		{[]string{"mul", "--devices", "x"}, "--devices", "x"},
		{[]string{"mul", "--chunk", "0"}, "--chunk", "0"},
		{[]string{"mul", "--chunk", "many"}, "--chunk", "many"},
		{[]string{"mul", "--inflight", "-1"}, "--inflight", "-1"},
		{[]string{"mul", "--format", "xml"}, "--format", "xml"},
		{[]string{"mul", "--x-only=maybe"}, "--x-only", "maybe"},
		{[]string{"base", "--curve", "nope"}, "--curve", "nope"},
		{[]string{"base", "--format", "xml"}, "--format", "xml"},
		{[]string{"verify", "--n", "-3"}, "--n", "-3"},
		{[]string{"verify", "--op", "signing"}, "--op", "signing"},
		{[]string{"verify", "--curve", "nope"}, "--curve", "nope"},
		{[]string{"verify", "--seed", "x"}, "--seed", "x"},
		{[]string{"gen", "--n", "-3"}, "--n", "-3"},
		{[]string{"gen", "--n", "x"}, "--n", "x"},
		{[]string{"gen", "--pool", "0"}, "--pool", "0"},
		{[]string{"gen", "--curve", "nope"}, "--curve", "nope"},
		{[]string{"gen", "--format", "xml"}, "--format", "xml"},
		{[]string{"ecdsa-verify", "--sig", "pem"}, "--sig", "pem"},
		{[]string{"ecdsa-verify", "--key", "pem"}, "--key", "pem"},
		{[]string{"ecdsa-verify", "--format", "raw"}, "--format", "raw"},
		{[]string{"ecdsa-verify", "--chunk", "0"}, "--chunk", "0"},
		{[]string{"ecdsa-verify", "--curve", "nope"}, "--curve", "nope"},
		{[]string{"ecdsa-sign", "--format", "raw"}, "--format", "raw"},
		{[]string{"ecdsa-sign", "--hash", "md5"}, "--hash", "md5"},
		{[]string{"ecdsa-sign", "--chunk", "0"}, "--chunk", "0"},
		{[]string{"ecdsa-sign", "--curve", "nope"}, "--curve", "nope"},
		{[]string{"ecdsa-sign", "--low-s=maybe"}, "--low-s", "maybe"},
		{[]string{"params", "--curve", "nope"}, "--curve", "nope"},
		{[]string{"params", "--schedule", "nope"}, "--schedule", "nope"},
		{[]string{"params", "--channel-bits", "17"}, "--channel-bits", "17"},
		{[]string{"bench", "--curve", "nope"}, "--curve", "nope"},
		{[]string{"bench", "--backend", "fpga"}, "--backend", "fpga"},
		{[]string{"bench", "--op", "signing"}, "--op", "signing"},
		{[]string{"bench", "--mapping", "nope"}, "--mapping", "nope"},
		{[]string{"bench", "--batch", "0"}, "--batch", "0"},
		{[]string{"bench", "--reps", "0"}, "--reps", "0"},
		{[]string{"bench", "--peers=maybe"}, "--peers", "maybe"},
	} {
		cmd := tc.args[0]
		requireUsageLines(t, tc.args, "ecmul "+cmd, "ecmul "+cmd+" -h", tc.flag, tc.value)
	}
}

// helpArgs are the command lines that print the help of cmd.
func helpArgs(cmd string) [][]string {
	return [][]string{{cmd, "-h"}, {cmd, "--help"}, {cmd, "-help"}, {"help", cmd}}
}

// TestHelpOnStdout: -h, --help and help print the help on standard output,
// nothing on standard error, and exit 0, for ecmul and every command; a
// command's help is the same whichever asks for it, after other flags too.
func TestHelpOnStdout(t *testing.T) {
	var main strings.Builder
	usage(&main)
	require.Greater(t, len(lines(main.String())), 10)
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}, {"help", "-h"}, {"help", "--help"}} {
		code, out, errOut := cli(t, "", args...)
		require.Equal(t, exitOK, code, "%q", args)
		require.Empty(t, errOut, "%q", args)
		require.Equal(t, main.String(), out, "%q", args)
	}
	for _, c := range commands() {
		want := helpText(c.flags())
		require.True(t, strings.HasPrefix(want, "Usage: ecmul "+c.name), "%s: %q", c.name, want)
		for _, args := range append(helpArgs(c.name), []string{c.name, "-h", "stray"}) {
			code, out, errOut := cli(t, "", args...)
			require.Equal(t, exitOK, code, "%q: %s", args, errOut)
			require.Empty(t, errOut, "%q", args)
			require.Equal(t, want, out, "%q", args)
		}
	}
	code, out, errOut := cli(t, "", "mul", "--curve", "p256", "--backend", "cpu", "-h")
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, errOut)
	require.Greater(t, len(lines(out)), 10)
	require.True(t, strings.HasPrefix(out, "Usage: ecmul mul"), out)
}

// TestUsageTranscript runs the usage errors that docs/cli.md shows under
// Help and compares what they print with what it shows.
func TestUsageTranscript(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sourceDir(), "..", "..", "docs", "cli.md"))
	require.NoError(t, err)
	_, help, ok := strings.Cut(string(b), "\n## Help\n")
	require.True(t, ok, "docs/cli.md: no Help section")
	_, block, ok := strings.Cut(help, "\n```\n$ ")
	require.True(t, ok, "docs/cli.md: no transcript under Help")
	block, _, ok = strings.Cut(block, "\n```\n")
	require.True(t, ok)
	runs := strings.Split(block, "\n$ ")
	require.GreaterOrEqual(t, len(runs), 2)
	for _, r := range runs {
		cmdLine, shown, _ := strings.Cut(r, "\n")
		args := strings.Fields(cmdLine)
		require.Equal(t, "ecmul", args[0], cmdLine)
		code, out, errOut := cli(t, "", args[1:]...)
		require.Equal(t, exitUsage, code, cmdLine)
		require.Empty(t, out, cmdLine)
		require.Equal(t, shown+"\n", errOut, cmdLine)
	}
}
