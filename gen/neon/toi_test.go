package neon

import (
	"fmt"
	"testing"

	"github.com/segdist/segdist/gen/ir"
)

// The TOI kernels' conversion of status and iter, fcvtzu, decodes to its
// text in both lane types, on registers at the ends of their fields.
func TestFcvtzu(t *testing.T) {
	for _, e := range []ir.Elem{ir.F32, ir.F64} {
		arr := map[ir.Elem]string{ir.F32: "4s", ir.F64: "2d"}[e]
		for _, d := range []int{0, 1, 15, 16, 31} {
			for _, n := range []int{0, 1, 15, 16, 31} {
				i := of(e, fcvtzu(d, n))
				want := fmt.Sprintf("fcvtzu v%d.%s, v%d.%s", d, arr, n, arr)
				got, err := decode(i.word)
				if err != nil || normalize(got) != normalize(want) || i.text != want {
					t.Errorf("fcvtzu(%d, %d) %s: %08x decodes as %q (%v), text %q", d, n, arr, i.word, got, err, i.text)
				}
			}
		}
	}
}
