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
	"slices"
	"strings"
	"testing"
)

// readmeEngine declares what the README's Go snippets take from the
// engine around them (its bodies, its broadphase, the batches an earlier
// snippet made). A snippet that uses a new name fails the test with
// "undefined: name" at its README line: declare the name here.
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

// TestReadmeSnippetsCompile type-checks every Go snippet of README.md
// against the packages of this tree, so that the usage the README shows
// keeps compiling as the API changes. Each snippet becomes the body of a
// function of its own (its imports go to the file), with //line
// directives so that an error names the README's line. Unused variables
// and imports are allowed: snippets show a step, not a whole program.
func TestReadmeSnippetsCompile(t *testing.T) {
	if os.Getenv("SEGDIST_UNDER_QEMU") != "" {
		t.Skip("the source importer runs the host's go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, n := readmeSnippets(string(readme))
	if n < 5 {
		t.Fatalf("found %d Go snippets in README.md, want at least 5 (has the fence changed?)", n)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "snippets.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("README.md's Go snippets do not parse: %v", err)
	}
	var hard []error
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "source", nil),
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

// readmeSnippets returns README.md's Go code blocks as one Go file, each
// block the body of func snippetK with //line directives pointing back at
// the README, its import lines moved to the file's import block; and the
// number of blocks.
func readmeSnippets(readme string) (string, int) {
	var imports []string
	var bodies strings.Builder
	lines := strings.Split(readme, "\n")
	n := 0
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		n++
		fmt.Fprintf(&bodies, "\nfunc snippet%d() {\n", n)
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
			default:
				// Line numbers are 1-based: lines[i] is README line i+1.
				fmt.Fprintf(&bodies, "//line README.md:%d\n%s\n", i+1, lines[i])
			}
		}
		bodies.WriteString("}\n")
	}
	imports = append(imports, `"github.com/segdist/segdist/soa"`) // readmeEngine's
	slices.Sort(imports)
	imports = slices.Compact(imports)
	return "package snippets\n\nimport (\n\t" + strings.Join(imports, "\n\t") + "\n)\n" + readmeEngine + bodies.String(), n
}
