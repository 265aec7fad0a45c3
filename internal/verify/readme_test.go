package verify

import (
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readmeEngine declares what the Go snippets of README.md and docs/*.md
// take from the engine around them (its bodies, its broadphase, the
// batches an earlier snippet made). A snippet that uses a new name fails
// the test with "undefined: name" at its Markdown line: declare the name
// here.
const readmeEngine = `
var (
	candidates []struct{ I, J int }
	axis       []struct{ A, B [3]float32 }
	bodies     []struct {
		A, B   [3]float32
		Radius float32
	}
	broadphase interface{ Pairs() []struct{ I, J int } }
	addContact func(i, j uint32, normal [3]float32, depth, x, y, z float32)
	a, b, c, d [3]float64

	res      *soa.Results
	segs     *soa.Pairs
	caps     soa.Capsules
	pairs    *soa.IndexPairs
	contacts *soa.Contacts
)
`

// TestReadmeSnippetsCompile type-checks every Go snippet (a block fenced
// ```go) of README.md and of docs/*.md against the packages of this tree,
// so that the usage they show keeps compiling as the API changes. Each
// snippet becomes the body of a function of its own (its imports go to the
// file), or, when it starts with a declaration of a function, a type or a
// package, top-level declarations; //line directives make an error name
// the Markdown file and line. Unused variables and imports are allowed:
// snippets show a step, not a whole program. Each Markdown file is one
// package. Code that is not meant to compile takes another fence (```text).
func TestReadmeSnippetsCompile(t *testing.T) {
	if os.Getenv("SEGDIST_UNDER_QEMU") != "" {
		t.Skip("the source importer runs the host's go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil) // shared: it caches the packages it has checked
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("../..", name))
			if err != nil {
				t.Fatal(err)
			}
			src, n := markdownSnippets(name, string(text))
			if name == "README.md" && n < 5 {
				t.Fatalf("found %d Go snippets in README.md, want at least 5 (has the fence changed?)", n)
			}
			if n == 0 {
				return
			}
			checkSnippets(t, fset, imp, name, src)
		})
	}
}

// checkSnippets type-checks src, the snippets of Markdown file name as one
// Go file, and reports every error but unused variables and imports.
func checkSnippets(t *testing.T, fset *token.FileSet, imp types.Importer, name, src string) {
	t.Helper()
	// A file name without a directory: //line names relative to it stay as they are.
	f, err := parser.ParseFile(fset, strings.ReplaceAll(name, "/", "_")+".go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s's Go snippets do not parse: %v", name, err)
	}
	var hard []error
	conf := types.Config{
		Importer: imp,
		Error: func(err error) {
			var te types.Error
			if errors.As(err, &te) && te.Soft && (strings.Contains(te.Msg, "declared and not used") || strings.Contains(te.Msg, "imported and not used")) {
				return
			}
			hard = append(hard, err)
		},
	}
	conf.Check("snippets", fset, []*ast.File{f}, nil) // errors go to conf.Error
	for _, err := range hard {
		t.Error(err)
	}
	if len(hard) > 0 {
		t.Logf("the file checked:\n%s", src)
	}
}

// markdownSnippets returns the Go code blocks of Markdown file name (its
// text md) as one Go file, and the number of blocks. Each block becomes
// the body of func snippetK, or top-level declarations when its first
// line of code declares a function, a type or a package (the package
// clause is dropped), with //line directives pointing back at the
// Markdown; import lines move to the file's import block.
func markdownSnippets(name, md string) (string, int) {
	var imports []string
	var bodies strings.Builder
	lines := strings.Split(md, "\n")
	n := 0
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		n++
		var code []string // directive and line, in pairs
		inImport := false
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			l := strings.TrimSpace(lines[i])
			switch {
			case l == "import (":
				inImport = true
			case inImport && l == ")":
				inImport = false
			case inImport:
				imports = append(imports, l)
			case strings.HasPrefix(l, "import "):
				imports = append(imports, strings.TrimPrefix(l, "import "))
			case strings.HasPrefix(l, "package "):
			default:
				// Line numbers are 1-based: lines[i] is line i+1.
				code = append(code, fmt.Sprintf("//line %s:%d", name, i+1), lines[i])
			}
		}
		if topLevel(code) {
			fmt.Fprintf(&bodies, "\n%s\n", strings.Join(code, "\n"))
		} else {
			fmt.Fprintf(&bodies, "\nfunc snippet%d() {\n%s\n}\n", n, strings.Join(code, "\n"))
		}
	}
	imports = append(imports, `"github.com/segdist/segdist/soa"`) // readmeEngine's
	slices.Sort(imports)
	imports = slices.Compact(imports)
	return "package snippets\n\nimport (\n\t" + strings.Join(imports, "\n\t") + "\n)\n" + readmeEngine + bodies.String(), n
}

// topLevel reports whether a snippet's code (directives and lines in
// pairs) starts with a declaration that cannot stand in a function body:
// a func, or a type, whose methods may follow.
func topLevel(code []string) bool {
	for k := 1; k < len(code); k += 2 {
		l := strings.TrimSpace(code[k])
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		return strings.HasPrefix(l, "func ") || strings.HasPrefix(l, "type ")
	}
	return false
}
