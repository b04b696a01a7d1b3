package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParamsDocExample: the example of docs/cli.md's params section, a
// params command piped through grep -E, shows what the command's output
// gives under that pattern, line for line.
func TestParamsDocExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sourceDir(), "..", "..", "docs", "cli.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(b), "## `ecmul params`\n")
	require.True(t, ok, "docs/cli.md: no params section")
	_, rest, ok = strings.Cut(rest, "```sh\n")
	require.True(t, ok, "docs/cli.md: no sh block in the params section")
	block, _, _ := strings.Cut(rest, "```\n")
	lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	m := regexp.MustCompile(`^\$ ecmul (params[^|]*)\| grep -E '([^']+)'$`).FindStringSubmatch(lines[0])
	require.NotNil(t, m, "docs/cli.md: the example is not `$ ecmul params … | grep -E '…'`: %s", lines[0])
	code, stdout, stderr := cli(t, "", strings.Fields(m[1])...)
	require.Zero(t, code, stderr)
	pattern := regexp.MustCompile(m[2])
	var want []string
	for _, l := range strings.Split(stdout, "\n") {
		if pattern.MatchString(l) {
			want = append(want, l)
		}
	}
	require.Equal(t, want, lines[1:])
}
