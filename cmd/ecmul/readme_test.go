package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// shellWords splits a command line the way a shell would for our examples:
// blanks separate words, quotes group them, and an operator (|, <, >, ;,
// &&, #...) is a word of its own, marked by a leading NUL.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\'' || ch == '"':
			j := strings.IndexByte(line[i+1:], ch)
			if j < 0 {
				j = len(line) - i - 1
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case ch == ' ' || ch == '\t':
			flush()
		case ch == '#' && !inWord:
			flush()
			return append(words, "\x00#")
		case strings.IndexByte("|<>;&", ch) >= 0:
			if cur.Len() == 1 && cur.String() == "2" { // 2>
				cur.Reset()
				inWord = false
			}
			flush()
			words = append(words, "\x00"+string(ch))
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	flush()
	return words
}

// invocations returns the arguments of every ecmul command on line: after
// "ecmul", "bin/ecmul", ".dev/ecmul" or "go run ./cmd/ecmul", up to the
// next shell operator.
func invocations(line string) [][]string {
	words := shellWords(line)
	var out [][]string
	for i := 0; i < len(words); i++ {
		w := words[i]
		isBin := w == "ecmul" || strings.HasSuffix(w, "/ecmul") && !strings.HasPrefix(w, "./cmd/") && !strings.HasPrefix(w, "github.com/")
		if w == "./cmd/ecmul" && i >= 2 && words[i-2] == "go" && words[i-1] == "run" {
			isBin = true
		}
		if !isBin {
			continue
		}
		var args []string
		for i++; i < len(words) && !strings.HasPrefix(words[i], "\x00"); i++ {
			args = append(args, words[i])
		}
		if len(args) > 0 && strings.HasSuffix(args[0], ":") {
			continue // a message of the command, not a command
		}
		out = append(out, args)
	}
	return out
}

// checkInvocation runs args with -h added: every flag must exist and take
// its value, and nothing may run.
func checkInvocation(t *testing.T, where string, args []string) {
	t.Helper()
	names := []string{"help", "-h", "--help", "-help"}
	for _, c := range commands() {
		names = append(names, c.name)
	}
	require.NotEmpty(t, args, "%s: ecmul without a command", where)
	require.Contains(t, names, args[0], "%s: unknown command in %q", where, args)
	run1 := append(slices.Clone(args), "-h")
	if args[0] == "help" || strings.HasPrefix(args[0], "-") {
		run1 = args
	}
	var out, errOut bytes.Buffer
	code := run(run1, strings.NewReader(""), &out, &errOut)
	require.Equal(t, exitOK, code, "%s: %q: %s", where, args, errOut.String())
	require.Contains(t, out.String()+errOut.String(), "Usage: ecmul", "%s: %q", where, args)
}

// docSections returns the sh code lines (continuations joined, prompts
// removed) of the Markdown file at path, relative to the repository root,
// by the "## `ecmul NAME`" section they are in, and each section's text.
func docSections(t *testing.T, path string) (code map[string][]string, text map[string]string) {
	b, err := os.ReadFile(filepath.Join(sourceDir(), "..", "..", filepath.FromSlash(path)))
	require.NoError(t, err)
	code, text = map[string][]string{}, map[string]string{}
	heading := regexp.MustCompile("^## `ecmul ([a-z-]+)`")
	section := ""
	inSh, pending := false, ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "## ") {
			section = ""
			if m := heading.FindStringSubmatch(l); m != nil {
				section = m[1]
			}
		}
		text[section] += l + "\n"
		switch {
		case strings.HasPrefix(l, "```"):
			inSh = !inSh && strings.TrimSpace(l) == "```sh"
		case inSh:
			l = strings.TrimPrefix(pending+l, "$ ")
			if strings.HasSuffix(l, "\\") {
				pending = strings.TrimSuffix(l, "\\") + " "
				continue
			}
			pending = ""
			code[section] = append(code[section], l)
		}
	}
	return code, text
}

// checkDocExamples checks every ecmul invocation in the sh examples of the
// Markdown file at path and returns how many there are.
func checkDocExamples(t *testing.T, path string) (examples int) {
	t.Helper()
	code, _ := docSections(t, path)
	for section, lines := range code {
		for _, l := range lines {
			for _, args := range invocations(l) {
				checkInvocation(t, path+" "+section, args)
				examples++
			}
		}
	}
	return examples
}

// cliExample returns the first sh block of docs/cli.md's section of the
// ecmul command name: its first line, a "$ ecmul …" command without the
// "$ ", and the lines it shows.
func cliExample(t *testing.T, name string) (command string, shown []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sourceDir(), "..", "..", "docs", "cli.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(b), "## `ecmul "+name+"`\n")
	require.True(t, ok, "docs/cli.md: no %s section", name)
	_, rest, ok = strings.Cut(rest, "```sh\n")
	require.True(t, ok, "docs/cli.md: no sh block in the %s section", name)
	block, _, _ := strings.Cut(rest, "```\n")
	lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	command, ok = strings.CutPrefix(lines[0], "$ ")
	require.True(t, ok, "docs/cli.md: the %s example does not start with \"$ \": %s", name, lines[0])
	return command, lines[1:]
}

