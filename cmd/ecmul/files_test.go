package main

import (
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
)

// fileCommand is a command that reads --in and writes --out, with an input
// and the exit status and output it gives.
type fileCommand struct {
	args    []string // the command and its flags, without --in and --out
	in      string
	code    int
	wantOut string // what the command writes to standard output
}

// fileCommands are mul, base, ecdsa-verify and ecdsa-sign with inputs
// whose answers include a failed item (exit status 1: every item answered
// all the same), and mul with every item valid.
func fileCommands(t *testing.T) []fileCommand {
	t.Helper()
	c := curves.P224()
	rng := newRNG(61)
	items := validItems(t, rng, c, 4)
	bad := append(slices.Clone(items), invalidItems(t, c)[0])
	priv, err := stdecdsa.GenerateKey(elliptic.P256(), nil)
	require.NoError(t, err)
	d := sha256.Sum256([]byte("--out"))
	r, s, err := stdecdsa.Sign(nil, priv, d[:])
	require.NoError(t, err)
	cmds := []fileCommand{
		{args: []string{"mul", "--backend", "cpu"}, in: input(rng, items), code: exitOK},
		{args: []string{"mul", "--backend", "cpu"}, in: input(rng, bad), code: exitFail},
		{args: []string{"base", "--backend", "cpu"}, in: "2\n1 2\n", code: exitFail},
		{args: []string{"ecdsa-verify", "--curve", "p256", "--backend", "cpu"}, in: ecdsaLine(d[:], r, s, priv.X, priv.Y) + "\nx\n", code: exitFail},
		{args: []string{"ecdsa-sign", "--curve", "p256", "--backend", "cpu"}, in: fmt.Sprintf("%x %x\nx\n", d, priv.D), code: exitFail},
	}
	for i, fc := range cmds {
		code, out, errOut := cli(t, fc.in, fc.args...)
		require.Equal(t, fc.code, code, "%q: %s", fc.args, errOut)
		cmds[i].wantOut = out
	}
	return cmds
}

// requireDir checks that dir holds exactly the entries names: no
// temporary file is left.
func requireDir(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	require.ElementsMatch(t, names, got, "the entries of %s", dir)
}

// requireContent checks the content of the file path.
func requireContent(t *testing.T, path, want string, msgAndArgs ...any) {
	t.Helper()
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want, string(got), msgAndArgs...)
}

// TestInputCheckedBeforeOutput: an --in that is a directory, or missing,
// fails with exit status 1 and a message naming --in before --out is
// touched: its old content stays, and nothing is left beside it.
func TestInputCheckedBeforeOutput(t *testing.T) {
	for _, fc := range fileCommands(t)[1:] {
		dir := t.TempDir()
		out := filepath.Join(dir, "o")
		require.NoError(t, os.WriteFile(out, []byte("keep\n"), 0o644))
		require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
		for _, in := range []struct{ path, why string }{
			{dir, "is a directory"},
			{filepath.Join(dir, "sub"), "is a directory"},
			{filepath.Join(dir, "missing"), "no such file or directory"},
		} {
			args := append(slices.Clone(fc.args), "--in", in.path, "--out", out)
			code, stdout, stderr := cli(t, "", args...)
			requireContent(t, out, "keep\n", "%q", args)
			requireDir(t, dir, "o", "sub")
			require.Equal(t, exitFail, code, "%q: %s", args, stderr)
			require.Empty(t, stdout)
			require.Equal(t, "ecmul "+fc.args[0]+": --in "+in.path+": "+in.why+"\n", stderr)
		}
	}
}

