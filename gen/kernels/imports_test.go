package kernels

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBodiesKnowNoTarget checks that the kernel bodies and the IR import
// no backend: no avo, no amd64 or neon package. A body that needs an
// instruction of one target needs a new IR operation instead.
func TestBodiesKnowNoTarget(t *testing.T) {
	for _, dir := range []string{".", "../ir"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				if strings.Contains(p, "avo") || strings.HasSuffix(p, "/gen/amd64") || strings.HasSuffix(p, "/gen/neon") {
					t.Errorf("%s imports %s", f, p)
				}
			}
		}
	}
}
