package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// signDocExample returns the example of docs/cli.md's ecdsa-sign section:
// its command (continuation lines joined), what it shows on the terminal
// and the exit status echoed after it.
func signDocExample(t *testing.T) (command, shown string, code int) {
	b, err := os.ReadFile(filepath.Join(sourceDir(), "..", "..", "docs", "cli.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(b), "## `ecmul ecdsa-sign`\n")
	require.True(t, ok, "docs/cli.md: no ecdsa-sign section")
	_, rest, ok = strings.Cut(rest, "```sh\n")
	require.True(t, ok, "docs/cli.md: no sh block in the ecdsa-sign section")
	block, _, _ := strings.Cut(rest, "```\n")
	lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	require.True(t, strings.HasPrefix(lines[0], "$ "), lines[0])
	var cmd []string
	i := 0
	for ; i < len(lines); i++ {
		cmd = append(cmd, strings.TrimPrefix(lines[i], "$ "))
		if !strings.HasSuffix(lines[i], `\`) {
			break
		}
	}
	var out []string
	for i++; i < len(lines) && !strings.HasPrefix(lines[i], "$ "); i++ {
		out = append(out, lines[i])
	}
	require.Less(t, i+1, len(lines), "docs/cli.md: no exit status after the example")
	require.Equal(t, "$ echo $?", lines[i])
	code, err = strconv.Atoi(lines[i+1])
	require.NoError(t, err)
	return strings.Join(cmd, "\n"), strings.Join(out, "\n") + "\n", code
}

// TestECDSASignDocExample runs the example of docs/cli.md's ecdsa-sign
// section with this binary as ecmul, under bash: its output and exit
// status are the ones shown.
func TestECDSASignDocExample(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	command, shown, want := signDocExample(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := t.TempDir()
	wrapper := "#!/bin/sh\n" + cliEnv + "=1 exec '" + exe + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "ecmul"), []byte(wrapper), 0o755))
	cmd := exec.Command("bash", "-c", command)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	require.Equal(t, want, code, out.String())
	require.Equal(t, shown, out.String())
}

// TestECDSASignProgressOnTerminal: on a terminal, ecdsa-sign draws the
// progress line of mul and erases it at the end.
func TestECDSASignProgressOnTerminal(t *testing.T) {
	withFastProgress(t)
	master, tty := openPTY(t)
	defer master.Close()
	var seen bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(&seen, master) })
	var in strings.Builder
	for _, x := range signCases(curves.P256(), 30) {
		fmt.Fprintf(&in, "%x %x\n", x.digest, x.d)
	}
	inPath := filepath.Join(t.TempDir(), "in.txt")
	require.NoError(t, os.WriteFile(inPath, []byte(in.String()), 0o644))
	var out bytes.Buffer
	code := run([]string{"ecdsa-sign", "--curve", "p256", "--backend", "cpu", "--chunk", "3", "--in", inPath}, nil, &out, tty)
	require.Equal(t, exitOK, code)
	require.Equal(t, 30, strings.Count(out.String(), "\n"))
	tty.Close()
	wg.Wait()
	got := seen.String()
	require.Contains(t, got, "% ecmul ecdsa-sign (cpu): ")
	require.True(t, strings.HasSuffix(got, "\r\x1b[K"), "the line is erased at the end: %q", got[max(0, len(got)-40):])
}
