package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runProcess runs args as ecmul in a process of its own, with no input,
// and returns its exit status and both outputs.
func runProcess(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := cliProcess(t, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String(), errOut.String()
	}
	require.NoError(t, err, "%q", args)
	return 0, out.String(), errOut.String()
}

// TestUsageInAProcess runs the command line as a shell would, every
// command in a process of its own: a usage error is two lines on standard
// error and exit status 2; the help goes to standard output with exit
// status 0, so that "ecmul mul -h | wc -l" counts it. With -short (the
// race detector's run) it takes the first three commands, each process
// being slow to start there; the full run takes every one.
func TestUsageInAProcess(t *testing.T) {
	cmds := commands()
	if testing.Short() {
		cmds = cmds[:3]
	}
	for _, c := range cmds {
		code, out, errOut := runProcess(t, c.name, "--bogus")
		checkUsageLines(t, []string{c.name, "--bogus"}, code, out, errOut, "ecmul "+c.name, "ecmul "+c.name+" -h", "--bogus")
		for _, args := range helpArgs(c.name) {
			code, out, errOut := runProcess(t, args...)
			require.Equal(t, exitOK, code, "%q: %s", args, errOut)
			require.Empty(t, errOut, "%q", args)
			require.True(t, strings.HasPrefix(out, "Usage: ecmul "+c.name), "%q: %q", args, out)
			require.GreaterOrEqual(t, len(lines(out)), 5, "%q", args)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"help", "mul"}, {"mul", "-h"}} {
		code, out, errOut := runProcess(t, args...)
		require.Equal(t, exitOK, code, "%q: %s", args, errOut)
		require.Empty(t, errOut, "%q", args)
		require.Greater(t, len(lines(out)), 10, "%q", args)
	}
	for _, tc := range []struct{ args, want []string }{
		{[]string{"mul", "--curve", "nope"}, []string{"--curve", "nope"}},
		{[]string{"verify", "--n", "-3"}, []string{"--n", "-3"}},
		{[]string{"gen", "--n", "-3"}, []string{"--n", "-3"}},
	} {
		code, out, errOut := runProcess(t, tc.args...)
		cmd := tc.args[0]
		checkUsageLines(t, tc.args, code, out, errOut, "ecmul "+cmd, "ecmul "+cmd+" -h", tc.want...)
	}
	code, out, errOut := runProcess(t, "frobnicate")
	checkUsageLines(t, []string{"frobnicate"}, code, out, errOut, "ecmul", "ecmul -h", `"frobnicate"`)
}
