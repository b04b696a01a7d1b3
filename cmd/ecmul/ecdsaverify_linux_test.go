package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// opensslRecipe returns the OpenSSL recipe of docs/cli.md (the sh block
// after its introduction) and the output it shows.
func opensslRecipe(t *testing.T) (script, shown string) {
	b, err := os.ReadFile(filepath.Join(sourceDir(), "..", "..", "docs", "cli.md"))
	require.NoError(t, err)
	const intro = "A key and a signature made by OpenSSL, verified by ecmul"
	_, rest, ok := strings.Cut(string(b), intro)
	require.True(t, ok, "docs/cli.md: no %q", intro)
	_, rest, ok = strings.Cut(rest, "```sh\n")
	require.True(t, ok, "docs/cli.md: no sh block after the recipe's introduction")
	script, rest, _ = strings.Cut(rest, "```\n")
	_, rest, ok = strings.Cut(rest, "```\n")
	require.True(t, ok, "docs/cli.md: no output block after the recipe")
	shown, _, _ = strings.Cut(rest, "```\n")
	return script, shown
}

// TestOpenSSLRecipe runs the OpenSSL recipe of docs/cli.md with this
// binary as ecmul, on P-256 as written and on the other curves as the
// text after it says: the digest of the message verifies, that of a
// changed one does not. It is skipped where openssl, or both xxd and od,
// are missing; with od alone it runs the od form the text gives.
func TestOpenSSLRecipe(t *testing.T) {
	for _, tool := range []string{"bash", "openssl", "tail"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	script, shown := opensslRecipe(t)
	if _, err := exec.LookPath("xxd"); err != nil {
		if _, err := exec.LookPath("od"); err != nil {
			t.Skip("neither xxd nor od")
		}
		script = strings.Replace(script, `xxd -p | tr -d '\n'`, `od -An -v -tx1 | tr -d ' \n'`, 1)
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := t.TempDir()
	wrapper := "#!/bin/sh\n" + cliEnv + "=1 exec '" + exe + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "ecmul"), []byte(wrapper), 0o755))
	for _, c := range []struct{ openssl, tail, curve string }{
		{"prime256v1", "65", "p256"},
		{"secp256k1", "65", "secp256k1"},
		{"secp224r1", "57", "p224"},
	} {
		t.Run(c.curve, func(t *testing.T) {
			s := strings.Replace(script, "-name prime256v1", "-name "+c.openssl, 1)
			s = strings.Replace(s, "tail -c 65", "tail -c "+c.tail, 1)
			s = strings.Replace(s, "--curve p256", "--curve "+c.curve, 1)
			cmd := exec.Command("bash", "-e", "-c", s)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s", errOut.String())
			require.Equal(t, exitFail, exit.ExitCode(), errOut.String())
			require.Equal(t, "valid\ninvalid\n", out.String(), errOut.String())
			require.Equal(t, shown, out.String()+errOut.String())
		})
	}
}

// TestECDSAVerifyProgressOnTerminal: on a terminal, ecdsa-verify draws the
// progress line of mul, with the backend, the items answered and, with
// --in a file, the share of them, and erases it at the end.
func TestECDSAVerifyProgressOnTerminal(t *testing.T) {
	withFastProgress(t)
	master, tty := openPTY(t)
	defer master.Close()
	var seen bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(&seen, master) })
	lines := verifyLines(t, 200) // long enough for ticks after the first, also on a loaded machine
	inPath := filepath.Join(t.TempDir(), "in.txt")
	require.NoError(t, os.WriteFile(inPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	var out bytes.Buffer
	code := run([]string{"ecdsa-verify", "--curve", "p256", "--backend", "cpu", "--chunk", "3", "--in", inPath}, nil, &out, tty)
	require.Equal(t, exitOK, code)
	require.Equal(t, strings.Repeat("valid\n", 200), out.String())
	tty.Close()
	wg.Wait()
	got := seen.String()
	require.Contains(t, got, "% ecmul ecdsa-verify (cpu): ")
	require.Regexp(t, `ecmul ecdsa-verify \(cpu\): [1-9]\d* items`, got)
	require.True(t, strings.HasSuffix(got, "\r\x1b[K"), "the line is erased at the end: %q", got[max(0, len(got)-40):])
}
