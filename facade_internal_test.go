package ecmul

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"

	"github.com/rnsec/ecmul/internal/engine"
)

// TestFacadeValues: the facade's statuses and backends are the engine's,
// value for value, since its slices are handed over as they are.
func TestFacadeValues(t *testing.T) {
	statuses := map[Status]engine.Status{
		StatusNotComputed: engine.StatusNotComputed, StatusPoint: engine.StatusPoint, StatusInfinity: engine.StatusInfinity,
		StatusBadEncoding: engine.StatusBadEncoding, StatusBadCoordinate: engine.StatusBadCoordinate, StatusNotOnCurve: engine.StatusNotOnCurve,
		StatusInfinityInput: engine.StatusInfinityInput, StatusResultCheck: engine.StatusResultCheck,
	}
	for s, es := range statuses {
		if uint8(s) != uint8(es) || s.String() != es.String() {
			t.Errorf("status %d (%v) is the engine's %d (%v)", s, s, es, es)
		}
	}
	backends := map[Backend]engine.Backend{Auto: engine.Auto, GPU: engine.GPU, RNSCPU: engine.RNSCPU, CPU: engine.CPU}
	for b, eb := range backends {
		if uint8(b) != uint8(eb) {
			t.Errorf("backend %v is the engine's %v", b, eb)
		}
	}
}

// TestAPISize: the package exports at most 30 names and 15 methods, and
// no method is a twin of another with a Progress suffix.
func TestAPISize(t *testing.T) {
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range pkgs["ecmul"].Files {
		files[name] = f
	}
	p := doc.New(&ast.Package{Name: "ecmul", Files: files}, "github.com/rnsec/ecmul", 0)
	names, methods := 0, 0
	count := func(vs []*doc.Value) {
		for _, v := range vs {
			names += len(v.Names)
		}
	}
	count(p.Consts)
	count(p.Vars)
	names += len(p.Funcs)
	for _, ty := range p.Types {
		names += 1 + len(ty.Funcs)
		count(ty.Consts)
		count(ty.Vars)
		methods += len(ty.Methods)
		for _, m := range ty.Methods {
			if strings.HasSuffix(m.Name, "Progress") {
				t.Errorf("%s.%s: progress is an option, not a twin method", ty.Name, m.Name)
			}
		}
	}
	if names > 30 || methods > 15 {
		t.Errorf("the package exports %d names and %d methods; want at most 30 and 15", names, methods)
	}
	t.Logf("%d names, %d methods", names, methods)
}
