package amd64

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/reg"
)

// compileOne builds a function that keeps live ZMM values alive at once
// and runs Compile on it, returning avo's status and diagnostics.
func compileOne(name string, live int) (int, string) {
	ctx := build.NewContext()
	ctx.Function(name)
	ctx.SignatureExpr("func()")
	zs := make([]reg.VecVirtual, live)
	for i := range zs {
		zs[i] = ctx.ZMM()
		ctx.VXORPS(zs[i], zs[i], zs[i])
	}
	sum := ctx.ZMM()
	ctx.VXORPS(sum, sum, sum)
	for _, z := range zs {
		ctx.VADDPS(z, sum, sum)
	}
	ctx.VZEROUPPER()
	ctx.RET()
	var diag bytes.Buffer
	status := build.Main(&build.Config{ErrOut: &diag, MaxErrors: 1, Passes: []pass.Interface{Compile}}, ctx)
	return status, diag.String()
}

// TestCompileNamesTheFunction checks that a function avo cannot allocate
// is named in the error, and that one it can compiles.
func TestCompileNamesTheFunction(t *testing.T) {
	if status, diag := compileOne("Fits", 8); status != 0 {
		t.Fatalf("8 live ZMM values: status %d, %q", status, diag)
	}
	status, diag := compileOne("TooManyLive", 40)
	if status == 0 || !strings.Contains(diag, "TooManyLive: failed to allocate registers") {
		t.Fatalf("40 live ZMM values: status %d, diagnostics %q; want the function named", status, diag)
	}
}
