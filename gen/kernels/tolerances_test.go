package kernels

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"strconv"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/gen/ir"
)

// TestTolerances ties the contact tolerances' bits to their definitions
// in fallback/contact.go, read from its source (they are unexported): the
// float32 constant (ParallelTolerance2 as a float32) and the float64 bits
// in the function that gives it for F (math.Float64frombits).
func TestTolerances(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../../fallback/contact.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{} // constant name -> literal
	bits64 := map[string]string{} // function name -> Float64frombits literal
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			if len(n.Values) == 0 {
				break
			}
			if lit, ok := n.Values[0].(*ast.BasicLit); ok {
				consts[n.Names[0].Name] = lit.Value
			}
		case *ast.FuncDecl:
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if c, ok := m.(*ast.CallExpr); ok {
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Float64frombits" {
						bits64[n.Name.Name] = c.Args[0].(*ast.BasicLit).Value
					}
				}
				return true
			})
		}
		return true
	})
	if got := math.Float64bits(fallback.ParallelTolerance2); got != math.Float64bits(1e-4) {
		t.Errorf("fallback.ParallelTolerance2 is %v, not 1e-4", fallback.ParallelTolerance2)
	}
	for _, c := range []struct {
		k           ir.Constant
		name, funcF string
	}{{parTol, "ParallelTolerance2", "parTol"}, {crossTol, "crossTol2", "crossTol2Of"}, {perpTol, "perpTol2", "perpTol2Of"}, {signTol, "signTol2", "signTol2Of"}} {
		v, err := strconv.ParseFloat(consts[c.name], 64)
		if err != nil {
			t.Fatalf("fallback's %s: %v", c.name, err)
		}
		if want := uint64(math.Float32bits(float32(v))); c.k.Bits[ir.F32] != want {
			t.Errorf("%s: float32 bits %#x, fallback's %s %#x", c.k.Name, c.k.Bits[ir.F32], c.name, want)
		}
		want, err := strconv.ParseUint(bits64[c.funcF], 0, 64)
		if err != nil {
			t.Fatalf("fallback's %s: %v", c.funcF, err)
		}
		if c.k.Bits[ir.F64] != want {
			t.Errorf("%s: float64 bits %#x, fallback's %s %#x", c.k.Name, c.k.Bits[ir.F64], c.funcF, want)
		}
	}
}