// TestOutputReplacedOnlyOnSuccess: a run that cannot complete (here its
// input fails after some lines) leaves --out as it was, and nothing beside
// it; a run that answers every item, failed ones included, replaces --out
// with its answers: an existing file keeps its permission bits (and, for
// root, its owner and group), a link
// stays and the file it names is replaced, a new file is made, and nothing
// is left beside them; gen too. A new file's permissions are 0666 less
// the umask.
func TestOutputReplacedOnlyOnSuccess(t *testing.T) {
	gen := []string{"gen", "--n", "3", "--seed", "5"}
	code, genOut, _ := cli(t, "", gen...)
	require.Equal(t, exitOK, code)
	cmds := append(fileCommands(t), fileCommand{gen, "", exitOK, genOut})
	umask := setUmask(t, 0o027)
	for _, fc := range cmds {
		dir := t.TempDir()
		in, out := filepath.Join(dir, "in"), filepath.Join(dir, "o")
		require.NoError(t, os.WriteFile(in, []byte(fc.in), 0o644))
		require.NoError(t, os.WriteFile(out, []byte("keep\n"), 0o640))
		require.NoError(t, os.Chmod(out, 0o640))
		args := slices.Clone(fc.args)

		if fc.args[0] != "gen" {
			fail := append(slices.Clone(args), "--out", out)
			var stdout, stderr strings.Builder
			code := run(fail, &failingReader{strings.NewReader(fc.in)}, &stdout, &stderr)
			requireContent(t, out, "keep\n", "%q", fail)
			requireDir(t, dir, "in", "o")
			require.Equal(t, exitFail, code, "%q: %s", fail, stderr.String())
			require.Contains(t, stderr.String(), "connection reset")
			args = append(args, "--in", in)

			if _, err := gpu.DefaultDriver(); err != nil { // no engine
				fail := append(slices.Clone(args), "--backend", "gpu", "--out", out)
				code, _, stderr := cli(t, "", fail...)
				requireContent(t, out, "keep\n", "%q", fail)
				requireDir(t, dir, "in", "o")
				require.Equal(t, exitFail, code, "%q: %s", fail, stderr)
			}
		}
		checkOwner := otherOwner(t, out)

		code, stdout, stderr := cli(t, "", append(args, "--out", out)...)
		require.Equal(t, fc.code, code, "%q: %s", args, stderr)
		require.Empty(t, stdout)
		requireContent(t, out, fc.wantOut, "%q", args)
		st, err := os.Stat(out)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "%q: the permission bits are kept", args)
		if checkOwner != nil {
			checkOwner(t, out)
		}
		requireDir(t, dir, "in", "o")

		require.NoError(t, os.WriteFile(out, []byte("keep\n"), 0o640))
		link := filepath.Join(dir, "link")
		require.NoError(t, os.Symlink("o", link))
		code, _, stderr = cli(t, "", append(args, "--out", link)...)
		require.Equal(t, fc.code, code, "%q: %s", args, stderr)
		requireContent(t, out, fc.wantOut, "%q through a link", args)
		st, err = os.Lstat(link)
		require.NoError(t, err)
		require.Equal(t, os.ModeSymlink, st.Mode().Type(), "%q: the link stays a link", args)

		fresh := filepath.Join(dir, "new")
		code, _, stderr = cli(t, "", append(args, "--out", fresh)...)
		require.Equal(t, fc.code, code, "%q: %s", args, stderr)
		requireContent(t, fresh, fc.wantOut, "%q to a new file", args)
		if st, err := os.Stat(fresh); umask && err == nil {
			require.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "%q: a new file is 0666 less the umask", args)
		}
		requireDir(t, dir, "in", "o", "link", "new")
	}
}

// TestOutputOverInput: --out may name the input, by the same path,
// another spelling or a link, or be the file standard input reads: the
// input is read whole, then replaced by the answers. A hard link to the
// input is replaced, and the input left as it was.
func TestOutputOverInput(t *testing.T) {
	for _, fc := range fileCommands(t) {
		dir := t.TempDir()
		path := filepath.Join(dir, "items.txt")
		link, hard := filepath.Join(dir, "link.txt"), filepath.Join(dir, "hard.txt")
		for _, out := range []string{path, dir + "/./items.txt", link, hard, "stdin"} {
			require.NoError(t, os.RemoveAll(hard))
			require.NoError(t, os.WriteFile(path, []byte(fc.in), 0o644))
			require.NoError(t, os.RemoveAll(link))
			require.NoError(t, os.Symlink(path, link))
			require.NoError(t, os.Link(path, hard))
			args := append(slices.Clone(fc.args), "--in", path, "--out", out)
			var stdin io.Reader
			if out == "stdin" {
				f, err := os.Open(path)
				require.NoError(t, err)
				defer f.Close()
				stdin, args = f, append(slices.Clone(fc.args), "--out", path)
			}
			var stdout, stderr strings.Builder
			code := run(args, stdin, &stdout, &stderr)
			require.Equal(t, fc.code, code, "%q: %s", args, stderr.String())
			if out == hard {
				requireContent(t, hard, fc.wantOut, "%q", args)
				requireContent(t, path, fc.in, "%q: the input is left as it was", args)
			} else {
				requireContent(t, path, fc.wantOut, "%q", args)
			}
			requireDir(t, dir, "items.txt", "link.txt", "hard.txt")
		}
	}

	// Reading /dev/null while writing it harms nothing.
	code, _, errOut := cli(t, "", "mul", "--backend", "cpu", "--in", os.DevNull, "--out", os.DevNull)
	require.Equal(t, exitOK, code, errOut)
}
