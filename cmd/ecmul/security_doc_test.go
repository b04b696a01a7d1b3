package main

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testFuncs returns the names of every test, fuzz target and example
// function of the module's _test.go files.
func testFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Example)\w*)\(`)
	names := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
		return nil
	})
	require.NoError(t, err)
	return names
}

// isStdPackage reports whether path names a package of Go's standard
// library (crypto/ecdh), not a file of the module.
func isStdPackage(path string) bool {
	st, err := os.Stat(filepath.Join(build.Default.GOROOT, "src", filepath.FromSlash(path)))
	return err == nil && st.IsDir()
}

// TestSecurityDocNamesWhatExists: README.md and SECURITY.md name tests,
// files and folders that exist. Every `TestX`, `FuzzX` or `ExampleX` they
// quote is a function of a _test.go file of the module; every quoted path
// (a word with a slash, or a file name with an extension; a * in it a
// glob) and every relative link exists. SECURITY.md stays at most 2,000
// words, the README at most 300 lines.
func TestSecurityDocNamesWhatExists(t *testing.T) {
	root := filepath.Join(sourceDir(), "..", "..")
	funcs := testFuncs(t, root)
	quoted := regexp.MustCompile("`([^`\n]+)`")
	link := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`)
	pathLike := regexp.MustCompile(`^[\w.-]+(/[\w.*-]+)*/?$`)
	for _, doc := range []string{"README.md", "SECURITY.md"} {
		b, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		text := string(b)
		var paths []string
		for _, m := range quoted.FindAllStringSubmatch(text, -1) {
			q := m[1]
			switch {
			case regexp.MustCompile(`^(Test|Fuzz|Example)\w*$`).MatchString(q):
				require.True(t, funcs[q], "%s names %s, which no _test.go declares", doc, q)
			case strings.HasPrefix(q, "github.com/") || !pathLike.MatchString(q) || isStdPackage(q):
			case strings.Contains(q, "/") || regexp.MustCompile(`^[\w-]+\.(go|md|sh|txt|json|cu)$`).MatchString(q):
				paths = append(paths, q)
			}
		}
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			if !strings.Contains(m[1], "://") {
				paths = append(paths, m[1])
			}
		}
		for _, p := range paths {
			matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(p, "/"))))
			require.NoError(t, err)
			require.NotEmpty(t, matches, "%s names %s, which does not exist", doc, p)
		}
	}
	sec, err := os.ReadFile(filepath.Join(root, "SECURITY.md"))
	require.NoError(t, err)
	require.LessOrEqual(t, len(strings.Fields(string(sec))), 2000, "SECURITY.md's words")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	require.LessOrEqual(t, strings.Count(string(readme), "\n"), 300, "README.md's lines")
}