// TestCLIReferenceExamples checks the command reference, docs/cli.md,
// against the commands: every command has a section with an example of
// it, every example's flags exist, and every flag of mul, verify and gen
// is documented in its section.
func TestCLIReferenceExamples(t *testing.T) {
	const ref = "docs/cli.md"
	code, text := docSections(t, ref)
	registered := registeredFlags()
	require.Greater(t, checkDocExamples(t, ref), 10)
	for _, c := range commands() {
		found := false
		for _, l := range code[c.name] {
			for _, args := range invocations(l) {
				found = found || args[0] == c.name
			}
		}
		require.True(t, found, "%s: no section \"## `ecmul %s`\" with an example of it", ref, c.name)
	}
	for _, name := range []string{"mul", "verify", "gen"} {
		for _, f := range registered[name] {
			require.Contains(t, text[name], "`--"+f+"`", "%s: flag --%s of %s is not in its section", ref, f, name)
		}
	}
}

// TestREADMEExamples checks the sh examples of README.md and of the other
// documents in docs/: every ecmul invocation names a command and flags
// that exist. The README opens with the two set-up commands.
func TestREADMEExamples(t *testing.T) {
	code, _ := docSections(t, "README.md")
	require.Greater(t, checkDocExamples(t, "README.md"), 3)
	require.GreaterOrEqual(t, len(code[""]), 2)
	require.True(t, strings.HasPrefix(code[""][0], "go run ./cmd/ecmul mul --curve p224 < testdata/example-p224.txt"), "README's first command: %q", code[""][0])
	require.True(t, strings.HasPrefix(code[""][1], "go test -p 1 ./..."), "README's second command: %q", code[""][1])
	docs, err := filepath.Glob(filepath.Join(sourceDir(), "..", "..", "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	for _, d := range docs {
		checkDocExamples(t, "docs/"+filepath.Base(d))
	}
}

// TestREADMEFirstOutput runs the README's first command on the cpu backend
// and compares its output with the one the README shows: the first code
// block that is neither sh nor Go.
func TestREADMEFirstOutput(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sourceDir(), "..", "..", "README.md"))
	require.NoError(t, err)
	var shown []string
	inFence, inOutput := false, false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			if inFence && inOutput {
				break
			}
			inFence = !inFence
			inOutput = inFence && strings.TrimSpace(l) == "```"
			continue
		}
		if inOutput {
			shown = append(shown, l)
		}
	}
	require.NotEmpty(t, shown, "README: no output block")
	input, err := os.ReadFile(filepath.Join(sourceDir(), "..", "..", "testdata", "example-p224.txt"))
	require.NoError(t, err)
	code, out, errOut := cli(t, string(input), "mul", "--curve", "p224", "--backend", "cpu")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, out, strings.Join(shown, "\n")+"\n")
}

// TestHelpExamples runs the examples of the main help and of every
// command's help, and checks that each help names the command's examples'
// flags.
func TestHelpExamples(t *testing.T) {
	var main bytes.Buffer
	usage(&main)
	helps := map[string]string{"ecmul --help": main.String()}
	for _, c := range commands() {
		var out bytes.Buffer
		require.Equal(t, exitOK, run([]string{"help", c.name}, strings.NewReader(""), &out, &out))
		helps[c.name] = out.String()
	}
	examples := 0
	for where, text := range helps {
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(l)
			if !strings.HasPrefix(l, "ecmul ") && !strings.HasPrefix(l, "printf ") && !strings.HasPrefix(l, "echo ") {
				continue
			}
			for _, args := range invocations(l) {
				checkInvocation(t, "help of "+where, args)
				examples++
			}
		}
	}
	require.GreaterOrEqual(t, examples, 8)
	for _, name := range []string{"mul", "verify", "gen"} {
		require.Contains(t, helps[name], "Example", name)
		require.Contains(t, helps[name], "Exit status", name)
	}
	for _, c := range commands() {
		require.Contains(t, helps["ecmul --help"], "  "+c.name+" ", "the main help lists %s", c.name)
	}
}

func TestShellWords(t *testing.T) {
	require.Equal(t, []string{"printf", "a b\\n", "\x00|", "bin/ecmul", "mul", "--backend", "cpu", "\x00>", "out.txt", "\x00#"},
		shellWords(`printf 'a b\n' | bin/ecmul mul --backend cpu >out.txt # note`))
	require.Equal(t, [][]string{{"gen", "--n", "3"}, {"mul", "--stats"}},
		invocations(`ecmul gen --n 3 | ecmul mul --stats 2> /dev/null`))
	require.Equal(t, [][]string{{"params", "--curve", "p224"}}, invocations(`go run ./cmd/ecmul params --curve p224`))
	require.Empty(t, invocations(`ecmul mul: 1 item(s) failed`))
	require.Empty(t, invocations(`go test ./cmd/ecmul`))
}

// TestREADMELibraryExampleRuns: the README's Go example is the body of
// Example_scalarMultBytes in the root package's example_test.go, word for
// word, so that it compiles and its output is checked there.
func TestREADMELibraryExampleRuns(t *testing.T) {
	root := filepath.Join(sourceDir(), "..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```go\npackage main\n.*?func main\\(\\) \\{\n(.*?)\n\\}\n```").FindSubmatch(readme)
	require.NotNil(t, m, "README: no Go example with func main")
	examples, err := os.ReadFile(filepath.Join(root, "example_test.go"))
	require.NoError(t, err)
	require.Contains(t, string(examples), "func Example_scalarMultBytes() {\n"+string(m[1])+"\n\t// Output:")
}
