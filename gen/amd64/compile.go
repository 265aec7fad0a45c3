package amd64

import (
	"fmt"

	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/pass"
)

// Compile is avo's pass.Compile (its list in avo v0.6.0, which gen/go.mod
// pins) with the function's name prefixed to the errors of the
// per-function passes: avo's own "failed to allocate registers" does not
// say which of some thirty kernels failed. The command sets pass.Compile
// to it before avo's Generate.
var Compile = pass.Concat(
	pass.Verify,
	named(pass.PruneJumpToFollowingLabel),
	named(pass.PruneDanglingLabels),
	named(pass.LabelTarget),
	named(pass.CFG),
	pass.InstructionPass(pass.ZeroExtend32BitOutputs),
	named(pass.Liveness),
	named(pass.AllocateRegisters),
	named(pass.BindRegisters),
	named(pass.VerifyAllocation),
	named(pass.EnsureBasePointerCalleeSaved),
	pass.Func(pass.IncludeTextFlagHeader),
	named(pass.PruneSelfMoves),
	named(pass.RequiredISAExtensions),
)

// named runs p on every function and prefixes its error with the
// function's name.
func named(p func(*ir.Function) error) pass.FunctionPass {
	return func(fn *ir.Function) error {
		if err := p(fn); err != nil {
			return fmt.Errorf("%s: %w", fn.Name, err)
		}
		return nil
	}
}
