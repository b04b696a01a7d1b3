package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGPUCheckScript: scripts/gpu-check.sh, which docs/performance.md
// describes, parses, runs exactly the binaries `make dev-binaries` builds,
// and has each step the doc names: the kernels against the CPU twin, the
// engine's and ECDSA's GPU tests, ecmul verify of every operation, the
// benchmark beside gECC, and compute-sanitizer's three tools.
func TestGPUCheckScript(t *testing.T) {
	root := filepath.Join("..", "..")
	script, err := os.ReadFile(filepath.Join(root, "scripts", "gpu-check.sh"))
	require.NoError(t, err)
	if bash, err := exec.LookPath("bash"); err == nil {
		out, err := exec.Command(bash, "-n", filepath.Join(root, "scripts", "gpu-check.sh")).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	binaries := func(text []byte, re string) []string {
		var names []string
		for _, m := range regexp.MustCompile(re).FindAllSubmatch(text, -1) {
			if name := string(m[1]); !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		return names
	}
	built := binaries(makefile, `-o \.dev/([a-z.]+)`)
	run := binaries(script, `\.dev/([a-z]+(?:\.test)?)\s`)
	require.Equal(t, built, run, "the script runs what make dev-binaries builds")
	for _, step := range []string{"-test.run 'KernelMatches'", "ecmul.test -test.v -test.run 'GPU'", "ecdsa.test -test.v -test.run 'GPU'",
		"for op in mul base ecdsa sign", "ecmul verify", "gecc.sh", "--op mul,base,ecdsa,sign", "--tool \"$tool\"",
		"san memcheck", "for tool in racecheck synccheck", "REBUILD", "make -B kernels-fatbin"} {
		require.Contains(t, string(script), step)
	}
}
